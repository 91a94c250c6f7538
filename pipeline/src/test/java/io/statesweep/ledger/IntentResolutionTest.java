package io.statesweep.ledger;

import static io.statesweep.ledger.LedgerFixtures.AUDIO;
import static io.statesweep.ledger.LedgerFixtures.INTENDED;
import static io.statesweep.ledger.LedgerFixtures.MINUTES;
import static io.statesweep.ledger.LedgerFixtures.STATE;
import static io.statesweep.ledger.LedgerFixtures.header;
import static io.statesweep.ledger.LedgerFixtures.meetingIntent;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.DeleteRole;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A window whose task stopped between its intent and its outcomes: its deletions are the intent's keys now gone. */
class IntentResolutionTest {
  private final MemoryLedgerStore bucket = new MemoryLedgerStore();

  private ExecutionOutcome resolve() {
    List<LedgerTry> tries = IntentResolution.resolve(new LedgerEntry.Intent(header(7, 1, INTENDED), 1,
        List.of(meetingIntent(1))), bucket::find);
    assertThat(tries).singleElement().satisfies(one -> {
      assertThat(one.fromIntent()).isTrue();
      assertThat(one.taskAttempt()).isEqualTo(7);
    });
    return tries.get(0).outcome();
  }

  @Test
  void aRecordWhoseKeysAreAllGoneWasDeletedStateFileLast() {
    ExecutionOutcome outcome = resolve();

    assertThat(outcome.outcome()).isEqualTo(Outcome.DELETED);
    assertThat(outcome.deleted()).containsExactly(new DeletedKey(MINUTES, DeleteRole.FILE, "minutes-etag", null),
        new DeletedKey(AUDIO, DeleteRole.FILE, "audio-etag", null),
        new DeletedKey(STATE, DeleteRole.STATE_FILE, "state-etag", null));
    assertThat(outcome.keysAlreadyGone()).isEqualTo(1);
    assertThat(outcome.endedAt()).as("the intent's time: its deletes began then").isEqualTo(INTENDED);
  }

  @Test
  void aRecordStoppedBetweenItsFilesIsInterruptedWithTheFilesThatWent() {
    bucket.putExportObject(AUDIO, "audio-etag");
    bucket.putExportObject(STATE, "state-etag");

    ExecutionOutcome outcome = resolve();

    assertThat(outcome.outcome()).isEqualTo(Outcome.INTERRUPTED);
    assertThat(outcome.deletedKeys()).containsExactly(MINUTES);
    assertThat(outcome.stateFileDeleted()).isFalse();
    assertThat(outcome.message()).endsWith("1 of its keys are gone, deleted by it; the state file stays, and the next"
        + " run finishes the record");
  }

  @Test
  void aStateFileRewrittenWhileItsFilesWentIsARecordThatCameBack() {
    bucket.putExportObject(STATE, "rewritten-by-the-exporter");

    ExecutionOutcome outcome = resolve();

    assertThat(outcome.outcome()).isEqualTo(Outcome.CAME_BACK_DURING_DELETE);
    assertThat(outcome.deletedKeys()).containsExactly(MINUTES, AUDIO);
    assertThat(outcome.message()).contains("run Verify bucket in the exporter");
  }

  @Test
  void aStateFileGoneWhileAFileStaysWasNotDeletedByThisExecute() {
    bucket.putExportObject(AUDIO, "audio-etag");

    ExecutionOutcome outcome = resolve();

    assertThat(outcome.outcome()).isEqualTo(Outcome.INTERRUPTED);
    assertThat(outcome.deletedKeys()).containsExactly(MINUTES);
    assertThat(outcome.message()).endsWith("its state file is gone, though this execute did not delete it");
  }

  @Test
  void nothingGoneIsNothingDeleted() {
    bucket.putExportObject(MINUTES, "minutes-etag");
    bucket.putExportObject(AUDIO, "audio-etag");
    bucket.putExportObject(STATE, "state-etag");

    ExecutionOutcome outcome = resolve();

    assertThat(outcome.outcome()).isEqualTo(Outcome.INTERRUPTED);
    assertThat(outcome.deleted()).isEmpty();
  }
}
