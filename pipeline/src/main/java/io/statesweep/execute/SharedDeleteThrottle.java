package io.statesweep.execute;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link DeleteThrottle} for the tasks of one execute attempt that run in this JVM. Each task
 * brings its share of the job's ceiling (the ceiling over the tasks that can run at once); the
 * throttle's ceiling is the share times the most tasks that ever ran here at once, which is at most
 * this JVM's task slots, so the JVMs of a job together stay under the job's ceiling.
 *
 * <p>Why not a throttle per task: a task that finishes leaves its last second of keys behind, and the
 * task that takes its slot would send a whole share on top of them (a second wave of partitions could
 * double the rate for a second); and a task that is verifying leaves its share unused, where here the
 * other tasks use it. The throttle outlives its tasks for as long as the JVM (one small object per attempt).
 */
public final class SharedDeleteThrottle {
  private static final Map<String, SharedDeleteThrottle> BY_ATTEMPT = new ConcurrentHashMap<>();

  private final double keysPerSecondPerTask;
  private final DeleteThrottle throttle;
  private int running;
  private int mostRunning;

  SharedDeleteThrottle(double keysPerSecondPerTask, DeleteThrottle.Ticker ticker) {
    this.keysPerSecondPerTask = keysPerSecondPerTask;
    this.throttle = ticker == null ? new DeleteThrottle(keysPerSecondPerTask)
        : new DeleteThrottle(keysPerSecondPerTask, ticker);
  }

  /**
   * A task of attempt {@code attemptId} starts here with its share of the ceiling (0: no ceiling);
   * close the share when the task ends.
   */
  public static Share join(String attemptId, double keysPerSecondPerTask) {
    if (keysPerSecondPerTask == 0) {
      return new Share(null, DeleteThrottle.none());
    }
    SharedDeleteThrottle shared = BY_ATTEMPT.computeIfAbsent(attemptId,
        id -> new SharedDeleteThrottle(keysPerSecondPerTask, null));
    if (shared.keysPerSecondPerTask != keysPerSecondPerTask) {
      throw new IllegalArgumentException("Attempt " + attemptId + " has a share of " + shared.keysPerSecondPerTask
          + " keys per second per task, not " + keysPerSecondPerTask);
    }
    return shared.join();
  }

  synchronized Share join() {
    running++;
    if (running > mostRunning) {
      mostRunning = running;
      throttle.raiseTo(keysPerSecondPerTask * mostRunning);
    }
    return new Share(this, throttle);
  }

  private synchronized void leave() {
    running--;
  }

  /** A running task's place in the shared throttle. */
  public static final class Share implements AutoCloseable {
    private final SharedDeleteThrottle shared;
    private final DeleteThrottle throttle;
    private boolean closed;

    private Share(SharedDeleteThrottle shared, DeleteThrottle throttle) {
      this.shared = shared;
      this.throttle = throttle;
    }

    public DeleteThrottle throttle() {
      return throttle;
    }

    /** The task ended: its keys keep counting for their second; its share stays for the next task here. */
    @Override
    public synchronized void close() {
      if (!closed && shared != null) {
        closed = true;
        shared.leave();
      }
    }
  }
}
