package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A ceiling on deleted keys per second that holds in every 1-second span, sliding, not only per
 * calendar second. A caller reserves the keys of one request ({@link #reserve}), sends it, and closes
 * the {@link Permit} once the request is answered. The keys count against the ceiling from the moment
 * they are reserved until one second after the permit is closed, so wherever between the two the
 * store counts them (the request may wait for a verification, or for a connection, after its
 * reservation), no span of a second holds more than the ceiling:
 *
 * <p>take any span and, of the requests the store counted in it, the one reserved last; when it was
 * reserved, every other one of them was either still reserved or closed less than a second before,
 * so all of them were counted then, and a reservation is granted only while the counted keys and its
 * own fit under the ceiling.
 *
 * <p>The price: a key holds its place for a second plus the time from its reservation to the answer,
 * so the sustained rate is about {@code ceiling / (1 s + that time)}: 98 % for a request answered in
 * 20 ms; a reservation taken before a 100 ms verification costs 9 %. Reserve right before sending.
 *
 * <p>Several throttles, each with its share of one ceiling, keep the sum of their keys under the sum
 * of their shares in every span (each does in each span). A ceiling of 0 means none.
 *
 * <p>A throttle may have a <b>parent</b>: each reservation then holds keys of both, its own first, so that a
 * partition's ceiling ({@link PacedLane}) and the run's ceiling both hold. The ceiling of a paced throttle moves
 * ({@link #setCeiling}); a request reserved at a size above a ceiling lowered since goes alone in its second.
 */
public final class DeleteThrottle {
  /** The span the ceiling is for. */
  public static final long SPAN_NANOS = 1_000_000_000L;
  /** The fewest keys a request should carry where the ceiling allows (each request costs a round trip). */
  static final int MIN_KEYS_PER_REQUEST = 50;
  /** The most requests a ceiling is split into per second: fine enough that several callers fill it. */
  static final int MAX_REQUESTS_PER_SPAN = 32;
  /**
   * The same for a paced throttle, a group of lanes ({@link PacedLane}): coarser, as its rate is a partition's (3,500
   * keys/s: requests of about 220 keys rather than 110), and its tasks wait their turn within the second.
   */
  static final int MAX_PACED_REQUESTS_PER_SPAN = 16;
  /** When only reservations of other threads stand in the way, how long to wait before looking again. */
  private static final long POLL_NANOS = 10_000_000L;

  /** The time source and the wait of a throttle: System.nanoTime and Object.wait, or a fake in tests. */
  interface Ticker {
    long nanoTime();

    /** Waits up to {@code nanos} on {@code monitor}, whose lock the caller holds (it is released meanwhile). */
    void await(Object monitor, long nanos) throws InterruptedException;
  }

  private static final Ticker SYSTEM = new Ticker() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void await(Object monitor, long nanos) throws InterruptedException {
      monitor.wait(Math.max(1, (nanos + 999_999) / 1_000_000));
    }
  };

  private final Ticker ticker;
  private final DeleteThrottle parent;
  /** Whether {@link #setCeiling} may lower the ceiling below a request already sized under it. */
  private final boolean paced;
  private double keysPerSecond;
  /** Closed permits of the last second: when each was closed and its keys, oldest first. */
  private final ArrayDeque<long[]> closed = new ArrayDeque<>();
  private long closedKeys;
  /** Permits reserved and not closed yet. */
  private final List<Permit> open = new ArrayList<>();
  private long openKeys;
  /** The throttle this one's reservations go to once it was handed over ({@link #handOver}); null before. */
  private DeleteThrottle successor;
  /**
   * Throttles handed over to this one whose keys still count: reserved and not closed, or closed in the last second.
   * Locks are taken in one order only, a successor's before its absorbed throttles': a handed-over throttle never
   * calls its successor while it holds its own lock.
   */
  private final List<DeleteThrottle> absorbed = new ArrayList<>();

  public DeleteThrottle(double keysPerSecond) {
    this(keysPerSecond, SYSTEM);
  }

  DeleteThrottle(double keysPerSecond, Ticker ticker) {
    this(keysPerSecond, ticker, null, false);
  }

  /** A paced throttle under {@code parent} (null for none): {@link #setCeiling} moves its ceiling either way. */
  DeleteThrottle(double keysPerSecond, Ticker ticker, DeleteThrottle parent, boolean paced) {
    this.keysPerSecond = checkedCeiling(keysPerSecond);
    this.ticker = requireNonNull(ticker, "ticker is null");
    this.parent = parent;
    this.paced = paced;
    if (paced && keysPerSecond == 0) {
      throw new IllegalArgumentException("a paced throttle needs a ceiling");
    }
  }

  Ticker ticker() {
    return ticker;
  }

  private static double checkedCeiling(double keysPerSecond) {
    if (keysPerSecond < 0 || Double.isNaN(keysPerSecond)) {
      throw new IllegalArgumentException("keysPerSecond must not be negative: " + keysPerSecond);
    }
    if (keysPerSecond > 0 && keysPerSecond < 1) {
      throw new IllegalArgumentException("keysPerSecond must be 0 (no ceiling) or at least 1, so that one key can go: "
          + keysPerSecond);
    }
    return keysPerSecond;
  }

  public static DeleteThrottle none() {
    return new DeleteThrottle(0);
  }

  /** Keys per second in any 1-second span, its parent's ceiling included where lower; 0 for no ceiling. */
  public double keysPerSecond() {
    double own;
    DeleteThrottle next;
    synchronized (this) {
      next = successor;
      own = keysPerSecond;
    }
    if (next != null) {
      // Outside this throttle's lock: the successor locks it while it counts this one's keys.
      return next.keysPerSecond();
    }
    double above = parent == null ? 0 : parent.keysPerSecond();
    return own == 0 ? above : above == 0 ? own : Math.min(own, above);
  }

  /** This throttle's own ceiling, its parent's left out; 0 for none. */
  synchronized double ownCeiling() {
    return keysPerSecond;
  }

  /**
   * Sets a paced throttle's ceiling, up or down (keys already counted stay counted: a lower ceiling holds from the
   * second after them).
   */
  synchronized void setCeiling(double newKeysPerSecond) {
    if (!paced) {
      throw new IllegalStateException("only a paced throttle's ceiling moves both ways");
    }
    if (checkedCeiling(newKeysPerSecond) == 0) {
      throw new IllegalArgumentException("a paced throttle keeps a ceiling");
    }
    keysPerSecond = newKeysPerSecond;
    notifyAll();
  }

  /**
   * Raises the ceiling (never lowers it: keys already counted were granted under the old one). For a
   * throttle shared by the tasks of one JVM, which each bring their share ({@link SharedDeleteThrottle}).
   */
  synchronized void raiseTo(double newKeysPerSecond) {
    if (keysPerSecond == 0) {
      throw new IllegalStateException("a throttle without a ceiling cannot get one");
    }
    if (checkedCeiling(newKeysPerSecond) > keysPerSecond) {
      keysPerSecond = newKeysPerSecond;
      notifyAll();
    }
  }

  /**
   * The most keys one request should carry under this ceiling: the ceiling split into at most
   * {@value #MAX_REQUESTS_PER_SPAN} requests ({@value #MAX_PACED_REQUESTS_PER_SPAN} for a paced one) of at least
   * {@value #MIN_KEYS_PER_REQUEST} keys where it
   * allows (never more than the ceiling, so that a request can always go; whole keys fill
   * {@code requests x maxBatch}, at most one key per request below the ceiling). Without a ceiling,
   * {@link Integer#MAX_VALUE}.
   */
  public int maxBatch() {
    return maxBatch(keysPerSecond(), paced);
  }

  static int maxBatch(double keysPerSecond) {
    return maxBatch(keysPerSecond, false);
  }

  /** As {@link #maxBatch()}, for a throttle of {@code keysPerSecond}, paced or not. */
  static int maxBatch(double keysPerSecond, boolean paced) {
    if (keysPerSecond == 0) {
      return Integer.MAX_VALUE;
    }
    int most = paced ? MAX_PACED_REQUESTS_PER_SPAN : MAX_REQUESTS_PER_SPAN;
    int requests = (int) Math.max(1, Math.min(most, Math.floor(keysPerSecond / MIN_KEYS_PER_REQUEST)));
    return (int) Math.max(1, Math.min(1000, Math.floor(keysPerSecond / requests)));
  }

  /**
   * Waits until {@code keys} more keys fit under the ceiling in every span, and reserves them. Send
   * them, then close the permit when the request is answered (or if it is never sent).
   *
   * @throws IllegalArgumentException for more keys than the ceiling, which could never go
   * @throws IllegalStateException when only this thread's own open permits stand in the way (it would
   *     wait forever)
   */
  public Permit reserve(int keys) {
    Permit own = reserveOwn(keys);
    if (own == null) {
      return successor().reserve(keys);
    }
    if (parent == null || !own.counted && keys == 0) {
      return own;
    }
    try {
      own.above = parent.reserve(keys);
    } catch (RuntimeException e) {
      own.closeUnsent();
      throw e;
    }
    return own;
  }

  private Permit reserveOwn(int keys) {
    if (keys < 0) {
      throw new IllegalArgumentException("keys must not be negative: " + keys);
    }
    synchronized (this) {
      if (successor != null) {
        return null;
      }
      if (keysPerSecond == 0 || keys == 0) {
        return new Permit(keys, false);
      }
      if (keys > keysPerSecond && !paced) {
        throw new IllegalArgumentException("Cannot reserve " + keys + " keys at once under a ceiling of "
            + ceilingText() + " keys per second: send at most " + maxBatch() + " keys a request");
      }
      while (true) {
        if (successor != null) {
          return null;
        }
        long now = ticker.nanoTime();
        Permit permit = tryReserve(keys, now);
        if (permit != null) {
          return permit;
        }
        long wait = nanosUntilRoom(keys, now);
        if (wait < 0 && absorbedKeys(now) > 0) {
          wait = POLL_NANOS; // keys of a throttle handed over to this one stand in the way: they age out on its clock
        }
        if (wait < 0) {
          if (open.stream().allMatch(Permit::heldByCurrentThread)) {
            throw new IllegalStateException("Cannot reserve " + keys + " keys: " + openKeys
                + " keys reserved by this thread and not sent yet fill the ceiling of " + ceilingText()
                + " keys per second; close those permits first");
          }
          wait = POLL_NANOS;
        }
        try {
          ticker.await(this, wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while throttling deletes", e);
        }
      }
    }
  }

  /** The keys, reserved now without waiting, or null when they do not fit yet (nothing is reserved then). */
  Permit tryReserve(int keys) {
    if (keys < 0) {
      throw new IllegalArgumentException("keys must not be negative: " + keys);
    }
    DeleteThrottle next = successor();
    if (next != null) {
      return next.tryReserve(keys);
    }
    Permit own = tryReserve(keys, ticker.nanoTime());
    if (own == null || parent == null || !own.counted && keys == 0) {
      return own;
    }
    own.above = parent.tryReserve(keys);
    if (own.above == null) {
      own.closeUnsent();
      return null;
    }
    return own;
  }

  /** The keys, reserved now, or null when they do not fit yet (nothing is reserved then). */
  synchronized Permit tryReserve(int keys, long now) {
    if (keysPerSecond == 0 || keys == 0) {
      return new Permit(keys, false);
    }
    forgetBefore(now);
    long counted = closedKeys + openKeys + absorbedKeys(now);
    // A paced ceiling lowered below a request sized under it: the request goes alone in its second.
    boolean alone = paced && keys > keysPerSecond && counted == 0;
    if (!alone && counted + keys > keysPerSecond + 1e-9) {
      return null;
    }
    Permit permit = new Permit(keys, true);
    open.add(permit);
    openKeys += keys;
    return permit;
  }

  /**
   * How long until {@code keys} fit once the closed permits of the last second age out, or -1 when
   * those alone do not make room (open permits must close first).
   */
  synchronized long nanosUntilRoom(int keys, long now) {
    forgetBefore(now);
    double excess = closedKeys + openKeys + absorbedKeys(now) + Math.min(keys, paced ? keysPerSecond : keys)
        - keysPerSecond;
    if (excess <= 1e-9) {
      return 0;
    }
    long freed = 0;
    for (long[] permit : closed) {
      freed += permit[1];
      if (freed >= excess - 1e-9) {
        // Counted while closedAt >= now - SPAN: gone from the first nanosecond after closedAt + SPAN.
        return Math.max(1, permit[0] + SPAN_NANOS + 1 - now);
      }
    }
    return -1;
  }

  /**
   * The keys this throttle counts now, as closed permits ({@code {closedAt, keys}}, oldest first): those closed in
   * the last second, and those reserved and not closed yet as if closed now.
   */
  synchronized List<long[]> counted(long now) {
    forgetBefore(now);
    List<long[]> counted = new ArrayList<>(closed.size() + 1);
    closed.forEach(permit -> counted.add(permit.clone()));
    long stillOpen = openKeys + absorbedKeys(now);
    if (stillOpen > 0) {
      counted.add(new long[] {now, stillOpen});
    }
    return counted;
  }

  /**
   * Hands this paced throttle over to {@code to} (a group of lanes that became part of another, {@link PacedLane}):
   * from now on its reservations are {@code to}'s, including those of windows that took this throttle before and of
   * threads waiting in it, and {@code to} counts this one's keys as its own, those reserved and not closed (a request
   * the SDK is still retrying) until a second after they close. So the partition never gets both groups' rates.
   */
  void handOver(DeleteThrottle to) {
    requireNonNull(to, "to is null");
    if (to == this) {
      throw new IllegalArgumentException("a throttle cannot be handed over to itself");
    }
    synchronized (this) {
      if (successor != null) {
        throw new IllegalStateException("handed over already");
      }
      successor = to;
      notifyAll();
    }
    synchronized (to) {
      to.absorbed.add(this);
      to.notifyAll();
    }
  }

  private synchronized DeleteThrottle successor() {
    return successor;
  }

  /** Keys still counted by the throttles handed over to this one; those with none left are let go. */
  private long absorbedKeys(long now) {
    long keys = 0;
    for (java.util.Iterator<DeleteThrottle> it = absorbed.iterator(); it.hasNext(); ) {
      long theirs = it.next().countedKeys(now);
      if (theirs == 0) {
        it.remove();
      }
      keys += theirs;
    }
    return keys;
  }

  /**
   * Counts {@code others} ({@link #counted} of another throttle) as this throttle's own too: a group of lanes that
   * takes lanes from another (a split, a merge) takes the keys they sent in the last second with them, so that the
   * partition never gets the last second's keys twice.
   */
  synchronized void countAlso(List<long[]> others) {
    if (others.isEmpty()) {
      return;
    }
    List<long[]> all = new ArrayList<>(closed.size() + others.size());
    all.addAll(closed);
    all.addAll(others);
    all.sort(java.util.Comparator.comparingLong(permit -> permit[0]));
    closed.clear();
    closedKeys = 0;
    for (long[] permit : all) {
      closed.addLast(permit.clone());
      closedKeys += permit[1];
    }
    notifyAll();
  }

  /** Keys counted now: reserved and not closed, or closed in the last second. */
  synchronized long countedKeys(long now) {
    forgetBefore(now);
    return closedKeys + openKeys + absorbedKeys(now);
  }

  private void forgetBefore(long now) {
    // A permit closed at t counts in every closed span [a, a + 1 s] that holds t: up to now - SPAN included.
    while (!closed.isEmpty() && closed.peekFirst()[0] < now - SPAN_NANOS) {
      closedKeys -= closed.pollFirst()[1];
    }
  }

  private String ceilingText() {
    return keysPerSecond == Math.rint(keysPerSecond) ? Long.toString((long) keysPerSecond)
        : String.format(java.util.Locale.ROOT, "%.2f", keysPerSecond);
  }

  private synchronized void close(Permit permit, int keysSent) {
    if (!open.remove(permit)) {
      return;
    }
    long now = ticker.nanoTime();
    openKeys -= permit.keys;
    if (keysSent > 0) {
      // Read under the lock from a monotonic clock: closing times never go back.
      closed.addLast(new long[] {now, keysSent});
      closedKeys += keysSent;
    }
    notifyAll();
  }

  /**
   * Keys reserved under the ceiling. {@link #close} once the request is answered: the keys then count
   * for one more second. {@link #closeUnsent} gives back keys that were never sent (a record refused at
   * verification): they stop counting at once.
   */
  public final class Permit implements AutoCloseable {
    private final int keys;
    private final boolean counted;
    private final Thread holder = Thread.currentThread();
    /** The same keys under the parent's ceiling, or null. */
    private Permit above;

    private Permit(int keys, boolean counted) {
      this.keys = keys;
      this.counted = counted;
    }

    public int keys() {
      return keys;
    }

    private boolean heldByCurrentThread() {
      return holder == Thread.currentThread();
    }

    /** All the reserved keys were sent, and the request is answered (or failed). Closing twice does nothing. */
    @Override
    public void close() {
      closeAfterSending(keys);
    }

    /** Only {@code sent} of the reserved keys were sent (and answered); the others were not and never will be. */
    public void closeAfterSending(int sent) {
      if (sent < 0 || sent > keys) {
        throw new IllegalArgumentException("sent must be from 0 to the " + keys + " keys reserved: " + sent);
      }
      if (counted) {
        DeleteThrottle.this.close(this, sent);
      }
      if (above != null) {
        above.closeAfterSending(sent);
      }
    }

    /** None of the reserved keys were sent. */
    public void closeUnsent() {
      closeAfterSending(0);
    }
  }
}
