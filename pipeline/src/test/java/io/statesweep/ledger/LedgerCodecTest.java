package io.statesweep.ledger;

import static io.statesweep.ledger.LedgerFixtures.ANSWERED;
import static io.statesweep.ledger.LedgerFixtures.AUDIO;
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
    LedgerEntry.Intent intent = new LedgerEntry.Intent(header(7, 2, INTENDED), 1, List.of(meetingIntent(1),
        new DeleteJournal.IntendedRecord(HOSTILE_KEYS.get(0), Action.DELETE_REMOVED_FILES, "etag", keys, 0,
            INTENDED)));

    List<byte[]> parts = LedgerCodec.write(intent, 1);

    assertThat(parts).as("a small intent is one object").hasSize(1);
    assertThat(new String(parts.get(0), UTF_8)).as("ASCII only: every other character escaped")
        .matches("[\\x20-\\x7f]*");
    assertThat(LedgerCodec.read("k", parts.get(0)).entry()).isEqualTo(intent);
  }

  @Test
  void outcomesReadBackAsTheyWereWritten() {
    ExecutionOutcome failed = new ExecutionOutcome(HOSTILE_KEYS.get(1), Action.DELETE_REMOVED_FILES, Outcome.FAILED,
        "could not delete " + HOSTILE_KEYS.get(2), 1, false, 2,
        List.of(new KeyFailure(HOSTILE_KEYS.get(2), "AccessDenied", "Access Denied")), INTENDED, ANSWERED,
        List.of(new DeletedKey(HOSTILE_KEYS.get(3), DeleteRole.REMOVED_FILE, null, null)), null);
    LedgerEntry.Outcomes outcomes = new LedgerEntry.Outcomes(header(7, 2, ANSWERED),
        List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES), failed));

    assertThat(LedgerCodec.read("k", LedgerCodec.write(outcomes, 1).get(0)).entry()).isEqualTo(outcomes);
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
    String valid = new String(LedgerCodec.write(new LedgerEntry.Intent(header(7, 2, INTENDED), 1,
        List.of(meetingIntent(0))), 1).get(0), UTF_8);

    assertThatThrownBy(() -> LedgerCodec.read(key, "{\"version\":1".getBytes(UTF_8)))
        .hasMessageStartingWith("Invalid ledger object " + key + ": not JSON: ");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"version\":2", "\"version\":3").getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field version is 3, this statesweep reads versions 1 and 2");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"part\":1", "\"part\":0").getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field part is not positive");
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
        List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES))), 1).get(0), UTF_8);

    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"child_keys_deleted\":1", "\"child_keys_deleted\":5")
        .getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": the outcome of " + LedgerFixtures.STATE
            + " does not hold together: the deleted keys of " + LedgerFixtures.STATE + " do not match their counts");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"part\":1", "\"part\":2").getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field part is 2 of 1 parts");
    assertThatThrownBy(() -> LedgerCodec.read(key, valid.replace("\"continued\":false", "\"continued\":0")
        .getBytes(UTF_8)))
        .hasMessage("Invalid ledger object " + key + ": field outcomes[0].continued is not true or false");
  }

  /** A key of 947 bytes (S3 takes 1,024), its segments short enough for any store, one of them hostile. */
  private static String longKey(int i) {
    String segment = "s".repeat(230);
    return "cogram/projects/p1/meetings/m1/" + segment + "/" + segment + "/" + segment + "/" + segment.substring(0, 200)
        + (i % 100 == 0 ? HOSTILE_KEYS.get(i / 100 % HOSTILE_KEYS.size()) : "") + String.format("/%06d", i);
  }

  /** The parts read back, each from its own object. */
  private static List<LedgerCodec.Part> readParts(List<byte[]> parts) {
    List<LedgerCodec.Part> read = new java.util.ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      read.add(LedgerCodec.read("part-" + (i + 1), parts.get(i)));
    }
    return read;
  }

  @Test
  void aRecordOfMoreKeysThanAnObjectHoldsGoesOnInTheNextPartsAndJoinsBackWhole() {
    List<DeleteJournal.IntendedKey> keys = new java.util.ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      keys.add(new DeleteJournal.IntendedKey(longKey(i), DeleteRole.FILE, "\"etag-" + i + "\""));
    }
    keys.add(new DeleteJournal.IntendedKey("cogram/projects/p1/meetings/m2/state.json", DeleteRole.STATE_FILE,
        "big-etag"));
    LedgerEntry.Intent intent = new LedgerEntry.Intent(header(7, 2, INTENDED), 3, List.of(meetingIntent(0),
        new DeleteJournal.IntendedRecord("cogram/projects/p1/meetings/m2/state.json", Action.DELETE_RECORD, "big-etag",
            keys, 4, INTENDED), new DeleteJournal.IntendedRecord("cogram/projects/p1/meetings/m3/state.json",
            Action.DELETE_RECORD, "m3-etag", List.of(new DeleteJournal.IntendedKey(
                "cogram/projects/p1/meetings/m3/state.json", DeleteRole.STATE_FILE, "m3-etag")), 1, INTENDED)));

    List<byte[]> parts = LedgerCodec.write(intent, 1, 256 * 1024);

    assertThat(parts).as("3,000 keys of 947 bytes: about 2.9 MB").hasSizeBetween(12, 14);
    assertThat(parts).allSatisfy(part -> assertThat(part.length).isLessThanOrEqualTo(256 * 1024));
    List<LedgerCodec.Part> read = readParts(parts);
    assertThat(read).extracting(LedgerCodec.Part::part).containsExactlyElementsOf(
        java.util.stream.IntStream.rangeClosed(1, parts.size()).boxed().toList());
    assertThat(read).allSatisfy(part -> {
      assertThat(part.parts()).as("an intent's parts are not counted: each names keys before they go").isZero();
      assertThat(part.group()).isEqualTo(3);
    });
    assertThat(LedgerCodec.join(read)).isEqualTo(intent);
    assertThat(((LedgerEntry.Intent) LedgerCodec.join(read.subList(0, 2))).records())
        .as("what some parts name, when the others never were").hasSize(2)
        .satisfies(records -> assertThat(records.get(1).keys()).isEqualTo(keys.subList(0, records.get(1).keys().size())));
    assertThat(LedgerCodec.write(intent, 4)).as("numbered on from the parts its group has")
        .extracting(bytes -> LedgerCodec.read("k", bytes).part()).containsExactly(4);
    assertThat(LedgerCodec.write(intent, 1)).as("under the default budget, one object").hasSize(1);
  }

  @Test
  void outcomesOfARecordOfManyKeysAreSlicedWithTheirCountsAndJoinBackWhole() {
    List<DeletedKey> deleted = new java.util.ArrayList<>();
    List<KeyFailure> failures = new java.util.ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      deleted.add(new DeletedKey(longKey(i), DeleteRole.FILE, "etag-" + i, ANSWERED, i % 2 == 0 ? "marker-" + i : null));
      if (i % 4 == 0) {
        failures.add(new KeyFailure(longKey(100_000 + i), "AccessDenied", "Access Denied"));
      }
    }
    ExecutionOutcome big = new ExecutionOutcome("cogram/projects/p1/meetings/m2/state.json", Action.DELETE_RECORD,
        Outcome.FAILED, "could not delete " + failures.get(0).key(), deleted.size(), false, 3, failures, INTENDED,
        ANSWERED, deleted, null);
    LedgerEntry.Outcomes outcomes = new LedgerEntry.Outcomes(header(7, 2, ANSWERED),
        List.of(big, meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES, AUDIO)));

    List<byte[]> parts = LedgerCodec.write(outcomes, 1, 200 * 1024);

    assertThat(parts.size()).isGreaterThan(10);
    assertThat(parts).allSatisfy(part -> assertThat(part.length).isLessThanOrEqualTo(200 * 1024));
    List<LedgerCodec.Part> read = readParts(parts);
    assertThat(read).as("each slice holds together on its own: its counts are its keys'").allSatisfy(part ->
        ((LedgerEntry.Outcomes) part.entry()).outcomes().forEach(slice ->
            assertThat(slice.deleted()).hasSize((int) slice.keysDeleted())));
    assertThat(LedgerCodec.join(read)).isEqualTo(outcomes);
  }

  @Test
  void aKeyOfCharactersThatJsonEscapesIsCountedAtItsEscapedSize() {
    // Each control character is six bytes once escaped: 1,000 of them make a key of 6,002 bytes in an object.
    List<DeleteJournal.IntendedKey> keys = new java.util.ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add(new DeleteJournal.IntendedKey("cogram/projects/p1/meetings/m1/" + "\u0001".repeat(1_000) + i,
          DeleteRole.FILE, "etag"));
    }
    LedgerEntry.Intent intent = new LedgerEntry.Intent(header(7, 2, INTENDED), 1, List.of(
        new DeleteJournal.IntendedRecord(LedgerFixtures.STATE, Action.DELETE_RECORD, "state-etag", keys, 0, INTENDED)));

    List<byte[]> parts = LedgerCodec.write(intent, 1, 64 * 1024);

    assertThat(parts).hasSizeGreaterThanOrEqualTo(19);
    assertThat(parts).allSatisfy(part -> assertThat(part.length).isLessThanOrEqualTo(64 * 1024));
    assertThat(LedgerCodec.join(readParts(parts))).isEqualTo(intent);
  }

  @Test
  void outcomesThatAreNotTheWholeOfTheirPartsAreRefused() {
    List<DeletedKey> deleted = new java.util.ArrayList<>();
    for (int i = 0; i < 600; i++) {
      deleted.add(new DeletedKey(longKey(i), DeleteRole.FILE, "etag-" + i, ANSWERED));
    }
    List<LedgerCodec.Part> read = readParts(LedgerCodec.write(new LedgerEntry.Outcomes(header(7, 2, INTENDED),
        List.of(new ExecutionOutcome("cogram/projects/p1/meetings/m2/state.json", Action.DELETE_RECORD,
            Outcome.INTERRUPTED, "interrupted", deleted.size(), false, 0, List.of(), INTENDED, ANSWERED, deleted,
            null))), 1, 256 * 1024));
    assertThat(read).hasSizeGreaterThan(2);

    assertThatThrownBy(() -> LedgerCodec.join(read.subList(0, 2))).hasMessage("part 1 of " + read.size()
        + " is not part 1 of 2");
    assertThatThrownBy(() -> LedgerCodec.join(List.of(read.get(0), read.get(2), read.get(1))))
        .hasMessage("part 3 of " + read.size() + " is not part 2 of 3");
    LedgerCodec.Part other = new LedgerCodec.Part(new LedgerEntry.Outcomes(header(7, 2, INTENDED),
        List.of(meetingOutcome(Outcome.DELETED, 0, ANSWERED, MINUTES))), 1, read.size(), List.of(false));
    List<LedgerCodec.Part> mixed = new java.util.ArrayList<>(read);
    mixed.set(0, other);
    assertThatThrownBy(() -> LedgerCodec.join(mixed)).hasMessage("part 2 goes on with"
        + " cogram/projects/p1/meetings/m2/state.json, which the part before does not end with");
  }

  @Test
  void aLedgerObjectOfAnEarlierStatesweepReadsAsTheWholeOfItsEntry() {
    LedgerEntry.Intent intent = new LedgerEntry.Intent(header(7, 2, INTENDED), 1, List.of(meetingIntent(0)));
    String written = new String(LedgerCodec.write(intent, 1).get(0), UTF_8);
    String version1 = written.replace("\"version\":2", "\"version\":1").replace("\"group\":1,\"part\":1,", "");
    assertThat(version1).doesNotContain("\"part\"").doesNotContain("group");

    LedgerCodec.Part part = LedgerCodec.read("t7-w000002-intent.json", version1.getBytes(UTF_8));

    assertThat(part.part()).isEqualTo(1);
    assertThat(part.group()).isEqualTo(1);
    assertThat(LedgerCodec.join(List.of(part))).isEqualTo(intent);
  }
}
