package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * The throttle's keys of one window of records, reserved before the window is verified, so that a wait for
 * them never falls between a record's verification and its deletes: the window's keys, up to
 * {@value #REQUESTS_RESERVED} requests' worth ({@link DeleteThrottle#maxBatch()} each, never more than the
 * ceiling). A window is at most one request's worth plus its last record, so this covers it unless that
 * record alone is larger than a request; keys past these are reserved request by request, right before each
 * request, by the caller, who then checks again how long ago what it sends was verified.
 *
 * <p>Only the first request's worth is waited for; the others are reserved only if they fit at once. A thread
 * that waits while holding keys could wait forever: two tasks sharing one ceiling, each holding half of it and
 * waiting for more, would each wait for the other (hold and wait). Keys not reserved here are reserved by the
 * caller request by request, when it holds none of the window's.
 *
 * <p>A request takes its keys ({@link #take}), is sent, and is {@link #answered}; a permit whose keys all
 * went is closed then, so that a later reservation of the caller's own never waits on keys it holds itself.
 */
final class WindowPermits implements AutoCloseable {
  /** Requests' worth of keys reserved before a window's verification. */
  static final int REQUESTS_RESERVED = 2;

  private final List<Held> held = new ArrayList<>();
  /** The permits the last {@link #take} drew on, and how many keys from each. */
  private final List<Held> lastTaken = new ArrayList<>();
  private final List<Integer> lastTakenKeys = new ArrayList<>();

  private static final class Held {
    final DeleteThrottle.Permit permit;
    int used;
    boolean closed;

    Held(DeleteThrottle.Permit permit) {
      this.permit = permit;
    }

    int left() {
      return permit.keys() - used;
    }
  }

  private WindowPermits() {}

  /** Reserves (waiting for them) the keys of a window of {@code keys} keys, as far as they go. */
  static WindowPermits reserve(DeleteThrottle throttle, int keys) {
    requireNonNull(throttle, "throttle is null");
    if (keys < 0) {
      throw new IllegalArgumentException("keys must not be negative: " + keys);
    }
    WindowPermits permits = new WindowPermits();
    double ceiling = throttle.keysPerSecond();
    int maxBatch = throttle.maxBatch();
    long covered = ceiling == 0 ? keys
        : Math.min(keys, Math.min((long) REQUESTS_RESERVED * maxBatch, (long) Math.floor(ceiling)));
    try {
      for (long reserved = 0; reserved < covered; ) {
        int piece = (int) Math.min(covered - reserved, ceiling == 0 ? Integer.MAX_VALUE : maxBatch);
        DeleteThrottle.Permit permit = reserved == 0 ? throttle.reserve(piece) : throttle.tryReserve(piece);
        if (permit == null) {
          break; // waiting for it while holding the first could wait forever
        }
        permits.held.add(new Held(permit));
        reserved += piece;
      }
    } catch (RuntimeException e) {
      permits.close();
      throw e;
    }
    return permits;
  }

  /** Keys reserved and not taken yet. */
  int available() {
    int available = 0;
    for (Held permit : held) {
      available += permit.left();
    }
    return available;
  }

  /** Up to {@code keys} of the reserved keys for one request, at once; 0 when none are left. */
  int take(int keys) {
    lastTaken.clear();
    lastTakenKeys.clear();
    int taken = 0;
    for (Held permit : held) {
      if (taken == keys) {
        break;
      }
      int from = Math.min(keys - taken, permit.left());
      if (from > 0) {
        permit.used += from;
        taken += from;
        lastTaken.add(permit);
        lastTakenKeys.add(from);
      }
    }
    return taken;
  }

  /**
   * The request of the last {@link #take} is answered (or failed), {@code unsent} of its keys never sent: those
   * are given back, and every permit whose keys all went is closed.
   */
  void answered(int unsent) {
    for (int i = lastTaken.size() - 1; i >= 0 && unsent > 0; i--) {
      int back = Math.min(unsent, lastTakenKeys.get(i));
      lastTaken.get(i).used -= back;
      unsent -= back;
    }
    lastTaken.clear();
    lastTakenKeys.clear();
    for (Held permit : held) {
      if (!permit.closed && permit.left() == 0) {
        permit.closed = true;
        permit.permit.close();
      }
    }
  }

  /** The window is done: keys never taken stop counting at once. */
  @Override
  public void close() {
    for (Held permit : held) {
      if (!permit.closed) {
        permit.closed = true;
        permit.permit.closeAfterSending(permit.used);
      }
    }
  }
}
