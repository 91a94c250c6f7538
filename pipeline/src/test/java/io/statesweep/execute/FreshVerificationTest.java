package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Layout;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.state.StateParser;
import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StoredObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * A record's deletes start within {@link RecordExecutor#FRESH_FOR} of its last verification (pipeline/README.md
 * "Deleting"): a record verified longer ago is verified again, the start of the deletes (where the durable intent is
 * written) counts in that time, and a window with slow records still shares its requests. Time is a fake clock that the
 * store moves on (a folder's listing takes the time a test gives it, a DeleteObjects 20 ms), but for two tests of
 * verifying threads on the system's clock: the window waits for their answers in real time. One of them waits for a
 * condition instead of a time; the other one is about times.
 *
 * <p>The cases: a record verified longer ago than a second is verified again (and measured from then); the start of its
 * deletes (a 100 ms intent write) counts in that second; a record that cannot start in time is kept after three
 * verifications; two large records of a window are each listed once; and a wait for the throttle past the window's
 * reserved keys is followed by a fresh check.
 */
class FreshVerificationTest {
  private static final Planner PLANNER = new Planner(Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram/")),
      Duration.ZERO);
  private static final StateParser PARSER = new StateParser(List.of());
  private static final Instant STATE_WRITTEN = Instant.parse("2025-01-10T03:00:00Z");
  private static final Instant BEFORE_STATE = STATE_WRITTEN.minus(Duration.ofHours(1));
  private static final Instant LATER = Instant.parse("2025-03-01T03:00:00Z");
  private static final Instant NOW = Instant.parse("2025-03-01T06:00:00Z");
  private static final Duration REQUEST = Duration.ofMillis(20);
  private static final Duration SLOW_LISTING = Duration.ofSeconds(5);

  private final FakeRecordStore bucket = new FakeRecordStore();
  private final DeleteThrottleTest.FakeTicker time = new DeleteThrottleTest.FakeTicker();
  private final TimedStore store = new TimedStore();
  private final List<List<String>> started = new CopyOnWriteArrayList<>();

  @Test
  void aRecordVerifiedMoreThanTheBoundBeforeItsDeletesIsVerifiedAgainAndMeasuredFromThen() {
    PlannedRecord document = document(1);
    PlannedRecord project = project("p1");
    store.listingTakes("cogram/projects/p1/", SLOW_LISTING);

    List<ExecutionOutcome> outcomes = execute(List.of(document, project));

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsExactly(Outcome.DELETED, Outcome.DELETED);
    // The document, verified before the project's 5-second listing, is read again after it.
    assertThat(bucket.readStates()).containsExactly(document.stateFileKey(), project.stateFileKey(),
        document.stateFileKey());
    // From the end of the last verification to the answer of the last delete: two requests of 20 ms.
    assertThat(outcomes).extracting(ExecutionOutcome::verifiedToDeleted)
        .containsOnly(REQUEST.multipliedBy(2));
    assertThat(bucket.keys()).isEmpty();
  }

  @Test
  void aFileUploadedAgainWhileAnotherRecordIsVerifiedKeepsItsRecord() {
    PlannedRecord document = document(1);
    PlannedRecord project = project("p1");
    String comesBack = document.files().get(0).key();
    store.listingTakes("cogram/projects/p1/", SLOW_LISTING,
        () -> bucket.reupload(comesBack, LATER)); // byte for byte: the same ETag

    List<ExecutionOutcome> outcomes = execute(List.of(document, project));

    assertThat(outcomes).extracting(ExecutionOutcome::outcome)
        .containsExactly(Outcome.KEPT_NEWER_FILES, Outcome.DELETED);
    assertThat(outcomes.get(0).message()).isEqualTo("the record is coming back: " + comesBack + " (" + LATER
        + ") is newer than its state file (" + STATE_WRITTEN + ")");
    assertThat(bucket.keys()).containsExactlyInAnyOrder(document.stateFileKey(), comesBack,
        document.files().get(1).key());
  }

  @Test
  void theStartOfTheDeletesCountsInTheBound() {
    PlannedRecord first = document(1);
    PlannedRecord second = document(2);
    store.listingTakes(folder(2), Duration.ofMillis(950));
    // The durable intent of a window's deletes takes 100 ms to write.
    ExecutionHook intent = new ExecutionHook() {
      @Override
      public void beforeDelete(List<String> keys) {
        started.add(keys);
        time.now += Duration.ofMillis(100).toNanos();
      }
    };

    List<ExecutionOutcome> outcomes = execute(List.of(first, second), intent, DeleteThrottle.none());

    // 950 ms after its verification the first record was fresh, but not 100 ms later, when its deletes would
    // have started: it is verified again, and goes once more through the start.
    assertThat(started).containsExactly(keysOf(first, second), keysOf(first));
    assertThat(bucket.readStates()).containsExactly(first.stateFileKey(), second.stateFileKey(),
        first.stateFileKey());
    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsExactly(Outcome.DELETED, Outcome.DELETED);
    assertThat(outcomes).extracting(ExecutionOutcome::verifiedToDeleted)
        .containsOnly(Duration.ofMillis(100).plus(REQUEST.multipliedBy(2)));
  }

  @Test
  void aRecordWhoseDeletesCannotStartInTimeIsKeptAfterThreeVerifications() {
    PlannedRecord document = document(1);
    ExecutionHook slowIntent = new ExecutionHook() {
      @Override
      public void beforeDelete(List<String> keys) {
        started.add(keys);
        time.now += Duration.ofMillis(1500).toNanos();
      }
    };

    ExecutionOutcome outcome = execute(List.of(document), slowIntent, DeleteThrottle.none()).get(0);

    String message = "its deletes could not start within 1000 ms of its verification, 3 times (a slow start of"
        + " its deletes, or waits for --max-deletes-per-second): nothing is deleted; the state file stays";
    assertThat(outcome.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(outcome.message()).isEqualTo(message);
    assertThat(outcome.failures()).containsExactly(
        new KeyFailure(document.stateFileKey(), "VerifiedTooLongAgo", message));
    assertThat(outcome.keysDeleted()).isZero();
    assertThat(bucket.readStates()).hasSize(3);
    assertThat(started).hasSize(3);
    assertThat(bucket.deleteRequests()).isEmpty();
  }

  @Test
  void waitingForAnotherRecordsDeletesIsNoLateStart() {
    PlannedRecord document = document(1);
    PlannedRecord project = project("p1");
    store.listingTakes("cogram/projects/p1/", SLOW_LISTING);
    String documentFile = document.files().get(0).key();
    // The intent of the document's deletes is slow twice, then not.
    ExecutionHook slowTwice = new ExecutionHook() {
      @Override
      public void beforeDelete(List<String> keys) {
        started.add(keys);
        if (keys.contains(documentFile) && started.stream().filter(call -> call.contains(documentFile)).count() <= 2) {
          time.now += Duration.ofMillis(1500).toNanos();
        }
      }
    };

    List<ExecutionOutcome> outcomes = execute(List.of(document, project), slowTwice, DeleteThrottle.none());

    // Stale once waiting for the project, late twice at its own start: verified four times, then deleted.
    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsExactly(Outcome.DELETED, Outcome.DELETED);
    assertThat(bucket.readStates()).filteredOn(document.stateFileKey()::equals).hasSize(4);
    assertThat(started).containsExactly(keysOf(project), keysOf(document), keysOf(document), keysOf(document));
  }

  @Test
  void twoLargeRecordsOfAWindowGoEachAfterItsOwnListingAndAreListedOnce() {
    PlannedRecord first = project("p1");
    PlannedRecord second = project("p2");
    store.listingTakes("cogram/projects/p1/", SLOW_LISTING);
    store.listingTakes("cogram/projects/p2/", SLOW_LISTING);

    List<ExecutionOutcome> outcomes = execute(List.of(first, second));

    // One at a time, the first goes before the second is verified: waiting for it would make the first
    // stale, and verifying that again would take as long again.
    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsExactly(Outcome.DELETED, Outcome.DELETED);
    assertThat(bucket.listedFolders()).containsExactly("cogram/projects/p1/", "cogram/projects/p2/");
    assertThat(outcomes).extracting(ExecutionOutcome::verifiedToDeleted).containsOnly(REQUEST.multipliedBy(2));
    assertThat(bucket.deleteRequestKeys()).containsExactly(List.of("cogram/projects/p1/brief.pdf"),
        List.of(first.stateFileKey()), List.of("cogram/projects/p2/brief.pdf"), List.of(second.stateFileKey()));
  }

  @Test
  void smallRecordsVerifiedTogetherShareTheirRequests() {
    List<PlannedRecord> window = new ArrayList<>();
    for (int record = 0; record < 30; record++) {
      window.add(document(record));
    }
    store.listingTakes(folder(29), Duration.ofMillis(300));

    List<ExecutionOutcome> outcomes = execute(window);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    assertThat(bucket.deleteRequests()).extracting(List::size).containsExactly(60, 30);
    assertThat(bucket.readStates()).hasSize(30);
  }

  @Test
  void smallRecordsGoWhileAProjectOfTheirWindowIsStillListed() {
    PlannedRecord project = project("p1");
    List<PlannedRecord> documents = List.of(document(1), document(2), document(3));
    List<PlannedRecord> window = new ArrayList<>();
    window.add(project);
    window.addAll(documents);
    // The project's listing ends only once the documents' deletes have started: a wait of theirs for it would
    // never end (2 minutes at most, then the listing ends and the order below is wrong).
    List<String> documentKeys = keysOf(documents.toArray(PlannedRecord[]::new));
    store.listingWaitsFor("cogram/projects/p1/", () -> started.contains(documentKeys));

    List<ExecutionOutcome> outcomes = executeOnTheSystemsClock(window, 4);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    // The documents gathered 300 ms while the project was listed, then went together, before it was done.
    assertThat(started).containsExactly(keysOf(documents.toArray(PlannedRecord[]::new)), keysOf(project));
    assertThat(bucket.deleteRequestKeys()).containsExactly(keysOf(documents.toArray(PlannedRecord[]::new)),
        documents.stream().map(PlannedRecord::stateFileKey).toList(), keysOf(project),
        List.of(project.stateFileKey()));
    for (int record = 1; record < 4; record++) {
      assertThat(outcomes.get(record).verifiedToDeleted()).isLessThan(RecordExecutor.FRESH_FOR);
    }
    assertThat(bucket.readStates()).hasSize(4);
  }

  /**
   * On the system's clock, as the verifying threads are: the second wave ends 650 ms after the first, 350 ms
   * short of the bound and of twice the first, and 350 ms after the first wave's records have gathered, so
   * that a machine that runs the waves late by less than that sees what a fast one does.
   */
  @Test
  void aBusyMachinesSecondWaveOfVerificationsIsWaitedFor() {
    // Two verifying threads, four records: the first two take 500 ms, the next two (queued behind them) 650 ms.
    List<PlannedRecord> window = List.of(document(1), document(2), document(3), document(4));
    store.listingSleeps(folder(1), Duration.ofMillis(500));
    store.listingSleeps(folder(2), Duration.ofMillis(500));
    store.listingSleeps(folder(3), Duration.ofMillis(650));
    store.listingSleeps(folder(4), Duration.ofMillis(650));

    List<ExecutionOutcome> outcomes = executeOnTheSystemsClock(window, 2);

    // The second wave ends 650 ms after the first, within the bound and no longer than twice the first took:
    // one group, one request of files, none verified twice.
    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    assertThat(started).containsExactly(keysOf(window.toArray(PlannedRecord[]::new)));
    assertThat(bucket.readStates()).hasSize(4);
  }

  @Test
  void aWaitForTheThrottlePastTheWindowsKeysIsFollowedByAFreshCheck() {
    // 100 keys a second: requests of 50, the window's first 100 keys reserved before it is verified.
    DeleteThrottle throttle = new DeleteThrottle(100, time);
    List<StoredObject> files = new ArrayList<>();
    StoredObject bigState = bucket.put(folder(0) + "state.json", STATE_WRITTEN);
    for (int i = 0; i < 150; i++) {
      files.add(bucket.put(folder(0) + String.format("part-%03d", i), BEFORE_STATE));
    }
    PlannedRecord big = due(bigState, files);
    PlannedRecord small = document(1);

    List<ExecutionOutcome> outcomes = execute(List.of(big, small), ExecutionHook.NONE, throttle);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsExactly(Outcome.DELETED, Outcome.DELETED);
    // The third request waited a second for the throttle: the small record, whose keys came after it, was
    // verified again before any of them went.
    assertThat(bucket.readStates()).containsExactly(big.stateFileKey(), small.stateFileKey(), small.stateFileKey());
    assertThat(outcomes.get(1).verifiedToDeleted()).isLessThanOrEqualTo(RecordExecutor.FRESH_FOR);
    assertThat(bucket.deleteRequests()).extracting(List::size).allMatch(size -> size <= 50);
    assertThat(bucket.requestIndexOf(small.files().get(0).key())).isGreaterThan(bucket.requestIndexOf(
        big.stateFileKey()));
    assertThat(bucket.keys()).isEmpty();
  }

  @Test
  void aWindowOneRecordPastARequestUnderTheCeilingWaitsBeforeItsVerification() {
    // 3,500 keys a second: requests of at most 109 keys. A window of ten records of 11 keys is 110.
    DeleteThrottle throttle = new DeleteThrottle(3500, time);
    throttle.reserve(3500).close(); // another task's keys of the last second
    long reserved = time.now;
    List<PlannedRecord> window = new ArrayList<>();
    for (int record = 0; record < 10; record++) {
      List<StoredObject> files = new ArrayList<>();
      StoredObject state = bucket.put(folder(record) + "state.json", STATE_WRITTEN);
      for (int i = 0; i < 10; i++) {
        files.add(bucket.put(folder(record) + "f" + i + ".pdf", BEFORE_STATE));
      }
      window.add(due(state, files));
    }
    List<Long> readAt = new CopyOnWriteArrayList<>();
    store.onRead(() -> readAt.add(time.now));

    List<ExecutionOutcome> outcomes = execute(window, ExecutionHook.NONE, throttle);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    // The wait for the throttle fell before the first verification, not between a verification and its deletes.
    assertThat(readAt.get(0) - reserved).isGreaterThan(DeleteThrottle.SPAN_NANOS);
    assertThat(outcomes).extracting(ExecutionOutcome::verifiedToDeleted).containsOnly(REQUEST.multipliedBy(2));
    assertThat(bucket.deleteRequests()).extracting(List::size).containsExactly(100, 10);
  }

  // Building records and the executor.

  private List<ExecutionOutcome> execute(List<PlannedRecord> window) {
    return execute(window, new ExecutionHook() {
      @Override
      public void beforeDelete(List<String> keys) {
        started.add(keys);
      }
    }, DeleteThrottle.none());
  }

  /** {@code verifyThreads} verifying at once, on the system's clock; the starts of the deletes are recorded. */
  private List<ExecutionOutcome> executeOnTheSystemsClock(List<PlannedRecord> window, int verifyThreads) {
    ExecutionHook hook = new ExecutionHook() {
      @Override
      public void beforeDelete(List<String> keys) {
        started.add(keys);
      }
    };
    try (RecordExecutor executor = new RecordExecutor(store, PLANNER, PARSER, 1000, ConditionalDeletes.ON,
        DeleteThrottle.none(), hook, Clock.fixed(NOW, ZoneOffset.UTC), verifyThreads)) {
      return executor.execute(window);
    }
  }

  /** One record verified at a time: the order of the fake clock is the order of the calls. */
  private List<ExecutionOutcome> execute(List<PlannedRecord> window, ExecutionHook hook, DeleteThrottle throttle) {
    try (RecordExecutor executor = new RecordExecutor(store, PLANNER, PARSER, 1000, ConditionalDeletes.ON, throttle,
        hook, Clock.fixed(NOW, ZoneOffset.UTC), 1, DeleteJournal.NONE, time::nanoTime)) {
      return executor.execute(window);
    }
  }

  private static String folder(int record) {
    return "cogram/unassigned_project/documents/d" + String.format("%04d", record) + "/";
  }

  /** A due document record of two files. */
  private PlannedRecord document(int record) {
    String folder = folder(record);
    StoredObject state = bucket.put(folder + "state.json", STATE_WRITTEN);
    return due(state, List.of(bucket.put(folder + "a.pdf", BEFORE_STATE), bucket.put(folder + "b.pdf", BEFORE_STATE)));
  }

  /** A due project record with one file of its own. */
  private PlannedRecord project(String project) {
    String folder = "cogram/projects/" + project + "/";
    StoredObject state = bucket.put(folder + "state.json", STATE_WRITTEN);
    return due(state, List.of(bucket.put(folder + "brief.pdf", BEFORE_STATE)));
  }

  private PlannedRecord due(StoredObject state, List<StoredObject> files) {
    List<PlannedDelete> deletes = new ArrayList<>();
    files.forEach(file -> deletes.add(new PlannedDelete(file, DeleteRole.FILE)));
    deletes.add(new PlannedDelete(state, DeleteRole.STATE_FILE));
    bucket.describe(state, RecordExecutorTest.dueDocument(files.stream().map(StoredObject::key).toList()));
    return new PlannedRecord(Action.DELETE_RECORD, state, deletes);
  }

  private static List<String> keysOf(PlannedRecord... records) {
    List<String> keys = new ArrayList<>();
    for (PlannedRecord record : records) {
      record.files().forEach(file -> keys.add(file.key()));
    }
    return keys;
  }

  /**
   * The fake bucket on the fake clock: listing a folder takes the time a test gives it (and something may
   * happen meanwhile), a DeleteObjects request 20 ms, everything else no time. It answers no pages: each record
   * lists on its own, in the time the test gives its folder (SharedListingTest times shared listings).
   */
  private final class TimedStore extends ForwardingRecordStore {
    private final Map<String, Duration> listings = new HashMap<>();
    private final Map<String, Runnable> meanwhile = new HashMap<>();
    private final Map<String, Duration> sleeps = new HashMap<>();
    private final Map<String, BooleanSupplier> waits = new HashMap<>();
    private Runnable onRead = () -> {};

    TimedStore() {
      super(bucket);
    }

    void listingTakes(String folder, Duration duration) {
      listingTakes(folder, duration, () -> {});
    }

    void listingTakes(String folder, Duration duration, Runnable during) {
      listings.put(folder, duration);
      meanwhile.put(folder, during);
    }

    /** Listing {@code folder} takes {@code duration} of real time. */
    void listingSleeps(String folder, Duration duration) {
      sleeps.put(folder, duration);
    }

    /** Listing {@code folder} ends once {@code condition} holds (2 minutes of real time at most). */
    void listingWaitsFor(String folder, BooleanSupplier condition) {
      waits.put(folder, condition);
    }

    void onRead(Runnable action) {
      onRead = action;
    }

    @Override
    public ConditionalRead readState(String key, String etag) {
      onRead.run();
      return bucket.readState(key, etag);
    }

    @Override
    public ListingPage listPage(String prefix, String startAfter, String token) {
      return null;
    }

    @Override
    public Iterator<StoredObject> list(String prefix, String startAfter) {
      try {
        Thread.sleep(sleeps.getOrDefault(prefix, Duration.ZERO).toMillis());
        BooleanSupplier condition = waits.getOrDefault(prefix, () -> true);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      Duration takes = listings.getOrDefault(prefix, Duration.ZERO);
      time.now += takes.toNanos();
      meanwhile.getOrDefault(prefix, () -> {}).run();
      return bucket.list(prefix, startAfter);
    }

    @Override
    public DeleteResult delete(List<DeleteTarget> targets) {
      time.now += REQUEST.toNanos();
      return bucket.delete(targets);
    }
  }
}
