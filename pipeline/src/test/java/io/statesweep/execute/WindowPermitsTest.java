package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A window's keys reserved before its verification: never a wait while holding keys, which two tasks sharing
 * one ceiling would turn into waiting for each other forever.
 */
class WindowPermitsTest {
  /** Two tasks, each on a thread of its own (the common pool may have one thread). */
  private final ExecutorService tasks = Executors.newSingleThreadExecutor();
  private final ExecutorService otherTasks = Executors.newSingleThreadExecutor();

  @org.junit.jupiter.api.AfterEach
  void stopTasks() {
    tasks.shutdownNow();
    otherTasks.shutdownNow();
  }

  @Test
  void aWindowThatFindsHalfTheCeilingTakenReservesOneRequestAndDoesNotWaitForTheSecond() throws Exception {
    DeleteThrottleTest.StillTicker time = new DeleteThrottleTest.StillTicker();
    DeleteThrottle throttle = new DeleteThrottle(120, time); // requests of 60 keys: a window reserves two
    assertThat(throttle.maxBatch()).isEqualTo(60);
    // Another task's window holds its first request's keys and, like this one, would wait for its second.
    DeleteThrottle.Permit otherTasksFirst = CompletableFuture.supplyAsync(() -> throttle.reserve(60), otherTasks).get();

    // A wait that would never end would fail this after a minute; the window does not wait at all.
    WindowPermits window = CompletableFuture.supplyAsync(() -> WindowPermits.reserve(throttle, 300), tasks)
        .get(1, TimeUnit.MINUTES);

    assertThat(window.available()).isEqualTo(60);
    assertThat(time.waits).hasValue(0);
    // The other task's next reservation is not held up by a wait of this one: it goes once this window's keys
    // go, on a clock that stands still.
    CompletableFuture<DeleteThrottle.Permit> othersNext =
        CompletableFuture.supplyAsync(() -> throttle.reserve(60), otherTasks);
    assertThat(window.take(60)).isEqualTo(60);
    window.answered(60); // nothing sent: its keys stop counting at once
    window.close();
    assertThat(othersNext.get(1, TimeUnit.MINUTES).keys()).isEqualTo(60);
    otherTasksFirst.closeUnsent();
  }

  @Test
  void aWindowOnAnIdleThrottleReservesTwoRequestsWorth() {
    DeleteThrottleTest.StillTicker time = new DeleteThrottleTest.StillTicker();
    DeleteThrottle throttle = new DeleteThrottle(120, time);
    try (WindowPermits window = WindowPermits.reserve(throttle, 300)) {
      assertThat(window.available()).isEqualTo(120);
    }
    assertThat(throttle.countedKeys(time.now)).isZero();
  }

  /** On a clock that stands still: nothing goes by time passing, so only a wait for each other could hang. */
  @Test
  void twoTasksSharingOneCeilingReservingWindowAfterWindowNeverWaitForEachOther() throws Exception {
    DeleteThrottle throttle = new DeleteThrottle(120, new DeleteThrottleTest.StillTicker());
    Runnable windows = () -> {
      for (int window = 0; window < 2_000; window++) {
        try (WindowPermits permits = WindowPermits.reserve(throttle, 300)) {
          assertThat(permits.available()).isPositive();
        } // nothing sent: the keys stop counting at once
      }
    };
    CompletableFuture<Void> one = CompletableFuture.runAsync(windows, tasks);
    CompletableFuture<Void> other = CompletableFuture.runAsync(windows, otherTasks);
    CompletableFuture.allOf(one, other).get(10, TimeUnit.MINUTES);
  }
}
