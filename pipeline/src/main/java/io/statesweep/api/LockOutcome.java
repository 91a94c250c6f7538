package io.statesweep.api;

import static java.util.Objects.requireNonNull;

import io.statesweep.config.Settings;
import io.statesweep.plan.LineText;
import io.statesweep.plan.RunSummary;
import io.statesweep.store.ConditionProbe;

/**
 * What became of the export's run lock during an action (pipeline/README.md, "One run at a time"): held from its start
 * to its end, never taken (a dry run whose store denies the lock's permissions, or cannot hold a lock, goes on without
 * it), held on a store that cannot keep another run out (accepted with
 * {@code --unsafe-lock-without-conditional-writes}), or lost on the way (another run took it over, or it
 * expired while its renewals failed).
 *
 * @param key the lock's key, such as {@code cogram.statesweep/lock}
 * @param reason why it was not taken (the store's refusal), why it is unsafe, or why it was lost; null while held
 * @param conditionalWrites whether the store honours PutObject {@code If-None-Match: *}, as the lock's probe found
 */
public record LockOutcome(String key, Status status, String reason, ConditionProbe.Verdict conditionalWrites) {
  /** How the action ended with the lock. */
  public enum Status {
    /** Held from the start of the action to its end. */
    HELD,
    /** Not taken: the store denied its permissions or cannot hold it, and a dry run went on without it. */
    NONE,
    /** Held to the end on a store that ignores {@code If-None-Match: *}: another run may have held it too. */
    UNSAFE,
    /** Lost during the action: from that moment another run may hold it. */
    LOST
  }

  public LockOutcome {
    requireNonNull(key, "key is null");
    requireNonNull(status, "status is null");
    requireNonNull(conditionalWrites, "conditionalWrites is null");
    if ((status == Status.HELD) != (reason == null)) {
      throw new IllegalArgumentException("a lock outcome has a reason exactly when the lock was not held: "
          + status + " " + reason);
    }
  }

  /** An outcome on a store whose conditional writes the probe found honoured. */
  public LockOutcome(String key, Status status, String reason) {
    this(key, status, reason, ConditionProbe.Verdict.HONOURED);
  }

  public boolean lost() {
    return status == Status.LOST;
  }

  /**
   * The line that says how the run went without the lock, for the run's output, or null when it held the
   * lock: a warning for a dry run without it or a run that holds it unsafely, the loss for a run that lost it.
   * The reason, which may quote another run's lock document or the store's answer, is escaped
   * ({@link LineText#escape}).
   */
  public String line() {
    return switch (status) {
      case HELD -> null;
      case NONE -> "warning: " + LineText.escape(reason) + ". This dry run goes on without the lock";
      case UNSAFE -> "warning: " + LineText.escape(reason) + ". This run holds it anyway (" + Settings.UNSAFE_LOCK.flag()
          + "): another run that starts at the same moment can hold it too";
      case LOST -> "lost the run lock " + LineText.escape(key) + " during the run: " + LineText.escape(reason);
    };
  }

  /**
   * The summary with, after its other pairs, {@code conditional_writes=ignored} (or {@code unverified}) when the
   * probe did not find the store honouring them, and {@code run_lock=none}, {@code unsafe} or {@code lost}; as
   * it is when the lock was held on a store that honours them.
   */
  public RunSummary appliedTo(RunSummary summary) {
    RunSummary probed = conditionalWrites == ConditionProbe.Verdict.HONOURED ? summary
        : summary.with("conditional_writes", conditionalWrites.label());
    return switch (status) {
      case HELD -> probed;
      case NONE -> probed.with("run_lock", "none");
      case UNSAFE -> probed.with("run_lock", "unsafe");
      case LOST -> probed.with("run_lock", "lost");
    };
  }
}
