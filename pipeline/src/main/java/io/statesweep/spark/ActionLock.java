package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.config.RunOptions;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.RunLock;
import io.statesweep.s3.S3Clients;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The export's run lock as an action holds it: taken when the action starts, renewed in the background,
 * released when the action ends. An action that runs inside another (the execute of a {@link SparkRunAction})
 * gets a {@link #shared} view: it watches the lock but leaves its release to the action that took it.
 */
final class ActionLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActionLock.class);

  private final String key;
  /** Null when a dry run goes on without the lock. */
  private final RunLock lock;
  /** Why the lock was not taken, or null. */
  private final String deniedBecause;
  private final boolean owned;
  /** The store the lock's requests go through: they are part of the run's cost. */
  private final ObjectStore store;

  private ActionLock(String key, RunLock lock, String deniedBecause, boolean owned, ObjectStore store) {
    this.store = store;
    this.key = key;
    this.lock = lock;
    this.deniedBecause = deniedBecause;
    this.owned = owned;
  }

  /**
   * The lock of a run that deletes: {@link RunLock.HeldException} when another run holds it,
   * {@link RunLock.DeniedException} when the store refuses its permissions (a run that deletes never goes on
   * without it), {@link RunLock.UnavailableException} for any other failure.
   *
   * @param command what runs, for the lock's owner: {@code "statesweep <command> (pid N)"}
   */
  static ActionLock toDelete(RunOptions options, String command) {
    ObjectStore store = new ObjectStore(S3Clients.shared(options.s3()), options.bucket());
    return new ActionLock(RunLock.keyFor(options.prefix().value()), acquire(store, options, command), null, true, store);
  }

  /**
   * The lock of a dry run: as {@link #toDelete}, except that when the store denies the lock's permissions
   * (the exporter's guide grants none for it) the run warns, naming the permission, and goes on without it.
   */
  static ActionLock forDryRun(RunOptions options, String command) {
    String key = RunLock.keyFor(options.prefix().value());
    ObjectStore store = new ObjectStore(S3Clients.shared(options.s3()), options.bucket());
    try {
      return new ActionLock(key, acquire(store, options, command), null, true, store);
    } catch (RunLock.DeniedException e) {
      LOG.warn("{}. This dry run goes on without the lock", e.getMessage());
      return new ActionLock(key, null, e.getMessage(), true, store);
    }
  }

  private static RunLock acquire(ObjectStore store, RunOptions options, String command) {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown host";
    }
    // The wall clock, never an action's test clock: the lock's expiry is read by other runs.
    return RunLock.acquire(store, RunLock.keyFor(options.prefix().value()),
        "statesweep " + command + " (pid " + ProcessHandle.current().pid() + ")", host, options.lockTtl(),
        Clock.systemUTC()).renewInBackground();
  }

  /** The same lock for an action inside the one that took it: closing it releases nothing. */
  ActionLock shared() {
    return new ActionLock(key, lock, deniedBecause, false, store);
  }

  /** The requests the lock made so far (taking it, renewing it; its release comes after): by operation. */
  java.util.Map<String, Long> requestCounts() {
    return store == null ? java.util.Map.of() : store.requestCounts().snapshot();
  }

  /** Whether a run that deletes may go on under it: it is taken (not denied). */
  boolean taken() {
    return lock != null;
  }

  /** Calls {@code listener} once as soon as the lock is lost (at once if it is); never without a lock. */
  void onLost(Runnable listener) {
    requireNonNull(listener, "listener is null");
    if (lock != null) {
      lock.onLost(listener);
    }
  }

  /** Why the lock was lost, such as {@code another run took it over: <holder>}, or null. */
  String lossReason() {
    return lock == null ? null : lock.lossReason();
  }

  String key() {
    return key;
  }

  /** How the action stands with the lock now. */
  LockOutcome outcome() {
    if (lock == null) {
      return new LockOutcome(key, LockOutcome.Status.NONE, deniedBecause);
    }
    String lost = lock.lossReason();
    return lost == null ? new LockOutcome(key, LockOutcome.Status.HELD, null)
        : new LockOutcome(key, LockOutcome.Status.LOST, lost);
  }

  /** Stops renewing and releases the lock, if this action took it. */
  @Override
  public void close() {
    if (owned && lock != null) {
      lock.close();
    }
  }
}
