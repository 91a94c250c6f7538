package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Layout;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.state.StateParser;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StoredObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Records of a window side by side in one parent folder are verified by one listing of it (pipeline/README.md
 * "Deleting"): the same decisions as with a listing each, fewer ListObjectsV2, never more than one request beyond a
 * listing each, and their keys count as seen when that listing began.
 *
 * <p>The cases, with single-file and folder records: records side by side in one folder are verified by one listing; one
 * that comes back in it is kept while the others go; a walk over other records' keys stops one page past a listing
 * each, and the rest list on their own; a store without pages lists each record; and a walk that took longer than a
 * second has its records verified again, each on its own (their keys count as seen from the walk's start).
 */
class SharedListingTest {
  private static final KeyClassifier CLASSIFIER = Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram/"));
  private static final Planner PLANNER = new Planner(CLASSIFIER, Duration.ZERO);
  private static final StateParser PARSER = new StateParser(List.of());
  private static final Instant STATE_WRITTEN = Instant.parse("2025-01-10T03:00:00Z");
  private static final Instant BEFORE_STATE = STATE_WRITTEN.minus(Duration.ofHours(1));
  private static final Instant LATER = Instant.parse("2025-03-01T03:00:00Z");
  private static final Instant NOW = Instant.parse("2025-03-01T06:00:00Z");
  private static final String AGENTS = "cogram/organization/agents/";
  private static final String MEETINGS = "cogram/projects/p1/meetings/";

  private final FakeRecordStore store = new FakeRecordStore();

  private RecordExecutor executor(RecordStore records, LongSupplier nanoTime) {
    return new RecordExecutor(records, PLANNER, PARSER, 1000, ConditionalDeletes.ON, DeleteThrottle.none(),
        ExecutionHook.NONE, Clock.fixed(NOW, ZoneOffset.UTC), 1, DeleteJournal.NONE, nanoTime);
  }

  /** A due single-file record {@code agents/<id>.json} with its state file; its plan. */
  private PlannedRecord dueAgent(String id) {
    StoredObject file = store.put(AGENTS + id + ".json", BEFORE_STATE);
    StoredObject state = store.put(AGENTS + id + ".state.json", STATE_WRITTEN);
    return planned(state, List.of(file));
  }

  /** A due meeting folder {@code meetings/<id>/} of two files, nested in a project that is not in the window. */
  private PlannedRecord dueMeeting(String id) {
    String folder = MEETINGS + id + "/";
    List<StoredObject> files = List.of(store.put(folder + "audio.m4a", BEFORE_STATE),
        store.put(folder + "minutes.pdf", BEFORE_STATE));
    return planned(store.put(folder + "state.json", STATE_WRITTEN), files);
  }

  private PlannedRecord planned(StoredObject state, List<StoredObject> files) {
    List<PlannedDelete> deletes = new ArrayList<>();
    files.forEach(file -> deletes.add(new PlannedDelete(file, DeleteRole.FILE)));
    deletes.add(new PlannedDelete(state, DeleteRole.STATE_FILE));
    store.describe(state, RecordExecutorTest.dueDocument(files.stream().map(StoredObject::key).toList()));
    return new PlannedRecord(Action.DELETE_RECORD, state, deletes);
  }

  @Test
  void singleFileRecordsSideBySideAreVerifiedByOneListing() {
    List<PlannedRecord> window = List.of(dueAgent("a1"), dueAgent("a2"), dueAgent("a3"), dueAgent("a4"));
    StoredObject other = store.put(AGENTS + "a9.json", BEFORE_STATE); // a record not in the window

    List<ExecutionOutcome> outcomes = executor(store, () -> 0L).execute(window);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    assertThat(store.pagedListings()).containsExactly(AGENTS + " after " + AGENTS + "a1");
    assertThat(store.listedFolders()).as("listings of their own").isEmpty();
    assertThat(store.listRequests()).as("ListObjectsV2 for 4 records").isEqualTo(1);
    assertThat(store.keys()).containsExactly(other.key());
  }

  @Test
  void folderRecordsSideBySideAreVerifiedByOneListingAndOneComingBackIsKept() {
    List<PlannedRecord> window = List.of(dueMeeting("m1"), dueMeeting("m2"), dueMeeting("m3"));
    // m2 comes back after its plan: a file newer than its state file, which the shared listing shows.
    store.rewrite(MEETINGS + "m2/minutes.pdf", LATER);

    List<ExecutionOutcome> outcomes = executor(store, () -> 0L).execute(window);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome)
        .containsExactly(Outcome.DELETED, Outcome.KEPT_NEWER_FILES, Outcome.DELETED);
    assertThat(outcomes.get(1).message()).isEqualTo("the record is coming back: " + MEETINGS + "m2/minutes.pdf ("
        + LATER + ") is newer than its state file (" + STATE_WRITTEN + ")");
    assertThat(store.listRequests()).as("ListObjectsV2 for 3 records").isEqualTo(1);
    assertThat(store.keys()).containsExactly(MEETINGS + "m2/audio.m4a", MEETINGS + "m2/minutes.pdf",
        MEETINGS + "m2/state.json");
  }

  @Test
  void aListingOverOtherRecordsKeysStopsAndTheRestListOnTheirOwn() {
    // Two due agents far apart: 30 other records' keys between them, pages of 4 keys.
    PlannedRecord first = dueAgent("a1");
    for (int i = 0; i < 30; i++) {
      store.put(AGENTS + "b" + (100 + i) + ".json", BEFORE_STATE);
    }
    PlannedRecord last = dueAgent("c1");
    store.pageSize(4);

    List<ExecutionOutcome> outcomes = executor(store, () -> 0L).execute(List.of(first, last));

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    // The first page covers a1; the second is past what one record served: c1 lists on its own.
    assertThat(store.listedFolders()).containsExactly(AGENTS + "c1.");
    assertThat(store.listRequests()).as("at most one request more than a listing each").isEqualTo(3);
  }

  @Test
  void recordsVerifiedAgainListOnTheirOwnAndTheirKeysCountAsSeenWhenTheSharedListingBegan() {
    // Every page takes 600 ms: the shared listing of the window's two records (two pages of 3 keys) takes 1.2 s,
    // longer than the bound, so neither may go on it, though a2's keys came on the page that ended the listing.
    // Each is verified again, listing on its own, and goes.
    AtomicLong now = new AtomicLong();
    RecordStore slowPages = new SlowPages(store, now, Duration.ofMillis(600));
    List<PlannedRecord> window = List.of(dueAgent("a1"), dueAgent("a2"));
    store.pageSize(3);

    List<ExecutionOutcome> outcomes = executor(slowPages, now::get).execute(window);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    assertThat(store.pagedListings()).hasSize(1);
    assertThat(store.listedFolders()).containsExactly(AGENTS + "a1.", AGENTS + "a2.");
    assertThat(store.readStates()).containsExactly(AGENTS + "a1.state.json", AGENTS + "a2.state.json",
        AGENTS + "a1.state.json", AGENTS + "a2.state.json");
    assertThat(outcomes).allSatisfy(outcome ->
        assertThat(outcome.verifiedToDeleted()).isLessThanOrEqualTo(RecordExecutor.FRESH_FOR));
  }

  @Test
  void aStoreWithoutPagesListsEachRecordOnItsOwn() {
    store.answerPages(false);
    List<PlannedRecord> window = List.of(dueAgent("a1"), dueAgent("a2"));

    List<ExecutionOutcome> outcomes = executor(store, () -> 0L).execute(window);

    assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
    assertThat(store.listedFolders()).containsExactly(AGENTS + "a1.", AGENTS + "a2.");
  }

  @Test
  void keysAreComparedInUtf8OrderAsS3ListsThem() {
    // U+FF5E sorts before U+1F600 in UTF-8 (and code points), after it in UTF-16 units.
    String bmp = "a/\uFF5E";
    String supplementary = "a/\uD83D\uDE00";
    assertThat(bmp.compareTo(supplementary)).isPositive();
    assertThat(io.statesweep.layout.Keys.UTF8_ORDER.compare(bmp, supplementary)).isNegative();
    assertThat(io.statesweep.layout.Keys.UTF8_ORDER.compare("a/b", "a/b/")).isNegative();
    assertThat(io.statesweep.layout.Keys.UTF8_ORDER.compare("a/b", "a/b")).isZero();
  }

  @Test
  void aListingPrefixSitsDirectlyInItsParentFolder() {
    assertThat(SharedListing.parentOf("cogram/organization/agents/a1.")).isEqualTo("cogram/organization/agents/");
    assertThat(SharedListing.parentOf("cogram/projects/p1/meetings/m1/")).isEqualTo("cogram/projects/p1/meetings/");
    assertThat(SharedListing.parentOf("top/")).isNull();
  }

  /** The store, with every page of a listing taking {@code each} on the test's clock. */
  private static final class SlowPages extends ForwardingRecordStore {
    private final AtomicLong now;
    private final Duration each;

    SlowPages(RecordStore store, AtomicLong now, Duration each) {
      super(store);
      this.now = now;
      this.each = each;
    }

    @Override
    public ListingPage listPage(String prefix, String startAfter, String token) {
      now.addAndGet(each.toNanos());
      return super.listPage(prefix, startAfter, token);
    }
  }
}
