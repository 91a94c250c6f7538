package io.statesweep.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.api.failures.RunLockException;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One run at a time, on a real S3-protocol server's conditional writes.
 *
 * <p>Also the lock's expiry, with a fake clock, and a renewal that hangs.
 */
@ExtendWith(S3ServerExtension.class)
class RunLockTest {
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final Duration TTL = Duration.ofMinutes(10);
  /** The margin of a lock of {@link #TTL} on each side of its expiry. */
  private static final Duration MARGIN = Duration.ofMinutes(1);
  private static final Instant T0 = Instant.parse("2026-11-29T04:00:00Z");

  private ObjectStore store;
  private final String key = RunLock.keyFor("cogram/");

  private LocalS3Server server;

  @BeforeEach
  void bucket(LocalS3Server server) {
    this.server = server;
    String bucket = "lock-" + BUCKETS.incrementAndGet();
    server.createBucket(bucket);
    store = S3ObjectStore.open(server.s3Settings(), bucket);
  }

  @Test
  void aLockWhoseCreationOrRenewalAnswerWasLostIsStillOurs() throws Exception {
    // Found with the fault-injecting proxy: the server creates the lock, the answer is cut off, the
    // SDK retries, and the retry's 412 made the run refuse itself as "another run".
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
      proxy.plan(request -> request.method().equals("PUT") && first.getAndSet(false)
          ? FaultProxy.Fault.RESET_MID_RESPONSE : null);
      ObjectStore throughProxy = S3ObjectStore.open(server.s3Settings().withEndpoint(proxy.endpoint(),
          true), store.bucket());

      try (RunLock lock = RunLock.acquire(throughProxy, key, "statesweep run (pid 1)", "host-a", TTL, at(T0))) {
        assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.RESET_MID_RESPONSE, 1L);
        assertThat(lock.holder().owner()).isEqualTo("statesweep run (pid 1)");

        // The same for a renewal: its answer cut off, the retry refused (the ETag moved on).
        first.set(true);
        assertThat(lock.renew()).isTrue();
        assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.RESET_MID_RESPONSE, 2L);
        assertThat(lock.lost()).isFalse();
        assertThat(lock.renew()).as("renewed again on the ETag it found").isTrue();
      }
      assertThat(store.read(key, 1024)).as("released").isNull();
    }
  }

  @Test
  void theLockLivesBesideThePrefixNeverInsideTheExport() {
    assertThat(RunLock.keyFor("cogram/")).isEqualTo("cogram.statesweep/lock");
    assertThat(RunLock.keyFor("exports/acme/")).isEqualTo("exports/acme.statesweep/lock");
  }

  @Test
  void aSecondRunIsRefusedWithTheHolderNamed() {
    try (RunLock first = RunLock.acquire(store, key, "statesweep run (pid 1)", "host-a", TTL, at(T0))) {
      assertThatThrownBy(() -> RunLock.acquire(store, key, "statesweep run (pid 2)", "host-b", TTL,
          at(T0.plusSeconds(60))))
          .isInstanceOf(RunLockException.Held.class)
          .hasMessage("Another statesweep run holds the lock s3://" + store.bucket() + "/cogram.statesweep/lock:"
              + " statesweep run (pid 1) on host-a since 2026-11-29T04:00:00Z (lock valid until"
              + " 2026-11-29T04:10:00Z, renewed while that run lasts). Wait for it to finish; if it died, its lock"
              + " expires at 2026-11-29T04:10:00Z and a run takes it over from 2026-11-29T04:11:00Z (60000 ms after, for"
              + " clocks that differ)");
      assertThat(first.lost()).isFalse();
    }
  }

  @Test
  void aReleasedLockIsFreeAgain() {
    RunLock.acquire(store, key, "first", "host-a", TTL, at(T0)).close();

    assertThat(store.read(key, 1024)).isNull();
    try (RunLock second = RunLock.acquire(store, key, "second", "host-b", TTL, at(T0.plusSeconds(1)))) {
      assertThat(second.holder().owner()).isEqualTo("second");
    }
  }

  @Test
  void aLockThatCannotBeDeletedAtTheEndStaysUntilItsLeaseRunsOutAndClosingThrowsNothing() {
    // As after an OutOfMemoryError: Spark stops, the client's threads are gone, and the delete cannot be sent.
    ObjectStore dying = (ObjectStore) java.lang.reflect.Proxy.newProxyInstance(ObjectStore.class.getClassLoader(),
        new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("delete")) {
            throw new IllegalStateException("Connection pool shut down");
          }
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    RunLock lock = RunLock.acquire(dying, key, "first", "host-a", TTL, at(T0));

    lock.close();

    assertThat(store.read(key, 1024)).as("still there").isNotNull();
    assertThatThrownBy(() -> RunLock.acquire(store, key, "second", "host-b", TTL, at(T0.plusSeconds(1))))
        .hasMessageContaining("first");
    try (RunLock taken = RunLock.acquire(store, key, "second", "host-b", TTL, at(T0.plus(TTL).plus(MARGIN)))) {
      assertThat(taken.holder().owner()).as("taken over once its lease and the margin ran out").isEqualTo("second");
    }
  }

  @Test
  void renewingExtendsTheLockSoItIsNotTakenOver() {
    try (RunLock first = RunLock.acquire(store, key, "first", "host-a", TTL, new StepClock(T0, Duration.ofMinutes(9)))) {
      assertThat(first.renew()).isTrue();

      // 12 minutes after the start the first expiry has passed, the renewed one has not.
      assertThatThrownBy(() -> RunLock.acquire(store, key, "second", "host-b", TTL, at(T0.plus(Duration.ofMinutes(12)))))
          .isInstanceOf(RunLockException.Held.class).hasMessageContaining("first on host-a");
    }
  }

  @Test
  void aStaleLockIsTakenOverAndItsOldHolderLearnsItLostIt() {
    RunLock dead = RunLock.acquire(store, key, "dead run", "host-a", TTL, at(T0));
    AtomicInteger told = new AtomicInteger();
    dead.onLost(told::incrementAndGet);

    try (RunLock next = RunLock.acquire(store, key, "next run", "host-b", TTL, at(T0.plus(Duration.ofMinutes(11))))) {
      assertThat(next.holder().owner()).isEqualTo("next run");
      assertThat(dead.renew()).isFalse();
      assertThat(dead.lost()).isTrue();
      assertThat(dead.lossReason()).isEqualTo("another run took it over: next run on host-b since 2026-11-29T04:11:00Z"
          + " (lock valid until 2026-11-29T04:21:00Z, renewed while that run lasts)");
      assertThat(told).as("listeners called once").hasValue(1);
      assertThat(dead.renew()).isFalse();
      assertThat(told).hasValue(1);
      dead.close(); // must not delete the new holder's lock
      assertThat(RunLock.parse(store.read(key, 1024).bytes(), store.bucket(), key, MARGIN).owner()).isEqualTo("next run");
    }
  }

  /**
   * Between the moment its holder stops counting on a lock and the moment another run may take it over lie twice
   * the margin its document states (written by the holder, so a run with a shorter ttl waits the holder's), for
   * clocks that differ and deletes already sent.
   */
  @Test
  void aStaleLockIsTakenOverOnlyTheMarginAfterItsExpiryAndItsHolderStopsTheMarginBefore() {
    assertThat(RunLock.takeoverMargin(Duration.ofSeconds(12))).isEqualTo(Duration.ofSeconds(2));
    assertThat(RunLock.takeoverMargin(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(10));
    assertThat(RunLock.takeoverMargin(Duration.ofHours(1))).as("at most a minute").isEqualTo(MARGIN);
    MovingClock clock = new MovingClock(T0);
    try (RunLock first = RunLock.acquire(store, key, "first", "host-a", TTL, clock)) {
      assertThat(new String(store.read(key, 1024).bytes(), StandardCharsets.UTF_8))
          .contains("\"expires_at\":\"2026-11-29T04:10:00Z\",\"takeover_margin\":\"PT1M\"");
      clock.set(T0.plus(TTL).minus(MARGIN).minusMillis(1));
      first.checkExpiry();
      assertThat(first.lost()).isFalse();
      clock.set(T0.plus(TTL).minus(MARGIN));
      first.checkExpiry();
      assertThat(first.lost()).as("its holder stops a minute before the expiry").isTrue();

      Duration shortTtl = Duration.ofSeconds(6);
      assertThatThrownBy(() -> RunLock.acquire(store, key, "second", "host-b", shortTtl,
          at(T0.plus(TTL).plus(MARGIN).minusMillis(1))))
          .isInstanceOf(RunLockException.Held.class)
          .hasMessageEndingWith("its lock expires at 2026-11-29T04:10:00Z and a run takes it over from"
              + " 2026-11-29T04:11:00Z (60000 ms after, for clocks that differ)");
      try (RunLock second = RunLock.acquire(store, key, "second", "host-b", shortTtl, at(T0.plus(TTL).plus(MARGIN)))) {
        assertThat(second.holder().owner()).isEqualTo("second");
        assertThat(second.holder().margin()).as("its own margin").isEqualTo(Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void aLockWhoseRenewalsFailUntilItsExpiryIsLostAndItsListenersAreCalledOnce() throws Exception {
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      ObjectStore throughProxy = withoutRetries(proxy);
      MovingClock clock = new MovingClock(T0);
      RunLock lock = RunLock.acquire(throughProxy, key, "statesweep run (pid 1)", "host-a", TTL, clock);
      AtomicInteger told = new AtomicInteger();
      lock.onLost(told::incrementAndGet);
      proxy.plan(request -> request.isPutUnder("/" + store.bucket() + "/" + key) ? FaultProxy.Fault.INTERNAL_ERROR
          : null);

      clock.set(T0.plus(Duration.ofMinutes(4)));
      lock.renewQuietly();
      clock.set(T0.plus(TTL).minus(MARGIN).minusMillis(1));
      lock.checkExpiry();
      assertThat(lock.lost()).as("failed renewals, but the lock is counted on until the margin before its expiry")
          .isFalse();
      assertThat(told).hasValue(0);

      clock.set(T0.plus(TTL).minus(MARGIN));
      lock.renewQuietly();

      assertThat(lock.lost()).isTrue();
      assertThat(lock.lossReason()).isEqualTo("it could not be renewed by 2026-11-29T04:09:00Z, 60000 ms before it"
          + " expires at 2026-11-29T04:10:00Z (Cannot write s3://" + store.bucket() + "/cogram.statesweep/lock:"
          + " InternalError (500): We encountered an internal error. Please try again.), so another run may take it"
          + " over from 2026-11-29T04:11:00Z");
      assertThat(told).hasValue(1);
      lock.checkExpiry();
      lock.renewQuietly();
      assertThat(told).as("called once").hasValue(1);
      AtomicInteger late = new AtomicInteger();
      lock.onLost(late::incrementAndGet);
      assertThat(late).as("a listener given after the loss is called at once").hasValue(1);

      proxy.heal();
      assertThat(lock.renew()).as("a lost lock stays lost").isFalse();
      lock.close();
      assertThat(store.read(key, 1024)).as("a lost lock is never deleted: it may be another run's now").isNotNull();
    }
  }

  @Test
  void theExpiryCountsFromTheLastRenewalThatSucceeded() throws Exception {
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      ObjectStore throughProxy = withoutRetries(proxy);
      MovingClock clock = new MovingClock(T0);
      try (RunLock lock = RunLock.acquire(throughProxy, key, "run", "host-a", TTL, clock)) {
        clock.set(T0.plus(Duration.ofMinutes(9)));
        assertThat(lock.renew()).isTrue();
        proxy.plan(request -> request.isPutUnder("/" + store.bucket() + "/" + key) ? FaultProxy.Fault.INTERNAL_ERROR
            : null);

        clock.set(T0.plus(Duration.ofMinutes(12)));
        lock.renewQuietly();
        clock.set(T0.plus(Duration.ofMinutes(18)).minusMillis(1));
        lock.checkExpiry();
        assertThat(lock.lost()).as("renewed until 04:19, counted on until a minute before").isFalse();

        clock.set(T0.plus(Duration.ofMinutes(18)));
        lock.checkExpiry();
        assertThat(lock.lossReason()).startsWith("it could not be renewed by 2026-11-29T04:18:00Z, 60000 ms before it"
            + " expires at 2026-11-29T04:19:00Z (");
      }
    }
  }

  /**
   * The renewer in the background, its threads on their real schedule and its decisions on a clock the test
   * moves: a renewal that hangs past the margin before the expiry still loses the lock, at that margin.
   */
  @Test
  void theRenewerLosesTheLockAtItsExpiryWhileARenewalHangs() throws Exception {
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      ObjectStore throughProxy = withoutRetries(proxy);
      CountDownLatch hanging = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      java.util.concurrent.atomic.AtomicBoolean hang = new java.util.concurrent.atomic.AtomicBoolean();
      proxy.plan(request -> {
        if (hang.get() && request.isPutUnder("/" + store.bucket() + "/" + key)) {
          hanging.countDown();
          try {
            release.await(10, java.util.concurrent.TimeUnit.MINUTES); // a renewal that hangs
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return null;
      });
      MovingClock clock = new MovingClock(T0);
      try (RunLock lock = RunLock.acquire(throughProxy, key, "run", "host-a", Duration.ofSeconds(3), clock)) {
        CountDownLatch lost = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Instant> lostAt = new java.util.concurrent.atomic.AtomicReference<>();
        lock.onLost(() -> {
          lostAt.set(clock.instant());
          lost.countDown();
        });
        hang.set(true);
        lock.renewInBackground();
        assertThat(hanging.await(1, java.util.concurrent.TimeUnit.MINUTES)).as("a renewal hangs").isTrue();

        Instant stopAt = lock.holder().expiresAt().minusMillis(500);
        clock.set(stopAt.minusMillis(1));
        assertThat(lock.lost()).as("lost before the margin before its expiry").isFalse();
        clock.set(stopAt);

        // The renewer's expiry check finds it while the renewal still hangs (a minute: only a check that never
        // runs takes that long).
        assertThat(lost.await(1, java.util.concurrent.TimeUnit.MINUTES)).as("lost").isTrue();
        assertThat(release.getCount()).as("the renewal still hangs").isOne();
        assertThat(lostAt.get()).isEqualTo(stopAt);
        assertThat(lock.lossReason()).isEqualTo("it could not be renewed by " + stopAt + ", 500 ms before it expires"
            + " at " + lock.holder().expiresAt() + ", so another run may take it over from "
            + lock.holder().expiresAt().plusMillis(500));
      } finally {
        release.countDown();
      }
    }
  }

  /**
   * Four runs start at once, ten times: exactly one holds the lock each time. (Racing for a stale lock
   * relies on PutObject If-Match being atomic, as S3 documents it; S3Proxy checks, then writes, so that
   * race is not meaningful on it: this test found that.)
   */
  @Test
  void runsStartingTogetherNeverBothHoldIt() throws Exception {
    for (int round = 0; round < 10; round++) {
      Clock later = at(T0.plus(Duration.ofMinutes(11)));
      ExecutorService pool = Executors.newFixedThreadPool(4);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<RunLock>> racers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String owner = "racer " + round + "-" + i;
        racers.add(pool.submit(() -> {
          start.await();
          try {
            return RunLock.acquire(store, key, owner, "host-b", TTL, later);
          } catch (RunLockException.Held e) {
            return null;
          }
        }));
      }
      start.countDown();
      List<RunLock> winners = new ArrayList<>();
      for (Future<RunLock> racer : racers) {
        RunLock lock = racer.get();
        if (lock != null) {
          winners.add(lock);
        }
      }
      pool.shutdown();

      assertThat(winners).as("round " + round).hasSize(1);
      assertThat(RunLock.parse(store.read(key, 1024).bytes(), store.bucket(), key, MARGIN).owner())
          .isEqualTo(winners.get(0).holder().owner());
      winners.get(0).close();
    }
  }

  @Test
  void anUnreadableLockIsNeverTakenForFree() {
    store.write(key, "not json".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> RunLock.acquire(store, key, "run", "host", TTL, at(T0)))
        .isInstanceOf(RunLockException.Held.class)
        .hasMessageStartingWith("The lock s3://" + store.bucket() + "/cogram.statesweep/lock is not a statesweep lock"
            + " document")
        .hasMessageEndingWith("if no statesweep run is active, delete it and run again");
  }

  /** The store through the proxy, one attempt per request: a failed renewal fails at once, not after backoffs. */
  private ObjectStore withoutRetries(FaultProxy proxy) {
    S3Settings settings = server.s3Settings();
    return S3ObjectStore.open(new S3Settings(proxy.endpoint(), settings.region(), true,
        settings.maxConnections(), 1, settings.apiCallTimeout(), settings.apiCallAttemptTimeout()), store.bucket());
  }

  private static Clock at(Instant instant) {
    return Clock.fixed(instant, ZoneOffset.UTC);
  }

  /** A clock that stands still until the test moves it. */
  private static final class MovingClock extends Clock {
    private volatile Instant now;

    MovingClock(Instant start) {
      this.now = start;
    }

    void set(Instant instant) {
      this.now = instant;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  /** A clock that moves {@code step} forward on every reading after the first. */
  private static final class StepClock extends Clock {
    private Instant next;
    private final Duration step;

    StepClock(Instant start, Duration step) {
      this.next = start;
      this.step = step;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public synchronized Instant instant() {
      Instant now = next;
      next = next.plus(step);
      return now;
    }
  }
}
