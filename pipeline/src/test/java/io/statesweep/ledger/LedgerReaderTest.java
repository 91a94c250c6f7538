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
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
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
    LedgerReader.windows(bucket, PARTITION, (key, why) -> unreadable.add(key + ": " + why))
        .forEachRemaining(windows::add);
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
        "cogram.statesweep/journal/20261201T060000Z-aaaaaa/20261201T060500Z-bbbbbb/p00003/t7-w000001-intent-g0001-p00001.json",
        "cogram.statesweep/journal/20261201T060000Z-aaaaaa/20261201T060500Z-bbbbbb/p00003/t7-w000001-outcomes-p00001.json");
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
    assertThat(bucket.objects()).as("each group's intent in an object of its own").hasSize(2);
  }

  @Test
  void outcomesWrittenInTheBackgroundAreDurableAtCloseAndAFailedWriteFailsTheNextCall() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));
    ledger.close();
    assertThat(bucket.objects().keySet()).singleElement().asString().endsWith("t7-w000001-outcomes-p00001.json");

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
    assertThat(bucket.reads()).singleElement().asString().endsWith("-outcomes-p00001.json");
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
    assertThat(windows.get(1).sources()).singleElement().asString().endsWith("t12-w000002-intent-g0001-p00001.json");
    assertThat(windows.get(2).tries().get(0).taskAttempt()).isEqualTo(120);
    assertThat(windows.stream().mapToInt(window -> window.sources().size()).sum()).isEqualTo(bucket.objects().size());
  }

  @Test
  void anObjectThatCannotBeReadIsReportedAndLeftWhereItIs() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    String outcomes = LedgerKeys.outcomes(PARTITION, 7, 1, 1);
    bucket.write(outcomes, "{\"version\":1".getBytes(UTF_8));

    List<LedgerReader.Window> windows = read();

    assertThat(unreadable).singleElement().asString().startsWith(outcomes + ": Invalid ledger object " + outcomes);
    // Its intent is looked at instead (the bucket has none of the meeting's keys: all deleted).
    assertThat(windows).singleElement().satisfies(window -> {
      assertThat(window.sources()).singleElement().asString().endsWith("t7-w000001-intent-g0001-p00001.json");
      assertThat(window.tries().get(0).outcome().outcome()).isEqualTo(Outcome.DELETED);
    });
  }

  /** A record of a project folder of {@code files} keys of 947 bytes (S3 takes 1,024), then its state file. */
  private static DeleteJournal.IntendedRecord largeRecord(String record, int files) {
    String state = "cogram/projects/p1/documents/" + record + "/state.json";
    String segment = "d".repeat(230);
    List<DeleteJournal.IntendedKey> keys = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      keys.add(new DeleteJournal.IntendedKey("cogram/projects/p1/documents/" + record + "/" + segment + "/" + segment
          + "/" + segment + "/" + segment.substring(0, 200) + String.format("/%07d", i), DeleteRole.FILE, "etag-" + i));
    }
    keys.add(new DeleteJournal.IntendedKey(state, DeleteRole.STATE_FILE, record + "-etag"));
    return new DeleteJournal.IntendedRecord(state, Action.DELETE_RECORD, record + "-etag", keys, 0, VERIFIED);
  }

  /** What a window that deleted every key of its record says. */
  private static ExecutionOutcome deletedWhole(DeleteJournal.IntendedRecord record) {
    List<DeletedKey> deleted = record.keys().stream().map(key ->
        new DeletedKey(key.key(), key.role(), key.etag(), ANSWERED, "marker-of-" + key.key()))
        .toList();
    return new ExecutionOutcome(record.stateFileKey(), record.action(), Outcome.DELETED,
        "deleted", deleted.size() - 1, true, 0, List.of(), VERIFIED, ANSWERED, deleted, null);
  }

  private List<String> objectsOf(String kind) {
    return bucket.objects().keySet().stream().filter(key -> key.contains("-" + kind)).toList();
  }

  @Test
  void aRecordTooLargeForOneObjectIsWrittenInPartsAndReadWholeWithEveryMarker() {
    DeleteJournal.IntendedRecord large = largeRecord("d1", 20_000);
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0), large));
    ledger.recordOutcomes(List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO), deletedWhole(large)));
    ledger.close();

    assertThat(objectsOf("intent")).as("20,000 keys of 947 bytes: 19 MB in parts of 8 MiB").hasSize(3);
    assertThat(objectsOf("outcomes")).as("with a delete marker each: 39 MB").hasSize(5);
    assertThat(bucket.objects().values()).allSatisfy(bytes -> assertThat(bytes.length)
        .isLessThanOrEqualTo(LedgerCodec.PART_BYTES));

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> {
      assertThat(window.tries()).extracting(one -> one.outcome().stateFileKey())
          .containsExactly(STATE, large.stateFileKey());
      assertThat(window.tries().get(1).outcome().deleted()).hasSize(20_001)
          .allSatisfy(key -> assertThat(key.deleteMarker()).isEqualTo("marker-of-" + key.key()));
      assertThat(window.sources()).hasSize(8);
    });
    assertThat(unreadable).isEmpty();
  }

  @Test
  void outcomesPartlyWrittenWhenTheTaskStoppedFallBackOnItsIntent() {
    DeleteJournal.IntendedRecord large = largeRecord("d1", 20_000);
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(large));
    ledger.recordOutcomes(List.of(deletedWhole(large)));
    ledger.close();
    bucket.remove(objectsOf("outcomes").get(2)); // its task stopped before the last part

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> assertThat(window.tries()).singleElement()
        .satisfies(one -> {
          assertThat(one.fromIntent()).isTrue();
          assertThat(one.outcome().outcome()).isEqualTo(Outcome.DELETED);
          assertThat(one.outcome().deleted()).hasSize(20_001);
        }));
    assertThat(unreadable).isEmpty();
  }

  @Test
  void anIntentNamesKeysAsTheyAreAboutToGoAndALaterGroupsIntentOfARecordHolds() {
    // Group 1: the meeting and the document; group 2 verified the document again (it found a key gone since), and
    // its task stopped after naming the first 12,000 of its keys: none of the others was sent.
    DeleteJournal.IntendedRecord large = largeRecord("d1", 20_000);
    List<DeleteJournal.IntendedKey> again = large.keys().subList(1, large.keys().size());
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0), large));
    ledger.intend(List.of(new DeleteJournal.IntendedRecord(large.stateFileKey(), large.action(), large.stateEtag(),
        again.subList(0, 5_000), 1, ANSWERED)));
    ledger.intendMore(List.of(new DeleteJournal.IntendedRecord(large.stateFileKey(), large.action(),
        large.stateEtag(), again.subList(5_000, 12_000), 1, ANSWERED)));
    bucket.putExportObject(large.keys().get(0).key(), "written-since"); // the key the second verification missed
    again.subList(12_000, again.size()).forEach(key -> bucket.putExportObject(key.key(), key.etag()));
    assertThat(objectsOf("intent-g0002")).hasSize(2);

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> {
      assertThat(window.tries()).extracting(one -> one.outcome().stateFileKey())
          .containsExactly(STATE, large.stateFileKey());
      ExecutionOutcome document = window.tries().get(1).outcome();
      assertThat(document.deleted()).as("the keys the later group named, gone").hasSize(12_000)
          .extracting(DeletedKey::key).containsExactlyElementsOf(again.subList(0, 12_000).stream()
              .map(DeleteJournal.IntendedKey::key).toList());
      assertThat(document.outcome()).isEqualTo(Outcome.INTERRUPTED);
      assertThat(document.keysAlreadyGone()).isEqualTo(1);
    });
    assertThat(unreadable).isEmpty();
  }

  @Test
  void aPartOfAnIntentThatCannotBeReadKeepsEveryObjectOfItsWindowAndTheNextWindowIsRead() {
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(largeRecord("d1", 20_000)));
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    String broken = objectsOf("intent").get(1);
    bucket.write(broken, "{\"version\":2".getBytes(UTF_8));

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> assertThat(window.tries()).singleElement()
        .satisfies(one -> assertThat(one.outcome().stateFileKey()).isEqualTo(STATE)));
    assertThat(objectsOf("w000001-intent")).hasSize(3);
    assertThat(unreadable).hasSize(3);
    assertThat(unreadable).filteredOn(why -> why.startsWith(broken + ": Invalid ledger object " + broken + ": not JSON"))
        .hasSize(1);
    assertThat(unreadable).filteredOn(why -> why.endsWith(": kept beside " + broken
        + ", an intent of its window that cannot be read")).hasSize(2);
  }

  @Test
  void anObjectWhoseFieldsAreNotThoseOfItsNameIsNeverRead() {
    // An intent's part copied under another window's name (by hand, or a bucket tool): read, it would claim keys
    // for that window; it is named and stays, with every object of its window.
    TaskLedger ledger = taskLedger(7);
    ledger.nextWindow();
    ledger.intend(List.of(meetingIntent(0)));
    String copy = LedgerKeys.intent(PARTITION, 8, 1, 1, 1);
    bucket.write(copy, bucket.objects().firstEntry().getValue());

    List<LedgerReader.Window> windows = read();

    assertThat(windows).singleElement().satisfies(window -> assertThat(window.sources()).singleElement()
        .asString().endsWith("t7-w000001-intent-g0001-p00001.json"));
    assertThat(unreadable).containsExactly(copy + ": Invalid ledger object " + copy
        + ": its fields are not those of its name");
  }
}
