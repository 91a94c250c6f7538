package io.statesweep.execute;

/**
 * A ceiling on deleted keys per second: callers ask for permits before each request and wait until
 * the rate allows it. A ceiling of 0 means none.
 */
public final class DeleteThrottle {
  private final double keysPerSecond;
  private long nextFreeNanos = System.nanoTime();

  public DeleteThrottle(double keysPerSecond) {
    if (keysPerSecond < 0) {
      throw new IllegalArgumentException("keysPerSecond must not be negative: " + keysPerSecond);
    }
    this.keysPerSecond = keysPerSecond;
  }

  public static DeleteThrottle none() {
    return new DeleteThrottle(0);
  }

  /** Waits until {@code keys} more deletes fit under the ceiling. */
  public void acquire(int keys) {
    if (keysPerSecond == 0 || keys <= 0) {
      return;
    }
    long waitNanos;
    synchronized (this) {
      long now = System.nanoTime();
      long start = Math.max(now, nextFreeNanos);
      nextFreeNanos = start + (long) (keys * 1e9 / keysPerSecond);
      waitNanos = start - now;
    }
    if (waitNanos > 0) {
      try {
        Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while throttling deletes", e);
      }
    }
  }
}
