package io.statesweep.ledger;

import static io.statesweep.ledger.LedgerFixtures.ANSWERED;
import static io.statesweep.ledger.LedgerFixtures.INTENDED;
import static io.statesweep.ledger.LedgerFixtures.MINUTES;
import static io.statesweep.ledger.LedgerFixtures.header;
import static io.statesweep.ledger.LedgerFixtures.meetingIntent;
import static io.statesweep.ledger.LedgerFixtures.meetingOutcome;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.KeyFailure;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ledger objects read back exactly as they were written, whatever the keys hold; a broken one names its field. */
class LedgerCodecTest {
  /** Keys a hostile state file or listing can bring: line breaks, controls, separators, astral characters, quotes. */
  private static final List<String> HOSTILE_KEYS = List.of("cogram/projects/p1/meetings/m1/x\nsummary: dry_run=false",
      "cogram/projects/p1/meetings/m1/\u0001\u007f\u0085\u2028\u2029\ufeff", "cogram/projects/p1/meetings/m1/\"q\"\\",
      "cogram/projects/p1/meetings/m1/\ud83d\udcc4 d\u00e9j\u00e0.pdf");

  @Test
  void anIntentReadsBackAsItWasWrittenWithHostileKeys() {
    List<DeleteJournal.IntendedKey> keys = HOSTILE_KEYS.stream()
        .map(key -> new DeleteJournal.IntendedKey(key, DeleteRole.FILE, "e\"t\\ag")).toList();
    LedgerEntry.Intent intent = new LedgerEntry.Intent(header(7, 2, INTENDED), List.of(meetingIntent(1),
        new DeleteJournal.IntendedRecord(HOSTILE_KEYS.get(0), Action.DELETE_REMOVED_FILES, "etag", keys, 0,
            INTENDED)));

    byte[] bytes = LedgerCodec.write(intent);

    assertThat(new String(bytes, UTF_8)).as("ASCII only: every other character escaped").matches("[\\x20-\\x7f]*");
    assertThat(LedgerCodec.read("k", bytes)).isEqualTo(intent);
  }

  @Test
  void outcomesReadBackAsTheyWereWritten() {
    ExecutionOutcome failed = new ExecutionOutcome(HOSTILE_KEYS.get(1), Action.DELETE_REMOVED_FILES, Outcome.FAILED,
        "could not delete " + HOSTILE_KEYS.get(2), 1, false, 2,
        List.of(new KeyFailure(HOSTILE_KEYS.get(2), "AccessDenied", "Access Denied")), INTENDED, ANSWERED,
        List.of(new DeletedKey(HOSTILE_KEYS.get(3), DeleteRole.REMOVED_FILE, null, null)), null);
    LedgerEntry.Outcomes outcomes = new LedgerEntry.Outcomes(header(7, 2, ANSWERED),
        List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES), failed));

    assertThat(LedgerCodec.read("k", LedgerCodec.write(outcomes))).isEqualTo(outcomes);
    assertThat(LedgerCodec.readOutcome(LedgerCodec.writeOutcome(failed))).isEqualTo(failed);
  }

  @Test
  void aDeletedKeysDeleteMarkerReadsBackAndALedgerWrittenWithoutOneReadsAsNone() {
    ExecutionOutcome versioned = new ExecutionOutcome(HOSTILE_KEYS.get(1), Action.DELETE_REMOVED_FILES,
        Outcome.DELETED, "deleted", 1, false, 0, List.of(), INTENDED, ANSWERED,
        List.of(new DeletedKey(HOSTILE_KEYS.get(3), DeleteRole.REMOVED_FILE, "etag", ANSWERED,
            "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY+MTRCxf3vjVBH40Nr8X8gdRQBpUMLUo")), null);

    assertThat(LedgerCodec.readOutcome(LedgerCodec.writeOutcome(versioned))).isEqualTo(versioned);
    String written = LedgerCodec.writeOutcome(versioned);
    String before = written.replace(",\"delete_marker\":\"3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY+MTRCxf3vjVBH40Nr8X8gdRQBpUMLUo\"",
        "");
    assertThat(before).isNotEqualTo(written);
    assertThat(LedgerCodec.readOutcome(before).deleted())
        .singleElement().satisfies(key -> assertThat(key.deleteMarker()).isNull());
  }

  /** A store's version ids are its own text: a hostile marker or version id reads back as it was answered. */
  @Test
  void aRestoredKeysHostileMarkerAndVersionReadBack() {
    ExecutionOutcome restored = new ExecutionOutcome(HOSTILE_KEYS.get(0), Action.DELETE_RECORD,
        Outcome.RESTORED_AFTER_COMING_BACK, "restored", 2, false, 0, List.of(), INTENDED, ANSWERED,
        List.of(new DeletedKey(HOSTILE_KEYS.get(1), DeleteRole.FILE, "etag", ANSWERED, "null")
                .restoredAs("v\n\"1\"\nsummary: dry_run=false"),
            new DeletedKey(HOSTILE_KEYS.get(2), DeleteRole.FILE, "etag", ANSWERED, "m\u0085\u2028\ud83d\udcc4")),
        null);

    String written = LedgerCodec.writeOutcome(restored);

    assertThat(written).as("ASCII only").matches("[\\x20-\\x7f]*");
    assertThat(LedgerCodec.readOutcome(written)).isEqualTo(restored);
    assertThat(LedgerCodec.readOutcome(written).deleted()).extracting(DeletedKey::restored).containsExactly(true, false);
  }

  @Test
  void anObjectThatIsNoLedgerObjectNamesTheKeyAndTheField() {
    String key = "cogram.statesweep/journal/R/A/p00003/t7-w000002-intent.json";
    String valid = new String(LedgerCodec.write(new LedgerEntry.Intent(header(7, 2, INTENDED),
        List.of(meetingIntent(0)))), UTF_8);

    assertThatThrownBy(() -> LedgerCodec.read(key, "{\"version\":1".getBytes(UTF_8)))
        .hasMessageStartingWith("Invalid ledger object " + key + ": not JSON: ");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"version\":1", "\"version\":2").getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field version is 2, this statesweep reads version 1");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"role\":\"file\"", "\"role\":\"other\"")
        .getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field records[0].keys[0].role is not a role: other");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"etag\":\"minutes-etag\"", "\"etag\":null")
        .getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field records[0].keys[0].etag is missing");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"keys_already_gone\":0", "\"keys_already_gone\":-1")
        .getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field records[0].keys_already_gone is not a count");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"started_at\":\"2026-12-01T06:00:00Z\"",
        "\"started_at\":\"yesterday\"").getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field records[0].started_at is not a timestamp: yesterday");
  }

  @Test
  void outcomesWhoseCountsDoNotHoldTogetherAreRefused() {
    String key = "cogram.statesweep/journal/R/A/p00003/t7-w000002-outcomes.json";
    String valid = new String(LedgerCodec.write(new LedgerEntry.Outcomes(header(7, 2, ANSWERED),
        List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES)))), UTF_8);

    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"child_keys_deleted\":1", "\"child_keys_deleted\":5")
        .getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": the outcome of " + LedgerFixtures.STATE
            + " does not hold together: the deleted keys of " + LedgerFixtures.STATE + " do not match their counts");
  }
}
