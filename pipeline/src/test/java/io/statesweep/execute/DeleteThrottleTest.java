package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The delete throttle on a fake clock: simulated tasks reserve, send (each request takes its time),
 * close, and sometimes stop to verify; every 1-second span of what they sent (sliding, at whatever
 * moment between reservation and answer the store counts a request) holds no more than the ceiling,
 * and the long run reaches 90 % of it.
 */
class DeleteThrottleTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;

  /** A fake clock; waiting moves it on (one thread at a time). */
  static final class FakeTicker implements DeleteThrottle.Ticker {
    long now = 5 * SECOND;

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void await(Object monitor, long nanos) {
      now += nanos;
    }
  }

  /**
   * A clock that stands still for threads that really wait: a wait counts, and gives up the throttle's
   * lock for a millisecond (another thread may close its permit meanwhile), but no time passes. What
   * goes on it goes without a second running out.
   */
  static final class StillTicker implements DeleteThrottle.Ticker {
    final long now = 5 * SECOND;
    final AtomicInteger waits = new AtomicInteger();

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void await(Object monitor, long nanos) throws InterruptedException {
      waits.incrementAndGet();
      monitor.wait(1);
    }
  }

  /** Until {@code condition} holds; fails after a minute, which only a throttle that never lets go takes. */
  static void awaitUntil(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within a minute: " + what);
      }
      Thread.sleep(1);
    }
  }

  /** One request: reserved, answered, its keys. */
  record Request(long reservedAt, long answeredAt, int keys) {
    /** Where in its life the store counts it: 0 at the reservation, 1 at the answer. */
    long at(double fraction) {
      return reservedAt + (long) ((answeredAt - reservedAt) * fraction);
    }
  }

  /**
   * Simulated tasks on one fake clock, each with its throttle: each task sends {@code keysPerTask}
   * keys in windows of {@code windowKeys}, every window after a verification of {@code verifyMillis}
   * (random up to it), each request of at most the throttle's batch taking 15 to {@code requestMillis}.
   * A task that finishes is replaced by the next of {@code tasks} (a second wave).
   */
  static final class Simulation {
    final FakeTicker clock = new FakeTicker();
    final List<Request> requests = new ArrayList<>();
    final Random random = new Random(13);
    int windowKeys = 1000;
    int verifyMillis = 0;
    int requestMillis = 60;
    /** Milliseconds between reservation and sending (a reservation taken before a verification). */
    int holdMillis = 0;

    private final class Task {
      final DeleteThrottle throttle;
      long left;
      long windowLeft;
      DeleteThrottle.Permit permit;
      long reservedAt;
      long at;

      Task(DeleteThrottle throttle, long keys, long at) {
        this.throttle = throttle;
        this.left = keys;
        this.at = at;
      }

      /** Acts at its time; false when done. */
      boolean act() {
        if (permit != null) {
          permit.close();
          requests.add(new Request(reservedAt, clock.now, permit.keys()));
          permit = null;
        }
        if (left == 0) {
          return false;
        }
        if (windowLeft == 0) {
          windowLeft = Math.min(left, windowKeys);
          if (verifyMillis > 0) {
            at = clock.now + random.nextInt(verifyMillis) * MS;
            return true;
          }
        }
        int keys = (int) Math.min(windowLeft, throttle.maxBatch());
        DeleteThrottle.Permit granted = throttle.tryReserve(keys, clock.now);
        if (granted == null) {
          long wait = throttle.nanosUntilRoom(keys, clock.now);
          at = clock.now + Math.max(wait, MS); // at least a millisecond: a throttle that says 1 ns cannot spin
          return true;
        }
        permit = granted;
        reservedAt = clock.now;
        windowLeft -= keys;
        left -= keys;
        at = clock.now + (holdMillis > 0 ? random.nextInt(holdMillis) * MS : 0) + (15 + random.nextInt(requestMillis - 14)) * MS;
        return true;
      }
    }

    /** Runs {@code tasks} tasks, {@code atOnce} at a time, each with the throttle {@code throttleOf(slot)}. */
    void run(int tasks, int atOnce, long keysPerTask, IntFunction<DeleteThrottle> throttleOf) {
      PriorityQueue<Task> queue = new PriorityQueue<>(Comparator.comparingLong(task -> task.at));
      int started = 0;
      for (; started < atOnce; started++) {
        queue.add(new Task(throttleOf.apply(started), keysPerTask, clock.now + random.nextInt(50) * MS));
      }
      // A throttle that never lets a task go would loop here for ever: a simulated hour is the limit.
      long limit = clock.now + 3_600 * SECOND;
      while (!queue.isEmpty()) {
        Task task = queue.poll();
        if (task.at > limit) {
          throw new AssertionError("the tasks did not finish in a simulated hour: " + keys() + " keys sent");
        }
        clock.now = Math.max(clock.now, task.at);
        if (task.act()) {
          queue.add(task);
        } else if (started < tasks) {
          queue.add(new Task(throttleOf.apply(started++), keysPerTask, clock.now));
        }
      }
    }

    long keys() {
      return requests.stream().mapToLong(Request::keys).sum();
    }

    /** Keys per second from the first reservation to the last answer. */
    double keysPerSecond() {
      long first = requests.stream().mapToLong(Request::reservedAt).min().orElseThrow();
      long last = requests.stream().mapToLong(Request::answeredAt).max().orElseThrow();
      return keys() * (double) SECOND / (last - first);
    }

    /** The most keys in any closed span of one second, each request counted at {@code fraction} of its life. */
    long mostKeysInAnySecond(double fraction) {
      List<long[]> events = new ArrayList<>();
      requests.forEach(request -> events.add(new long[] {request.at(fraction), request.keys()}));
      return mostKeysInAnySecond(events);
    }

    /** The most keys in any second, wherever in its life the store counts each request. */
    long mostKeysInAnySecond() {
      long most = 0;
      for (double fraction : new double[] {0, 0.5, 1}) {
        most = Math.max(most, mostKeysInAnySecond(fraction));
      }
      Random where = new Random(7);
      List<long[]> events = new ArrayList<>();
      requests.forEach(request -> events.add(new long[] {request.at(where.nextDouble()), request.keys()}));
      return Math.max(most, mostKeysInAnySecond(events));
    }

    private static long mostKeysInAnySecond(List<long[]> events) {
      events.sort(Comparator.comparingLong(event -> event[0]));
      long most = 0;
      long inSpan = 0;
      int right = 0;
      for (long[] left : events) {
        while (right < events.size() && events.get(right)[0] <= left[0] + SECOND) {
          inSpan += events.get(right++)[1];
        }
        most = Math.max(most, inSpan);
        inSpan -= left[1];
      }
      return most;
    }
  }

  @Test
  void oneTaskNeverSendsMoreThanTheCeilingInAnySecondAndSustainsNinetyPercentOfIt() {
    Simulation simulation = new Simulation();
    DeleteThrottle throttle = new DeleteThrottle(500, simulation.clock);

    simulation.run(1, 1, 100_000, slot -> throttle);

    assertThat(simulation.keys()).isEqualTo(100_000);
    assertThat(simulation.mostKeysInAnySecond()).isLessThanOrEqualTo(500);
    assertThat(simulation.keysPerSecond()).isGreaterThanOrEqualTo(0.9 * 500);
    assertThat(simulation.requests).allMatch(request -> request.keys() <= throttle.maxBatch());
  }

  @Test
  void tasksWithSharesOfOneCeilingStayUnderItTogetherAndSustainNinetyPercentOfIt() {
    Simulation simulation = new Simulation();
    List<DeleteThrottle> shares = new ArrayList<>();
    for (int task = 0; task < 16; task++) {
      shares.add(new DeleteThrottle(3500 / 16.0, simulation.clock));
    }

    simulation.run(16, 16, 62_500, shares::get);

    assertThat(simulation.keys()).isEqualTo(1_000_000);
    assertThat(simulation.mostKeysInAnySecond()).isLessThanOrEqualTo(3500);
    assertThat(simulation.keysPerSecond()).isGreaterThanOrEqualTo(0.9 * 3500);
  }

  @Test
  void tasksSharingOneThrottleInTwoWavesWithVerificationsStayUnderTheCeilingAndSustainNinetyPercentOfIt() {
    Simulation simulation = new Simulation();
    simulation.verifyMillis = 2_000;
    SharedDeleteThrottle shared = new SharedDeleteThrottle(3500 / 8.0, simulation.clock);
    List<SharedDeleteThrottle.Share> joined = new ArrayList<>();

    // 16 partitions over 8 slots: a task that ends leaves its slot to the next, which joins again.
    simulation.run(16, 8, 62_500, slot -> {
      if (slot >= 8) {
        joined.get(slot - 8).close();
      }
      SharedDeleteThrottle.Share share = shared.join();
      joined.add(share);
      return share.throttle();
    });

    assertThat(simulation.keys()).isEqualTo(1_000_000);
    assertThat(joined.get(0).throttle().keysPerSecond()).isEqualTo(3500);
    assertThat(simulation.mostKeysInAnySecond()).isLessThanOrEqualTo(3500);
    assertThat(simulation.keysPerSecond()).isGreaterThanOrEqualTo(0.9 * 3500);
  }

  @Test
  void aReservationTakenLongBeforeItsRequestStillCountsInTheSecondTheRequestGoes() {
    Simulation simulation = new Simulation();
    simulation.holdMillis = 400;
    simulation.verifyMillis = 300;
    DeleteThrottle throttle = new DeleteThrottle(1000, simulation.clock);

    simulation.run(4, 4, 10_000, slot -> throttle);

    assertThat(simulation.mostKeysInAnySecond()).isLessThanOrEqualTo(1000);
    // It costs: each key holds its place for its second and the time from reservation to answer.
    assertThat(simulation.keysPerSecond()).isGreaterThan(0.5 * 1000);
  }

  @Test
  void reserveWaitsUntilTheKeysOfTheLastSecondAgeOut() {
    FakeTicker clock = new FakeTicker();
    DeleteThrottle throttle = new DeleteThrottle(100, clock);
    long start = clock.now;

    DeleteThrottle.Permit first = throttle.reserve(50);
    DeleteThrottle.Permit second = throttle.reserve(50);
    clock.now += 20 * MS;
    first.close();
    clock.now += 10 * MS;
    second.close();
    throttle.reserve(50).close();

    // The first request was answered at +20 ms: its keys count until +1.020 s.
    assertThat(clock.now - start).isEqualTo(1_020 * MS + 1);
    assertThat(throttle.countedKeys(clock.now)).isEqualTo(100);
  }

  @Test
  void keysNeverSentStopCountingAtOnce() {
    FakeTicker clock = new FakeTicker();
    DeleteThrottle throttle = new DeleteThrottle(100, clock);

    throttle.reserve(60).closeUnsent();
    DeleteThrottle.Permit partly = throttle.reserve(100);
    partly.closeAfterSending(30);

    assertThat(throttle.countedKeys(clock.now)).isEqualTo(30);
    assertThat(throttle.tryReserve(70, clock.now)).isNotNull();
    assertThat(throttle.tryReserve(1, clock.now)).isNull();
  }

  @Test
  void aRequestLargerThanTheCeilingIsRefused() {
    DeleteThrottle throttle = new DeleteThrottle(218.75, new FakeTicker());

    assertThatThrownBy(() -> throttle.reserve(219))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot reserve 219 keys at once under a ceiling of 218.75 keys per second: send at most 54 keys"
            + " a request");
  }

  @Test
  void waitingOnlyForItsOwnOpenReservationsIsRefused() {
    DeleteThrottle throttle = new DeleteThrottle(100, new FakeTicker());
    throttle.reserve(80);

    assertThatThrownBy(() -> throttle.reserve(30))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot reserve 30 keys: 80 keys reserved by this thread and not sent yet fill the ceiling of 100"
            + " keys per second; close those permits first");
  }

  @Test
  void aThreadWaitingForAnotherThreadsReservationGoesWhenItIsGivenBack() throws Exception {
    StillTicker time = new StillTicker();
    DeleteThrottle throttle = new DeleteThrottle(100, time);
    DeleteThrottle.Permit held = throttle.reserve(100);

    CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> throttle.reserve(10).close());
    awaitUntil(() -> time.waits.get() > 0, "the other thread waits for the held keys");
    assertThat(waiting).isNotDone();
    held.closeUnsent();

    // On a clock that stands still: the keys given back stopped counting at once, not a second later.
    waiting.get(1, TimeUnit.MINUTES);
    assertThat(throttle.countedKeys(time.now)).isEqualTo(10);
  }

  @Test
  void requestsSplitTheCeilingIntoAtMost32OfAtLeast50KeysWherePossible() {
    assertThat(DeleteThrottle.maxBatch(3500)).isEqualTo(109);
    assertThat(DeleteThrottle.maxBatch(3500 / 16.0)).isEqualTo(54);
    assertThat(DeleteThrottle.maxBatch(60)).isEqualTo(60);
    assertThat(DeleteThrottle.maxBatch(3.75)).isEqualTo(3);
    assertThat(DeleteThrottle.maxBatch(1)).isEqualTo(1);
    assertThat(DeleteThrottle.maxBatch(100_000)).isEqualTo(1000);
    assertThat(DeleteThrottle.none().maxBatch()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void noCeilingNeverWaits() {
    StillTicker time = new StillTicker();
    DeleteThrottle none = new DeleteThrottle(0, time); // DeleteThrottle.none() on a clock of the test's

    for (int i = 0; i < 100; i++) {
      none.reserve(1000).close();
    }

    assertThat(time.waits).hasValue(0);
    assertThat(none.countedKeys(time.now)).isZero();
    assertThat(DeleteThrottle.none().keysPerSecond()).isZero();
  }

  @Test
  void aCeilingBelowOneKeyPerSecondIsRefused() {
    assertThatThrownBy(() -> new DeleteThrottle(0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keysPerSecond must be 0 (no ceiling) or at least 1, so that one key can go: 0.5");
    assertThatThrownBy(() -> new DeleteThrottle(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keysPerSecond must not be negative: -1.0");
  }

  @Test
  void aThrottleHandedOverSendsItsReservationsToItsSuccessorWhichCountsItsKeysUntilTheyAgeOut() {
    FakeTicker ticker = new FakeTicker();
    DeleteThrottle half = new DeleteThrottle(100, ticker, null, true);
    DeleteThrottle whole = new DeleteThrottle(150, ticker, null, true);
    DeleteThrottle.Permit retrying = half.reserve(80); // a request the SDK is still retrying
    whole.reserve(50).close();

    half.handOver(whole);
    assertThat(whole.countedKeys(ticker.now)).as("the half's open keys count in the whole").isEqualTo(130);
    assertThat(whole.tryReserve(30)).as("80 + 50 + 30 would pass 150").isNull();
    DeleteThrottle.Permit later = half.reserve(20);
    assertThat(whole.countedKeys(ticker.now)).as("a window that took the half's throttle reserves from the whole")
        .isEqualTo(150);
    later.close();

    ticker.now += 3 * SECOND;
    assertThat(whole.countedKeys(ticker.now)).as("still retrying seconds later: still counted").isEqualTo(80);
    retrying.close();
    ticker.now += SECOND;
    assertThat(whole.countedKeys(ticker.now)).as("a second after it closed").isEqualTo(80);
    ticker.now += 1;
    assertThat(whole.countedKeys(ticker.now)).isZero();
    assertThat(half.keysPerSecond()).as("the half's windows size their requests by the whole").isEqualTo(150);
    assertThatThrownBy(() -> half.handOver(whole)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aThrottleHandedOverAndItsSuccessorNeverWaitForEachOther() throws Exception {
    DeleteThrottle half = new DeleteThrottle(100, new FakeTicker(), null, true);
    DeleteThrottle whole = new DeleteThrottle(1000, half.ticker(), null, true);
    DeleteThrottle.Permit retrying = half.reserve(50);
    half.handOver(whole);
    long end = System.nanoTime() + 500_000_000L;
    // A window sizing its requests by the half's throttle, beside one reserving from the whole, which counts the half.
    Thread sizing = new Thread(() -> {
      while (System.nanoTime() < end) {
        half.maxBatch();
      }
    });
    Thread reserving = new Thread(() -> {
      while (System.nanoTime() < end) {
        DeleteThrottle.Permit permit = whole.tryReserve(1);
        if (permit != null) {
          permit.closeUnsent();
        }
      }
    });
    sizing.setDaemon(true);
    reserving.setDaemon(true);
    sizing.start();
    reserving.start();
    sizing.join(10_000);
    reserving.join(10_000);
    assertThat(sizing.isAlive() || reserving.isAlive()).as("a deadlock between the two throttles' locks").isFalse();
    retrying.close();
  }
}
