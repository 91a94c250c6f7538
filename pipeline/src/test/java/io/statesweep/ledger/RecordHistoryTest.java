package io.statesweep.ledger;

import static io.statesweep.ledger.LedgerFixtures.ANSWERED;
import static io.statesweep.ledger.LedgerFixtures.AUDIO;
import static io.statesweep.ledger.LedgerFixtures.INTENDED;
import static io.statesweep.ledger.LedgerFixtures.MINUTES;
import static io.statesweep.ledger.LedgerFixtures.STATE;
import static io.statesweep.ledger.LedgerFixtures.header;
import static io.statesweep.ledger.LedgerFixtures.meetingIntent;
import static io.statesweep.ledger.LedgerFixtures.meetingOutcome;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.DeleteRole;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One row per record, whatever number of task attempts executed it: each key that went is in it once. */
class RecordHistoryTest {
  private static final Instant RETRIED = ANSWERED.plusSeconds(60);

  /** What a task attempt that stopped after deleting the minutes leaves: its intent, the minutes gone. */
  private static LedgerTry stoppedAfterTheMinutes() {
    MemoryLedgerStore bucket = new MemoryLedgerStore();
    bucket.putExportObject(AUDIO, "audio-etag");
    bucket.putExportObject(STATE, "state-etag");
    return IntentResolution.resolve(new LedgerEntry.Intent(header(7, 1, INTENDED), 1, List.of(meetingIntent(0))),
        bucket::find).get(0);
  }

  @Test
  void aLaterReadingAddsTheKeysAndMarkersTheRowLacksAndTheSameReadingTwiceAddsNothing() {
    // First recorded from the intent of an attempt whose answers came later: the minutes found gone, no marker.
    List<DeletedKey> recorded = stoppedAfterTheMinutes().outcome().deleted();
    assertThat(recorded).singleElement().satisfies(key -> assertThat(key.deleteMarker()).isNull());
    // Its outcomes, read later: the minutes with the marker they got, the audio and the state file too.
    List<DeletedKey> read = List.of(
        new DeletedKey(MINUTES, DeleteRole.FILE, "minutes-etag", ANSWERED, "marker-minutes"),
        new DeletedKey(AUDIO, DeleteRole.FILE, "audio-etag", ANSWERED, "marker-audio"),
        new DeletedKey(STATE, DeleteRole.STATE_FILE, "state-etag", ANSWERED, "marker-state"));

    RecordHistory.Added added = RecordHistory.addTo(recorded, read);

    assertThat(added.keysAdded()).isEqualTo(2);
    assertThat(added.markersAdded()).isEqualTo(1);
    assertThat(added.keys()).extracting(DeletedKey::key).containsExactly(MINUTES, AUDIO, STATE);
    assertThat(added.keys()).extracting(DeletedKey::deleteMarker)
        .containsExactly("marker-minutes", "marker-audio", "marker-state");
    assertThat(RecordHistory.addTo(added.keys(), read).nothing()).as("the same reading again").isTrue();
    assertThat(RecordHistory.addTo(added.keys(), recorded).nothing()).as("the first reading again").isTrue();
    RecordHistory.Added otherOrder = RecordHistory.addTo(read, recorded);
    assertThat(otherOrder.nothing()).as("markers are never taken away").isTrue();
    assertThat(otherOrder.keys()).isEqualTo(added.keys());
  }

  @Test
  void oneTaskAttemptsOutcomeIsTheRow() {
    ExecutionOutcome deleted = meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO);

    RecordHistory.Merged merged = RecordHistory.merge(List.of(new LedgerTry(deleted, false, 7)));

    assertThat(merged.outcome()).isEqualTo(deleted);
    assertThat(merged.recordedFrom()).isEqualTo("outcomes");
    assertThat(merged.taskAttempts()).isEqualTo(1);
  }

  @Test
  void aRetryAfterALostExecutorIsOneRowWithTheKeysOfBoth() {
    // The retry found the minutes gone (already gone, to it) and deleted the audio and the state file.
    LedgerTry retry = new LedgerTry(meetingOutcome(Outcome.DELETED, 1, RETRIED, AUDIO), false, 9);

    RecordHistory.Merged merged = RecordHistory.merge(List.of(retry, stoppedAfterTheMinutes()));

    ExecutionOutcome row = merged.outcome();
    assertThat(row.outcome()).isEqualTo(Outcome.DELETED);
    assertThat(row.deletedKeys()).as("in the order they went").containsExactly(MINUTES, AUDIO, STATE);
    assertThat(row.childKeysDeleted()).isEqualTo(2);
    assertThat(row.keysAlreadyGone()).as("gone before the attempt: none").isZero();
    assertThat(row.endedAt()).isEqualTo(RETRIED);
    assertThat(merged.recordedFrom()).isEqualTo("intent");
    assertThat(merged.taskAttempts()).isEqualTo(2);
    assertThat(row.message()).isEqualTo("deleted 2 files, then the state file (recorded from 2 task attempts; one"
        + " stopped before it recorded the store's answers, and its deletions were found by looking at the keys of its"
        + " intent)");
  }

  @Test
  void twoSpeculativeCopiesThatDeletedTheSameKeysCountEachOnce() {
    LedgerTry first = new LedgerTry(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO), false, 7);
    LedgerTry copy = new LedgerTry(meetingOutcome(Outcome.DELETED, 0, ANSWERED.plusMillis(5), MINUTES, AUDIO), false, 8);

    ExecutionOutcome row = RecordHistory.merge(List.of(first, copy)).outcome();

    assertThat(row.deletedKeys()).containsExactly(MINUTES, AUDIO, STATE);
    assertThat(row.keysDeleted()).isEqualTo(3);
  }

  @Test
  void filesDeletedBeforeTheStateFileChangedAreARecordThatCameBack() {
    // The retry read the state file again: the exporter had rewritten it (the record came back).
    LedgerTry retry = new LedgerTry(meetingOutcome(Outcome.STATE_CHANGED, 1, RETRIED), false, 9);

    ExecutionOutcome row = RecordHistory.merge(List.of(stoppedAfterTheMinutes(), retry)).outcome();

    assertThat(row.outcome()).isEqualTo(Outcome.CAME_BACK_DURING_DELETE);
    assertThat(row.deletedKeys()).containsExactly(MINUTES);
    assertThat(row.stateFileDeleted()).isFalse();
    assertThat(row.message()).startsWith("the record came back during its deletion: 1 of its files were deleted ("
        + MINUTES + "), then state_changed: ");
  }

  @Test
  void aCameBackSeenByOneTaskAttemptIsKeptWhateverTheOtherSaw() {
    LedgerTry sawIt = new LedgerTry(meetingOutcome(Outcome.CAME_BACK_DURING_DELETE, 0, ANSWERED, MINUTES), false, 7);
    LedgerTry retry = new LedgerTry(meetingOutcome(Outcome.STATE_CHANGED, 1, RETRIED), false, 9);

    ExecutionOutcome row = RecordHistory.merge(List.of(sawIt, retry)).outcome();

    assertThat(row.outcome()).isEqualTo(Outcome.CAME_BACK_DURING_DELETE);
    assertThat(row.deletedKeys()).containsExactly(MINUTES);
  }

  @Test
  void aCopyThatStoppedLateAddsItsDeletionsButTheRecordedOutcomeDecides() {
    // The winner deleted a live record's removed files; the copy Spark killed wrote its intent later, then stopped.
    LedgerTry winner = new LedgerTry(meetingOutcome(Outcome.REMOVED_FILES_DELETED, 0, ANSWERED, MINUTES), false, 7);
    MemoryLedgerStore bucket = new MemoryLedgerStore();
    bucket.putExportObject(AUDIO, "audio-etag");
    bucket.putExportObject(STATE, "state-etag");
    LedgerTry lateCopy = IntentResolution.resolve(new LedgerEntry.Intent(header(8, 1, RETRIED), 1,
        List.of(meetingIntent(0))), bucket::find).get(0);
    assertThat(lateCopy.outcome().outcome()).isEqualTo(Outcome.INTERRUPTED);

    ExecutionOutcome row = RecordHistory.merge(List.of(winner, lateCopy)).outcome();

    assertThat(row.outcome()).isEqualTo(Outcome.REMOVED_FILES_DELETED);
    assertThat(row.deletedKeys()).containsExactly(MINUTES);
    assertThat(row.endedAt()).isEqualTo(RETRIED);
  }

  @Test
  void noTaskAttemptIsNoRow() {
    assertThatThrownBy(() -> RecordHistory.merge(List.of())).hasMessage("no task attempt executed the record");
  }
}
