package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.RunSummary;

/**
 * What became of the export's run lock during an action (README, "One run at a time"): held from its
 * start to its end, never taken (a dry run whose store denies the lock's permissions goes on without
 * it), or lost on the way (another run took it over, or it expired while its renewals failed).
 *
 * @param key the lock's key, such as {@code cogram.statesweep/lock}
 * @param reason why it was not taken (the store's refusal) or why it was lost; null while held
 */
public record LockOutcome(String key, Status status, String reason) {
  /** How the action ended with the lock. */
  public enum Status {
    /** Held from the start of the action to its end. */
    HELD,
    /** Not taken: the store denied its permissions, and a dry run went on without it. */
    NONE,
    /** Lost during the action: from that moment another run may hold it. */
    LOST
  }

  public LockOutcome {
    requireNonNull(key, "key is null");
    requireNonNull(status, "status is null");
    if ((status == Status.HELD) != (reason == null)) {
      throw new IllegalArgumentException("a lock outcome has a reason exactly when the lock was not held: "
          + status + " " + reason);
    }
  }

  public boolean lost() {
    return status == Status.LOST;
  }

  /**
   * The line that says how the run went without the lock, for the run's output, or null when it held the
   * lock: a warning for a dry run without it, the loss for a run that lost it.
   */
  public String line() {
    return switch (status) {
      case HELD -> null;
      case NONE -> "warning: " + reason + ". This dry run goes on without the lock";
      case LOST -> "lost the run lock " + key + " during the run: " + reason;
    };
  }

  /** The summary with {@code run_lock=none} or {@code run_lock=lost} after its other pairs; as it is when held. */
  RunSummary appliedTo(RunSummary summary) {
    return switch (status) {
      case HELD -> summary;
      case NONE -> summary.with("run_lock", "none");
      case LOST -> summary.with("run_lock", "lost");
    };
  }
}
