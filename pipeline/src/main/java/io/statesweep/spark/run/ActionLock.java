package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.LockOutcome;
import io.statesweep.api.failures.RunLockException;
import io.statesweep.config.DeleteOptions;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.Settings;
import io.statesweep.plan.LineText;
import io.statesweep.s3.RunLock;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ObjectStore;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The export's run lock as an action holds it: taken when the action starts, renewed in the background,
 * released when the action ends. An action that runs inside another (the execute of a {@link SparkRunAction})
 * gets a {@link #shared} view: it watches the lock but leaves its release to the action that took it.
 *
 * <p>Before it takes the lock it probes the store's PutObject {@code If-None-Match: *} ({@link RunLock#probe}):
 * on a store that ignores it, taking the lock would write over another run's, so a dry run goes on without it
 * and a run that deletes refuses ({@link RunLockException.Untrusted}) unless
 * {@code --unsafe-lock-without-conditional-writes} accepts the risk.
 */
public final class ActionLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActionLock.class);

  private final String key;
  /** Null when a dry run goes on without the lock. */
  private final RunLock lock;
  /** Why the lock was not taken, or null. */
  private final String deniedBecause;
  private final boolean owned;
  /** The store the lock's requests go through: they are part of the run's cost. */
  private final S3ObjectStore store;
  /** What the lock's probe found of the store's PutObject If-None-Match: *. */
  private final ConditionProbe writes;

  private ActionLock(String key, RunLock lock, String deniedBecause, boolean owned, S3ObjectStore store,
      ConditionProbe writes) {
    this.store = store;
    this.key = key;
    this.lock = lock;
    this.deniedBecause = deniedBecause;
    this.owned = owned;
    this.writes = writes;
  }

  /**
   * The lock of a run that deletes: {@link RunLockException.Untrusted} when the store ignores the lock's
   * condition (unless {@code --unsafe-lock-without-conditional-writes}), {@link RunLockException.Held} when
   * another run holds it, {@link RunLockException.Denied} when the store refuses its permissions (a run that
   * deletes never goes on without it), {@link RunLockException.Unavailable} for any other failure.
   *
   * @param deletes whether the lock may be taken on a store that ignores conditional writes
   *     ({@link DeleteOptions#unsafeLock})
   * @param command what runs, for the lock's owner: {@code "statesweep <command> (pid N)"}
   */
  public static ActionLock toDelete(ExportOptions options, DeleteOptions deletes, String command) {
    String key = RunLock.keyFor(options.prefix().value());
    S3ObjectStore store = S3ObjectStore.open(options.s3(), options.bucket());
    ConditionProbe writes = probe(store, key);
    if (writes.ignored() && !deletes.unsafeLock()) {
      throw new RunLockException.Untrusted("Cannot take the run lock s3://" + options.bucket() + "/" + key + ": "
          + cannotHold(writes) + ", so another run could delete at the same time. Nothing was read or deleted. Run"
          + " on a store that honours conditional writes (S3 does), or accept the risk with "
          + Settings.UNSAFE_LOCK.flag(), writes.describe());
    }
    return new ActionLock(key, acquire(store, options, command, writes), null, true, store, writes);
  }

  /**
   * The lock of a dry run: as {@link #toDelete}, except that when the store denies the lock's permissions
   * (the exporter's guide grants none for it) or ignores its condition, the run warns, saying why, and goes on
   * without it.
   */
  public static ActionLock forDryRun(ExportOptions options, String command) {
    String key = RunLock.keyFor(options.prefix().value());
    S3ObjectStore store = S3ObjectStore.open(options.s3(), options.bucket());
    ConditionProbe writes = probe(store, key);
    if (writes.ignored()) {
      // Its lock would write over another run's: a dry run needs none.
      LOG.warn("{}. This dry run goes on without the lock", LineText.escape(cannotHold(writes)));
      return new ActionLock(key, null, cannotHold(writes), true, store, writes);
    }
    try {
      return new ActionLock(key, acquire(store, options, command, writes), null, true, store, writes);
    } catch (RunLockException.Denied e) {
      LOG.warn("{}. This dry run goes on without the lock", LineText.escape(e.getMessage()));
      return new ActionLock(key, null, e.getMessage(), true, store, writes);
    }
  }

  private static ConditionProbe probe(ObjectStore store, String key) {
    ConditionProbe writes = RunLock.probe(store, key);
    if (writes.verdict() != ConditionProbe.Verdict.HONOURED) {
      LOG.warn("Conditional writes (PutObject If-None-Match: *, on which the run lock rests): {}",
          LineText.escape(writes.describe()));
    }
    return writes;
  }

  private static String cannotHold(ConditionProbe writes) {
    return writes.reason() + ": it cannot hold the run lock";
  }

  private static RunLock acquire(ObjectStore store, ExportOptions options, String command, ConditionProbe writes) {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown host";
    }
    String key = RunLock.keyFor(options.prefix().value());
    String owner = "statesweep " + command + " (pid " + ProcessHandle.current().pid() + ")";
    // The wall clock, never an action's test clock: the lock's expiry is read by other runs.
    RunLock lock = writes.ignored()
        ? RunLock.acquireWithoutConditionalWrites(store, key, owner, host, options.lockTtl(), Clock.systemUTC())
        : RunLock.acquire(store, key, owner, host, options.lockTtl(), Clock.systemUTC());
    return lock.renewInBackground();
  }

  /** The same lock for an action inside the one that took it: closing it releases nothing. */
  public ActionLock shared() {
    return new ActionLock(key, lock, deniedBecause, false, store, writes);
  }

  /** The requests the lock made so far (taking it, renewing it; its release comes after): by operation. */
  public java.util.Map<String, Long> requestCounts() {
    return store == null ? java.util.Map.of() : store.requestCounts().snapshot();
  }

  /** Whether a run that deletes may go on under it: it is taken (not denied). */
  public boolean taken() {
    return lock != null;
  }

  /** Calls {@code listener} once as soon as the lock is lost (at once if it is); never without a lock. */
  public void onLost(Runnable listener) {
    requireNonNull(listener, "listener is null");
    if (lock != null) {
      lock.onLost(listener);
    }
  }

  /** Why the lock was lost, such as {@code another run took it over: <holder>}, or null. */
  public String lossReason() {
    return lock == null ? null : lock.lossReason();
  }

  public String key() {
    return key;
  }

  /** How the action stands with the lock now. */
  public LockOutcome outcome() {
    ConditionProbe.Verdict verdict = writes.verdict();
    if (lock == null) {
      return new LockOutcome(key, LockOutcome.Status.NONE, deniedBecause, verdict);
    }
    String lost = lock.lossReason();
    if (lost != null) {
      return new LockOutcome(key, LockOutcome.Status.LOST, lost, verdict);
    }
    return writes.ignored() ? new LockOutcome(key, LockOutcome.Status.UNSAFE, cannotHold(writes), verdict)
        : new LockOutcome(key, LockOutcome.Status.HELD, null, verdict);
  }

  /** Stops renewing and releases the lock, if this action took it. */
  @Override
  public void close() {
    if (owned && lock != null) {
      lock.close();
    }
  }
}
