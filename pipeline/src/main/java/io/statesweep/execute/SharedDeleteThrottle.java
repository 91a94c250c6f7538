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
  private final PacedLane.Pacing pacing;
  /**
   * The lanes of the attempt's deletes in this JVM (pipeline/README.md, "Deleting at the bucket's speed"): paced, or,
   * where deletes are not, only counting their SlowDowns.
   */
  private final PacedLane.Pacer pacer;
  private int running;
  private int mostRunning;

  SharedDeleteThrottle(double keysPerSecondPerTask, DeleteThrottle.Ticker ticker) {
    this(keysPerSecondPerTask, ticker, null);
  }

  SharedDeleteThrottle(double keysPerSecondPerTask, DeleteThrottle.Ticker ticker, PacedLane.Pacing pacing) {
    this.keysPerSecondPerTask = keysPerSecondPerTask;
    this.throttle = ticker == null ? new DeleteThrottle(keysPerSecondPerTask)
        : new DeleteThrottle(keysPerSecondPerTask, ticker);
    this.pacing = pacing;
    this.pacer = new PacedLane.Pacer(pacing, throttle);
  }

  /**
   * A task of attempt {@code attemptId} starts here with its share of the ceiling (0: no ceiling);
   * close the share when the task ends.
   */
  public static Share join(String attemptId, double keysPerSecondPerTask) {
    return join(attemptId, keysPerSecondPerTask, null);
  }

  /**
   * A task of attempt {@code attemptId} starts here with its share of the run's ceiling (0: none), its deletes paced
   * per lane by {@code pacing} (null: not paced; the lanes only count SlowDowns).
   */
  public static Share join(String attemptId, double keysPerSecondPerTask, PacedLane.Pacing pacing) {
    SharedDeleteThrottle shared = BY_ATTEMPT.computeIfAbsent(attemptId,
        id -> new SharedDeleteThrottle(keysPerSecondPerTask, null, pacing));
    if (shared.keysPerSecondPerTask != keysPerSecondPerTask || !java.util.Objects.equals(shared.pacing, pacing)) {
      throw new IllegalArgumentException("Attempt " + attemptId + " has a share of " + shared.keysPerSecondPerTask
          + " keys per second per task and pacing " + shared.pacing + ", not " + keysPerSecondPerTask + " and "
          + pacing);
    }
    return shared.join();
  }

  synchronized Share join() {
    running++;
    if (running > mostRunning && keysPerSecondPerTask > 0) {
      mostRunning = running;
      throttle.raiseTo(keysPerSecondPerTask * mostRunning);
    }
    return new Share(this, throttle);
  }

  PacedLane lane(String name) {
    return pacer.lane(name);
  }

  private Iterable<PacedLane> lanes() {
    return pacer.lanes();
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
      this.shared = java.util.Objects.requireNonNull(shared, "shared is null");
      this.throttle = throttle;
    }

    public DeleteThrottle throttle() {
      return throttle;
    }

    /** The lane of the folder {@code name} ({@link PacedLane#of}), shared by the attempt's tasks in this JVM. */
    public PacedLane lane(String name) {
      return shared.lane(name);
    }

    /**
     * The SlowDowns each lane got since the last call, by lane, those with none left out: a task adds them to the
     * run's metrics when it ends (each count is taken once, by whichever task of this JVM asks first).
     */
    public Map<String, Long> takeSlowDowns() {
      Map<String, Long> taken = new java.util.TreeMap<>();
      shared.lanes().forEach(lane -> {
        long count = lane.takeSlowDowns();
        if (count > 0) {
          taken.put(lane.name(), count);
        }
      });
      return taken;
    }

    /** The task ended: its keys keep counting for their second; its share stays for the next task here. */
    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        shared.leave();
      }
    }
  }
}
