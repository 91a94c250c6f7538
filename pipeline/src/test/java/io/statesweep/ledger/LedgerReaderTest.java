package io.statesweep.ledger;

import static io.statesweep.ledger.LedgerFixtures.ANSWERED;
import static io.statesweep.ledger.LedgerFixtures.ATTEMPT;
import static io.statesweep.ledger.LedgerFixtures.AUDIO;
import static io.statesweep.ledger.LedgerFixtures.MINUTES;
import static io.statesweep.ledger.LedgerFixtures.STATE;
import static io.statesweep.ledger.LedgerFixtures.VERIFIED;
import static io.statesweep.ledger.LedgerFixtures.header;
import static io.statesweep.ledger.LedgerFixtures.meetingIntent;
import static io.statesweep.ledger.LedgerFixtures.meetingOutcome;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A partition's folder of the ledger, as task attempts leave it, read back a window at a time. */
class LedgerReaderTest {
  private static final String PARTITION = LedgerKeys.partition(ATTEMPT, 3);
  private final MemoryLedgerStore bucket = new MemoryLedgerStore();
  private final List<String> unreadable = new ArrayList<>();

  private TaskLedger taskLedger(long taskAttempt) {
    return new TaskLedger(bucket, ATTEMPT, header(taskAttempt, 0, ANSWERED), Clock.fixed(ANSWERED, ZoneOffset.UTC));
  }

  private List<LedgerReader.Window> read() {
    List<LedgerReader.Window> windows = new ArrayList<>();
    LedgerReader.windows(bucket, PARTITION, unreadable::add).forEachRemaining(windows::add);
    return windows;
  }

  @Test
  void aTaskAttemptWritesItsIntentBeforeItsOutcomesUnderItsPartition() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    ledger.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));
    ledger.flush();

    assertThat(bucket.objects().keySet()).containsExactly(
        "cogram.statesweep/journal/20261201T060000Z-aaaaaa/20261201T060500Z-bbbbbb/p00003/t7-w000001-intent.json",
        "cogram.statesweep/journal/20261201T060000Z-aaaaaa/20261201T060500Z-bbbbbb/p00003/t7-w000001-outcomes.json");
  }

  @Test
  void aWindowsLaterIntentKeepsTheRecordsOfItsEarlierOne() {
    // The window started its deletes in two groups (a record verified long before another), then its task stopped.
    DeleteJournal.IntendedRecord other = new DeleteJournal.IntendedRecord("cogram/projects/p1/state.json",
        Action.DELETE_RECORD, "project-etag", List.of(new DeleteJournal.IntendedKey("cogram/projects/p1/state.json",
            DeleteRole.STATE_FILE, "project-etag")), 0, VERIFIED);
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    ledger.intend(List.of(other));

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> assertThat(window.tries())
        .extracting(one -> one.outcome().stateFileKey()).containsExactly(STATE, other.stateFileKey()));
    assertThat(bucket.objects()).hasSize(1);
  }

  @Test
  void outcomesWrittenInTheBackgroundAreDurableAtCloseAndAFailedWriteFailsTheNextCall() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));
    ledger.close();
    assertThat(bucket.objects().keySet()).singleElement().asString().endsWith("t7-w000001-outcomes.json");

    LedgerStore unwritable = new MemoryLedgerStore() {
      @Override
      public void write(String key, byte[] content) {
        throw new IllegalStateException("Cannot write s3://archive/" + key + ": SlowDown (503)");
      }
    };
    TaskLedger failing = new TaskLedger(unwritable, ATTEMPT, header(8, 0, ANSWERED), Clock.fixed(ANSWERED,
        ZoneOffset.UTC));
    failing.nextWindow();
    failing.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));
    failing.nextWindow();
    assertThatThrownBy(() -> failing.recordOutcomes(List.of())).hasMessageEndingWith(": SlowDown (503)");
    failing.close();
  }

  @Test
  void aWindowWithOutcomesIsWhatTheySayAndItsIntentIsNotRead() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    ledger.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));
    ledger.flush();

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> {
      assertThat(window.tries()).singleElement().satisfies(one -> {
        assertThat(one.fromIntent()).isFalse();
        assertThat(one.outcome().deletedKeys()).containsExactly(MINUTES, AUDIO, STATE);
      });
      assertThat(window.sources()).hasSize(2);
    });
    assertThat(bucket.reads()).singleElement().asString().endsWith("-outcomes.json");
    assertThat(unreadable).isEmpty();
  }

  @Test
  void windowsOfSeveralTaskAttemptsAreEachReadOnceAndAnIntentAloneIsResolved() {
    // Task attempt 12 stopped after the intent of its second window; attempt 120, its retry, finished.
    TaskLedger stopped = taskLedger(12);
    stopped.nextWindow();
    stopped.recordOutcomes(List.of(meetingOutcome(Outcome.ALREADY_DELETED, 0, ANSWERED)));
    stopped.flush();
    stopped.nextWindow();
    stopped.intend(List.of(meetingIntent(0)));
    TaskLedger retry = taskLedger(120);
    retry.nextWindow();
    retry.intend(List.of(meetingIntent(0)));
    retry.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));
    retry.flush();

    List<LedgerReader.Window> windows = read();

    assertThat(windows).hasSize(3);
    assertThat(windows.get(0).tries().get(0).outcome().outcome()).isEqualTo(Outcome.ALREADY_DELETED);
    assertThat(windows.get(1).tries().get(0).fromIntent()).isTrue();
    assertThat(windows.get(1).sources()).singleElement().asString().endsWith("t12-w000002-intent.json");
    assertThat(windows.get(2).tries().get(0).taskAttempt()).isEqualTo(120);
    assertThat(windows.stream().mapToInt(window -> window.sources().size()).sum()).isEqualTo(bucket.objects().size());
  }

  @Test
  void anObjectThatCannotBeReadIsReportedAndLeftWhereItIs() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    String outcomes = LedgerKeys.entry(PARTITION, 7, 1, LedgerKeys.Kind.OUTCOMES);
    bucket.write(outcomes, "{\"version\":1".getBytes(UTF_8));

    List<LedgerReader.Window> windows = read();

    assertThat(unreadable).singleElement().asString().startsWith(outcomes + ": Invalid ledger object " + outcomes);
    // Its intent is looked at instead (the bucket has none of the meeting's keys: all deleted).
    assertThat(windows).singleElement().satisfies(window -> {
      assertThat(window.sources()).singleElement().asString().endsWith("t7-w000001-intent.json");
      assertThat(window.tries().get(0).outcome().outcome()).isEqualTo(Outcome.DELETED);
    });
  }
}
