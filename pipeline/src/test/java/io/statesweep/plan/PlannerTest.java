package io.statesweep.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.layout.Classification;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Layout;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateParser;
import io.statesweep.store.StoredObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What is due and the safety rules (README, "Actions (one per record)"), one rule per test. */
class PlannerTest {

  private static final Layout LAYOUT = Layout.builtIn("cogram");
  private static final KeyClassifier CLASSIFIER = LAYOUT.classifier(ExportPrefix.of("cogram"));
  private static final StateParser PARSER = new StateParser(LAYOUT.markedAtFields());

  /** When the state file was written; files are older unless a test says otherwise. */
  private static final Instant STATE_WRITTEN = Instant.parse("2025-01-10T03:00:00Z");
  private static final Instant BEFORE_STATE = STATE_WRITTEN.minus(Duration.ofHours(1));
  private static final Instant NOW = Instant.parse("2025-03-01T06:00:00Z");

  private static final String PROJECT_STATE = "cogram/projects/p1/state.json";
  private static final String MEETING = "cogram/projects/p1/meetings/m1/";
  private static final String MEETING_STATE = MEETING + "state.json";
  private static final String MINUTES = MEETING + "minutes.pdf";
  private static final String AUDIO = MEETING + "audio.m4a";
  private static final String OLD_SLIDES = MEETING + "attachments/slides.pdf";
  private static final String AGENT_STATE = "cogram/organization/agents/a1.state.json";
  private static final String AGENT_JSON = "cogram/organization/agents/a1.json";

  private static final Planner NO_GRACE = new Planner(CLASSIFIER, Duration.ZERO);

  private static Planner graceOfDays(int days) {
    return new Planner(CLASSIFIER, Duration.ofDays(days));
  }

  private static StoredObject object(String key, Instant lastModified, long size) {
    return new StoredObject(key, "\"etag-" + Integer.toHexString(key.hashCode()) + "\"", lastModified, size);
  }

  /** One record's state file, document and listing, built by hand. */
  private static final class Record {
    private final String stateKey;
    private final Map<String, Object> fields = new LinkedHashMap<>();
    private String rawDocument;
    private final Map<String, ListedKey> listed = new LinkedHashMap<>();
    private StoredObject newestOwnedFile;

    private Record(String stateKey) {
      this.stateKey = stateKey;
    }

    Record deleteTrue() {
      fields.put("delete", true);
      return this;
    }

    Record deletedAt(Instant markedAt) {
      fields.put("deleted_at", markedAt.toString());
      return this;
    }

    Record expiresAt(Instant expiresAt) {
      fields.put("expires_at", expiresAt.toString());
      return this;
    }

    Record files(String... keys) {
      fields.put("files", List.of(keys));
      return this;
    }

    Record removedFiles(String... keys) {
      fields.put("delete_files", List.of(keys));
      return this;
    }

    Record document(String json) {
      rawDocument = json;
      return this;
    }

    /** An existing object, written before the state file, 10 bytes. */
    Record stored(String key) {
      return stored(key, BEFORE_STATE, 10);
    }

    Record stored(String key, Instant lastModified) {
      return stored(key, lastModified, 10);
    }

    Record stored(String key, Instant lastModified, long size) {
      listed.put(key, new ListedKey(key, object(key, lastModified, size), null));
      return this;
    }

    /** The listing found an existing state file {@code owner} closer to {@code key} than any other. */
    Record ownedBy(String key, String owner) {
      ListedKey known = listed.get(key);
      listed.put(key, new ListedKey(key, known == null ? null : known.object(), owner));
      return this;
    }

    Record newestOwnedFile(String key, Instant lastModified) {
      newestOwnedFile = object(key, lastModified, 10);
      return this;
    }

    String json() {
      if (rawDocument != null) {
        return rawDocument;
      }
      return fields.entrySet().stream()
          .map(field -> "\"" + field.getKey() + "\": " + jsonValue(field.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }

    RecordInput input() {
      Classification classification = CLASSIFIER.classify(stateKey);
      assertThat(classification).isInstanceOf(Classification.StateFile.class);
      ParsedState parsed = PARSER.parse(stateKey, json().getBytes(StandardCharsets.UTF_8));
      return new RecordInput((Classification.StateFile) classification, stateObject(), parsed, listed,
          newestOwnedFile);
    }

    StoredObject stateObject() {
      return object(stateKey, STATE_WRITTEN, 100);
    }

    StoredObject storedObject(String key) {
      return listed.get(key).object();
    }

    private static String jsonValue(Object value) {
      if (value instanceof List<?> list) {
        return list.stream().map(item -> "\"" + item + "\"").collect(Collectors.joining(", ", "[", "]"));
      }
      return value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
    }
  }

  private static Record record(String stateKey) {
    return new Record(stateKey);
  }

  private static Record meeting() {
    return record(MEETING_STATE);
  }

  private static List<String> keys(RecordPlan plan) {
    return plan.deletes().stream().map(PlannedDelete::key).toList();
  }

  private static List<DeleteRole> roles(RecordPlan plan) {
    return plan.deletes().stream().map(PlannedDelete::role).toList();
  }

  // ---------------------------------------------------------------- what is due (README, "Actions (one per record)")

  @Test
  void liveRecordIsKeptWithNothingToDelete() {
    RecordPlan plan = NO_GRACE.plan(meeting().files(MINUTES).stored(MINUTES).input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.reason()).isEqualTo("live record");
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.dueAt()).isNull();
  }

  @Test
  void deletesFilesThenStateFileLastWhenDeleteIsTrue() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).stored(MINUTES).stored(AUDIO);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.reason()).isEqualTo("delete: true");
    assertThat(keys(plan)).containsExactly(MINUTES, AUDIO, MEETING_STATE);
    assertThat(roles(plan)).containsExactly(DeleteRole.FILE, DeleteRole.FILE, DeleteRole.STATE_FILE);
  }

  @Test
  void dueRecordDeletesItsRemovedFilesTooBeforeItsStateFile() {
    Record record = meeting().deleteTrue().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES).stored(OLD_SLIDES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(MINUTES, OLD_SLIDES, MEETING_STATE);
    assertThat(roles(plan)).containsExactly(DeleteRole.FILE, DeleteRole.REMOVED_FILE, DeleteRole.STATE_FILE);
  }

  @Test
  void keyInFilesAndDeleteFilesOfADueRecordIsDeletedOnceAsAFile() {
    Record record = meeting().deleteTrue().files(MINUTES).removedFiles(MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(MINUTES, MEETING_STATE);
    assertThat(roles(plan)).containsExactly(DeleteRole.FILE, DeleteRole.STATE_FILE);
  }

  @Test
  void deletesCarryTheVersionTheListingSaw() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.deletes()).extracting(PlannedDelete::object)
        .containsExactly(record.storedObject(MINUTES), record.stateObject());
  }

  @Test
  void waitsForGraceSinceMarkedAtField() {
    Instant markedAt = Instant.parse("2025-02-25T00:00:00Z");
    Record record = meeting().deleteTrue().deletedAt(markedAt).files(MINUTES).stored(MINUTES);

    // The state file's LastModified plus 7 days passed long ago; the marking 4 days ago counts.
    RecordPlan plan = graceOfDays(7).plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(plan.reason()).isEqualTo("not yet due: grace of 7 days ends at 2025-03-04T00:00:00Z");
    assertThat(plan.dueAt()).isEqualTo(Instant.parse("2025-03-04T00:00:00Z"));
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void isDueOnceGraceSinceMarkedAtFieldHasPassed() {
    Instant markedAt = Instant.parse("2025-02-25T00:00:00Z");
    Record record = meeting().deleteTrue().deletedAt(markedAt).files(MINUTES).stored(MINUTES);

    RecordPlan plan = graceOfDays(7).plan(record.input(), Instant.parse("2025-03-04T00:00:01Z"));

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.reason()).isEqualTo("delete: true; grace of 7 days passed");
    assertThat(keys(plan)).containsExactly(MINUTES, MEETING_STATE);
  }

  @Test
  void graceFallsBackToStateFileLastModified() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES);
    Planner planner = graceOfDays(7);

    RecordPlan waiting = planner.plan(record.input(), STATE_WRITTEN.plus(Duration.ofDays(7)).minusSeconds(1));
    RecordPlan due = planner.plan(record.input(), STATE_WRITTEN.plus(Duration.ofDays(7)).plusSeconds(1));

    assertThat(waiting.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(waiting.dueAt()).isEqualTo(STATE_WRITTEN.plus(Duration.ofDays(7)));
    assertThat(due.action()).isEqualTo(Action.DELETE_RECORD);
  }

  @Test
  void expiredRecordIsDueAfterExpiresAtPlusGrace() {
    Instant expiresAt = Instant.parse("2025-02-20T00:00:00Z");
    Record record = meeting().expiresAt(expiresAt).files(MINUTES).stored(MINUTES);
    Planner planner = graceOfDays(3);

    RecordPlan waiting = planner.plan(record.input(), expiresAt.plus(Duration.ofDays(2)));
    RecordPlan due = planner.plan(record.input(), expiresAt.plus(Duration.ofDays(3)).plusSeconds(1));

    assertThat(waiting.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(waiting.reason()).isEqualTo("not yet due: grace of 3 days ends at 2025-02-23T00:00:00Z");
    assertThat(due.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(due.reason()).isEqualTo("expired at 2025-02-20T00:00:00Z; grace of 3 days passed");
    assertThat(keys(due)).containsExactly(MINUTES, MEETING_STATE);
  }

  @Test
  void expiredRecordWithoutGraceIsDueOnceExpiresAtHasPassed() {
    Record record = meeting().expiresAt(Instant.parse("2025-02-28T00:00:00Z")).files(MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.reason()).isEqualTo("expired at 2025-02-28T00:00:00Z");
  }

  @Test
  void recordThatExpiresLaterIsLive() {
    Instant expiresAt = Instant.parse("2025-06-01T00:00:00Z");
    Record record = meeting().expiresAt(expiresAt).files(MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.reason()).isEqualTo("live record");
    assertThat(plan.dueAt()).isEqualTo(expiresAt);
  }

  @Test
  void deletedAndExpiredRecordIsDueAtTheEarlierOfItsTwoDueTimes() {
    Record record = meeting().deleteTrue().deletedAt(Instant.parse("2025-02-28T00:00:00Z"))
        .expiresAt(Instant.parse("2025-02-01T00:00:00Z")).files(MINUTES).stored(MINUTES);

    RecordPlan plan = graceOfDays(7).plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.dueAt()).isEqualTo(Instant.parse("2025-02-08T00:00:00Z"));
    assertThat(plan.reason()).isEqualTo("delete: true, expired at 2025-02-01T00:00:00Z; grace of 7 days passed");
  }

  @Test
  void markedAtFieldAloneDoesNotMakeARecordDue() {
    Record record = meeting().deletedAt(Instant.parse("2024-01-01T00:00:00Z")).files(MINUTES).stored(MINUTES);

    assertThat(NO_GRACE.plan(record.input(), NOW).action()).isEqualTo(Action.KEEP);
  }

  @Test
  void removedFilesDoNotWaitForGrace() {
    Record record = meeting().deleteTrue().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES).stored(OLD_SLIDES);

    RecordPlan plan = graceOfDays(30).plan(record.input(), STATE_WRITTEN.plus(Duration.ofDays(1)));

    assertThat(plan.action()).isEqualTo(Action.DELETE_REMOVED_FILES);
    assertThat(plan.reason())
        .isEqualTo("not yet due: grace of 30 days ends at 2025-02-09T03:00:00Z: 1 removed files still exist");
    assertThat(keys(plan)).containsExactly(OLD_SLIDES);
    assertThat(roles(plan)).containsExactly(DeleteRole.REMOVED_FILE);
  }

  @Test
  void liveRecordDeletesItsRemovedFilesThatStillExist() {
    Record record = meeting().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES).stored(OLD_SLIDES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_REMOVED_FILES);
    assertThat(plan.reason()).isEqualTo("live record: 1 removed files still exist");
    assertThat(keys(plan)).containsExactly(OLD_SLIDES).doesNotContain(MEETING_STATE, MINUTES);
  }

  @Test
  void removedFileAlsoInFilesIsKeptForLiveRecord() {
    Record record = meeting().files(MINUTES).removedFiles(MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.reason()).isEqualTo("live record; 1 removed files also in files are kept");
    assertThat(plan.keptKeys()).isEqualTo(1);
  }

  @Test
  void removedFileAlsoInFilesIsKeptWhileTheRecordWaitsForGrace() {
    Record record = meeting().deleteTrue().files(MINUTES).removedFiles(MINUTES).stored(MINUTES);

    RecordPlan plan = graceOfDays(365).plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void missingRemovedFilesAreNotSentForDeletion() {
    // On a versioned bucket a delete of a missing key would add a new delete marker on every run.
    Record record = meeting().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.missingKeys()).isEqualTo(1);
  }

  @Test
  void deleteTrueIsDueAtOnceWithNoGraceEvenWhenTheStoresClockIsAhead() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), record.input().stateObject().lastModified().minusSeconds(30));

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
  }

  @Test
  void missingKeysCountEveryListedKeyThatDoesNotExistForALiveRecordToo() {
    Record record = meeting().files(MINUTES, AUDIO).removedFiles(OLD_SLIDES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.missingKeys()).isEqualTo(2);
    assertThat(plan.keptKeys()).isEqualTo(1);
  }

  @Test
  void missingFilesOfADueRecordAreNotSentForDeletion() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).removedFiles(OLD_SLIDES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(MINUTES, MEETING_STATE);
    assertThat(plan.missingKeys()).isEqualTo(2);
  }

  // ---------------------------------------------------------------- missing <key> (pipeline/README.md, "What a run
  // does")

  @Test
  void liveRecordNamesEachFileTheBucketLacksInDocumentOrder() {
    String agenda = MEETING + "agenda.pdf";
    Record record = meeting().files(MINUTES, AUDIO, agenda, OLD_SLIDES).stored(AUDIO);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.missingFiles()).containsExactly(MINUTES, agenda, OLD_SLIDES);
    assertThat(plan.missingKeys()).isEqualTo(3);
    assertThat(plan.reason()).isEqualTo("live record");
  }

  @Test
  void liveRecordWithRemovedFilesToDeleteNamesItsMissingFilesToo() {
    String removed = MEETING + "attachments/removed.pdf";
    Record record = meeting().files(MINUTES, AUDIO).removedFiles(removed).stored(MINUTES).stored(removed);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_REMOVED_FILES);
    assertThat(keys(plan)).containsExactly(removed);
    assertThat(plan.missingFiles()).containsExactly(AUDIO);
  }

  @Test
  void liveRecordWithAnExpiryStillAheadNamesItsMissingFiles() {
    Record record = meeting().expiresAt(NOW.plus(Duration.ofDays(30))).files(MINUTES, AUDIO).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.missingFiles()).containsExactly(AUDIO);
  }

  @Test
  void keyInFilesAndDeleteFilesOfALiveRecordIsKeptSoItsAbsenceIsAMissingFile() {
    Record record = meeting().files(MINUTES, AUDIO).removedFiles(AUDIO).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.missingFiles()).containsExactly(AUDIO);
  }

  @Test
  void keyOnlyInDeleteFilesWasRemovedOnPurposeSoItIsNotAMissingFile() {
    Record record = meeting().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.missingKeys()).isEqualTo(1);
    assertThat(plan.missingFiles()).isEmpty();
  }

  @Test
  void dueRecordNamesNoMissingFileItIsLeaving() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.missingKeys()).isEqualTo(1);
    assertThat(plan.missingFiles()).isEmpty();
  }

  @Test
  void expiredRecordNamesNoMissingFile() {
    Record record = meeting().expiresAt(NOW.minus(Duration.ofDays(1))).files(MINUTES, AUDIO).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.missingFiles()).isEmpty();
  }

  @Test
  void notYetDueRecordNamesNoMissingFileItIsLeaving() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).stored(MINUTES);

    RecordPlan plan = graceOfDays(365).plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(plan.missingFiles()).isEmpty();
  }

  @Test
  void recordsKeptWholeNameNoMissingFile() {
    Record refused = meeting().files(MINUTES, AUDIO, "cogram/projects/p2/secret.pdf").stored(MINUTES);
    Record bad = meeting().document("{\"delete\": \"yes\", \"files\": [\"" + AUDIO + "\"]}");
    Record comingBack = meeting().deleteTrue().files(MINUTES, AUDIO).stored(MINUTES, STATE_WRITTEN.plusSeconds(60));

    assertThat(NO_GRACE.plan(refused.input(), NOW).action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(NO_GRACE.plan(refused.input(), NOW).missingFiles()).isEmpty();
    assertThat(NO_GRACE.plan(bad.input(), NOW).action()).isEqualTo(Action.BAD_STATE);
    assertThat(NO_GRACE.plan(bad.input(), NOW).missingFiles()).isEmpty();
    assertThat(NO_GRACE.plan(comingBack.input(), NOW).action()).isEqualTo(Action.KEPT_NEWER_FILES);
    assertThat(NO_GRACE.plan(comingBack.input(), NOW).missingFiles()).isEmpty();
  }

  @Test
  void stateFileWrittenAfterTheListingBeganMayListFilesTheListingCouldNotSeeSoTheNextPlanChecksThem() {
    // An inventory report taken before the exporter added AUDIO and rewrote the state file.
    Record record = meeting().files(MINUTES, AUDIO).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW, STATE_WRITTEN.minusSeconds(1));

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.missingFiles()).isEmpty();
    assertThat(plan.missingKeys()).isEqualTo(1);
    assertThat(plan.reason()).isEqualTo("live record; 1 listed files are not in the listing, which began before the"
        + " state file was written: the next plan checks them");
    assertThat(NO_GRACE.plan(record.input(), NOW, STATE_WRITTEN.plusSeconds(1)).missingFiles())
        .containsExactly(AUDIO);
  }

  @Test
  void onlyALivePlanMayNameMissingFiles() {
    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.NOT_YET_DUE, "r", null, List.of(), 1,
        List.of(MINUTES), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not_yet_due plan of " + MEETING_STATE + " must not name missing files: only a live record keeps"
            + " its files");
    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.KEEP, "r", null, List.of(), 1,
        List.of(MINUTES, AUDIO), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("missing files of " + MEETING_STATE + " must be distinct missing keys: [" + MINUTES + ", " + AUDIO
            + "]");
  }

  @Test
  void dueRecordWhoseFilesAreAllGoneDeletesOnlyItsStateFile() {
    RecordPlan plan = NO_GRACE.plan(meeting().deleteTrue().files(MINUTES).input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(keys(plan)).containsExactly(MEETING_STATE);
  }

  @Test
  void duplicatedKeysAreDeduplicated() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO, MINUTES).removedFiles(OLD_SLIDES, AUDIO, OLD_SLIDES)
        .stored(MINUTES).stored(AUDIO).stored(OLD_SLIDES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(MINUTES, AUDIO, OLD_SLIDES, MEETING_STATE);
  }

  @Test
  void duplicatedRemovedFilesOfALiveRecordAreDeletedOnce() {
    Record record = meeting().removedFiles(OLD_SLIDES, OLD_SLIDES).stored(OLD_SLIDES);

    assertThat(keys(NO_GRACE.plan(record.input(), NOW))).containsExactly(OLD_SLIDES);
  }

  @Test
  void ownStateFileListedInFilesIsDeletedOnceAndLast() {
    Record record = meeting().deleteTrue().files(MEETING_STATE, MINUTES).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(MINUTES, MEETING_STATE);
  }

  @Test
  void liveRecordNeverDeletesItsOwnStateFileListedInDeleteFiles() {
    Record record = meeting().files(MINUTES).removedFiles(MEETING_STATE).stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void deletesOnlyWhatTheStateFileLists() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES).newestOwnedFile(AUDIO, BEFORE_STATE);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(MINUTES, MEETING_STATE).doesNotContain(AUDIO);
  }

  @Test
  void removedFileWrittenAfterTheStateFileIsKeptForLiveRecord() {
    Record record = meeting().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES)
        .stored(OLD_SLIDES, STATE_WRITTEN.plusSeconds(60));

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEEP);
    assertThat(plan.reason()).isEqualTo("live record; 1 removed files newer than the state file are kept");
    assertThat(plan.keptKeys()).isEqualTo(2);
  }

  // ---------------------------------------------------------------- grace by kind (--kind-grace-days)

  private static final String EMAIL = "cogram/projects/p1/emails/e1/";
  private static final String EMAIL_STATE = EMAIL + "state.json";
  private static final String EMAIL_BODY = EMAIL + "body.html";
  private static final Instant THREE_DAYS_AGO = NOW.minus(Duration.ofDays(3));

  /** No grace, except a week for meetings. */
  private static final Planner MEETINGS_WAIT_A_WEEK = new Planner(CLASSIFIER, new Grace(0, Map.of("meetings", 7)));

  private static Classification.StateFile stateFile(String key) {
    return (Classification.StateFile) CLASSIFIER.classify(key);
  }

  private static Record email() {
    return record(EMAIL_STATE);
  }

  @Test
  void deletedRecordWaitsForTheGraceOfItsKind() {
    Record record = meeting().deleteTrue().deletedAt(THREE_DAYS_AGO).files(MINUTES).stored(MINUTES);

    RecordPlan plan = MEETINGS_WAIT_A_WEEK.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(plan.dueAt()).isEqualTo(THREE_DAYS_AGO.plus(Duration.ofDays(7)));
    assertThat(plan.reason()).isEqualTo("not yet due: grace of 7 days ends at 2025-03-05T06:00:00Z");
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void recordOfAKindWithoutAnOverrideTakesTheGlobalGrace() {
    Record record = email().deleteTrue().deletedAt(THREE_DAYS_AGO).files(EMAIL_BODY).stored(EMAIL_BODY);

    RecordPlan plan = MEETINGS_WAIT_A_WEEK.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.reason()).isEqualTo("delete: true");
    assertThat(plan.dueAt()).isEqualTo(THREE_DAYS_AGO);
    assertThat(keys(plan)).containsExactly(EMAIL_BODY, EMAIL_STATE);
  }

  @Test
  void recordWithoutAKindTakesTheGlobalGrace() {
    Planner planner = new Planner(CLASSIFIER, new Grace(2, Map.of("meetings", 7)));
    Record record = record(AGENT_STATE).deleteTrue().deletedAt(THREE_DAYS_AGO).files(AGENT_JSON).stored(AGENT_JSON)
        .ownedBy(AGENT_JSON, AGENT_STATE);

    RecordPlan plan = planner.plan(record.input(), NOW);

    assertThat(planner.graceFor(stateFile(AGENT_STATE))).isEqualTo(new Grace.Applied(2, "global"));
    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.reason()).isEqualTo("delete: true; grace of 2 days passed");
    assertThat(plan.dueAt()).isEqualTo(THREE_DAYS_AGO.plus(Duration.ofDays(2)));
  }

  @Test
  void graceForSaysWhichRuleGaveTheGrace() {
    assertThat(MEETINGS_WAIT_A_WEEK.graceFor(stateFile(MEETING_STATE))).isEqualTo(new Grace.Applied(7, "kind meetings"));
    assertThat(MEETINGS_WAIT_A_WEEK.graceFor(stateFile(EMAIL_STATE))).isEqualTo(new Grace.Applied(0, "global"));
    assertThat(MEETINGS_WAIT_A_WEEK.graceFor(stateFile(AGENT_STATE))).isEqualTo(new Grace.Applied(0, "global"));
    assertThat(MEETINGS_WAIT_A_WEEK.graceFor(stateFile(PROJECT_STATE))).isEqualTo(new Grace.Applied(0, "global"));
  }

  @Test
  void kindGraceShorterThanTheGlobalOneMakesItsRecordsDueSooner() {
    Planner planner = new Planner(CLASSIFIER, new Grace(30, Map.of("emails", 0)));
    Record email = email().deleteTrue().deletedAt(THREE_DAYS_AGO).files(EMAIL_BODY).stored(EMAIL_BODY);
    Record meeting = meeting().deleteTrue().deletedAt(THREE_DAYS_AGO).files(MINUTES).stored(MINUTES);

    assertThat(planner.plan(email.input(), NOW).action()).isEqualTo(Action.DELETE_RECORD);
    RecordPlan waiting = planner.plan(meeting.input(), NOW);
    assertThat(waiting.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(waiting.dueAt()).isEqualTo(THREE_DAYS_AGO.plus(Duration.ofDays(30)));
  }

  @Test
  void kindGraceCountsFromExpiresAtToo() {
    Record record = meeting().expiresAt(THREE_DAYS_AGO).files(MINUTES).stored(MINUTES);

    RecordPlan waiting = MEETINGS_WAIT_A_WEEK.plan(record.input(), NOW);
    RecordPlan due = MEETINGS_WAIT_A_WEEK.plan(record.input(), THREE_DAYS_AGO.plus(Duration.ofDays(7)));

    assertThat(waiting.action()).isEqualTo(Action.NOT_YET_DUE);
    assertThat(waiting.dueAt()).isEqualTo(THREE_DAYS_AGO.plus(Duration.ofDays(7)));
    assertThat(due.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(due.reason()).isEqualTo("expired at 2025-02-26T06:00:00Z; grace of 7 days passed");
  }

  @Test
  void removedFilesOfARecordWaitingForItsKindsGraceStillGo() {
    Record record = meeting().deleteTrue().deletedAt(THREE_DAYS_AGO).files(MINUTES).removedFiles(OLD_SLIDES)
        .stored(MINUTES).stored(OLD_SLIDES);

    RecordPlan plan = MEETINGS_WAIT_A_WEEK.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_REMOVED_FILES);
    assertThat(plan.reason())
        .isEqualTo("not yet due: grace of 7 days ends at 2025-03-05T06:00:00Z: 1 removed files still exist");
    assertThat(keys(plan)).containsExactly(OLD_SLIDES);
  }

  @Test
  void graceRefusesAPeriodOutsideZeroTo36500Days() {
    assertThatThrownBy(() -> new Grace(0, Map.of("emails", -1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the grace of kind emails must be from 0 to 36500 days: -1");
    assertThatThrownBy(() -> new Grace(36_501, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the global grace must be from 0 to 36500 days: 36501");
    assertThat(new Grace(36_500, Map.of("emails", 0)).forKind("emails")).isEqualTo(new Grace.Applied(0, "kind emails"));
  }

  @Test
  void plannerWithGraceByKindSurvivesJavaSerialization() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(MEETINGS_WAIT_A_WEEK);
    }
    Planner copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (Planner) in.readObject();
    }

    assertThat(copy.graceFor(stateFile(MEETING_STATE))).isEqualTo(new Grace.Applied(7, "kind meetings"));
    assertThat(copy.graceFor(stateFile(EMAIL_STATE))).isEqualTo(new Grace.Applied(0, "global"));
  }

  // ---------------------------------------------------------------- safety rules (README, "Actions (one per record)")

  @Test
  void keepsRecordWhenAFileIsNewerThanItsStateFile() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).stored(MINUTES)
        .stored(AUDIO, Instant.parse("2025-01-10T03:00:05Z"));

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_NEWER_FILES);
    assertThat(plan.reason()).isEqualTo("the record is coming back: " + AUDIO
        + " (2025-01-10T03:00:05Z) is newer than its state file (2025-01-10T03:00:00Z)");
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.keptKeys()).isEqualTo(2);
  }

  @Test
  void equalTimestampIsNotNewer() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES, STATE_WRITTEN);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(keys(plan)).containsExactly(MINUTES, MEETING_STATE);
  }

  @Test
  void keepsRecordWhenAnUnlistedFileItOwnsIsNewer() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES)
        .newestOwnedFile(AUDIO, STATE_WRITTEN.plusSeconds(1));

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_NEWER_FILES);
    assertThat(plan.reason()).startsWith("the record is coming back: " + AUDIO + " ");
  }

  @Test
  void keepsDueRecordWhenARemovedFileIsNewer() {
    Record record = meeting().deleteTrue().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES)
        .stored(OLD_SLIDES, STATE_WRITTEN.plusSeconds(1));

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_NEWER_FILES);
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void comingBackReasonNamesTheNewestFile() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO)
        .stored(MINUTES, STATE_WRITTEN.plusSeconds(9)).stored(AUDIO, STATE_WRITTEN.plusSeconds(5));

    assertThat(NO_GRACE.plan(record.input(), NOW).reason()).startsWith("the record is coming back: " + MINUTES + " ");
  }

  @Test
  void newerFilesDoNotStopALiveRecordFromLosingItsRemovedFiles() {
    Record record = meeting().files(MINUTES).removedFiles(OLD_SLIDES)
        .stored(MINUTES, STATE_WRITTEN.plusSeconds(60)).stored(OLD_SLIDES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_REMOVED_FILES);
    assertThat(keys(plan)).containsExactly(OLD_SLIDES);
  }

  @Test
  void refusesSingleFileRecordListingAnythingButItsSibling() {
    String otherAgent = "cogram/organization/agents/a2.json";
    Record record = record(AGENT_STATE).deleteTrue().files(AGENT_JSON, otherAgent).stored(AGENT_JSON).stored(otherAgent);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).isEqualTo("refused to delete " + otherAgent
        + ": a1.state.json may list only its sibling " + AGENT_JSON);
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void singleFileRecordMayListItsSibling() {
    Record record = record(AGENT_STATE).deleteTrue().files(AGENT_JSON).stored(AGENT_JSON).ownedBy(AGENT_JSON, AGENT_STATE);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(AGENT_JSON, AGENT_STATE);
  }

  @Test
  void refusesChatMessageListingAFileOfItsChat() {
    String messageState = "cogram/projects/p1/chat/c1/messages/m1.state.json";
    String chatFile = "cogram/projects/p1/chat/c1/messages/m1/image.png";
    Record record = record(messageState).deleteTrue().files(chatFile).stored(chatFile);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).isEqualTo("refused to delete " + chatFile
        + ": m1.state.json may list only its sibling cogram/projects/p1/chat/c1/messages/m1.json");
  }

  @Test
  void refusesKeyOutsideRecordFolder() {
    String otherMeeting = "cogram/projects/p1/meetings/m2/minutes.pdf";
    Record record = meeting().deleteTrue().files(MINUTES, otherMeeting).stored(MINUTES).stored(otherMeeting);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason())
        .isEqualTo("refused to delete " + otherMeeting + ": it is outside the record's folder " + MEETING);
  }

  @Test
  void refusesKeyInAFolderWhoseNameOnlyStartsLikeTheRecordFolder() {
    String lookalike = "cogram/projects/p1/meetings/m10/minutes.pdf";
    Record record = meeting().deleteTrue().files(lookalike).stored(lookalike);

    assertThat(NO_GRACE.plan(record.input(), NOW).reason())
        .isEqualTo("refused to delete " + lookalike + ": it is outside the record's folder " + MEETING);
  }

  @Test
  void refusesKeyInsideAnotherRecordsFolder() {
    Record record = record(PROJECT_STATE).deleteTrue().files(MINUTES).stored(MINUTES).ownedBy(MINUTES, MEETING_STATE);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).isEqualTo(
        "refused to delete " + MINUTES + ": it belongs to another record, whose state file is " + MEETING_STATE);
  }

  @Test
  void refusesSiblingOfAnAgentListedByTheOrganization() {
    Record record = record("cogram/organization/state.json").files(AGENT_JSON).removedFiles(AGENT_JSON)
        .stored(AGENT_JSON).ownedBy(AGENT_JSON, AGENT_STATE);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).endsWith("it belongs to another record, whose state file is " + AGENT_STATE);
  }

  @Test
  void keyOwnedByTheRecordItselfIsAllowed() {
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES).ownedBy(MINUTES, MEETING_STATE);

    assertThat(NO_GRACE.plan(record.input(), NOW).action()).isEqualTo(Action.DELETE_RECORD);
  }

  @Test
  void keyInANestedFolderWithoutAStateFileBelongsToTheEnclosingRecord() {
    String orphan = "cogram/projects/p1/meetings/m9/minutes.pdf";
    Record record = record(PROJECT_STATE).deleteTrue().files(orphan).stored(orphan);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(orphan, PROJECT_STATE);
  }

  @Test
  void refusesKeyThatIsAStateFile() {
    Record record = record(PROJECT_STATE).deleteTrue().files(MEETING_STATE).stored(MEETING_STATE);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).isEqualTo("refused to delete " + MEETING_STATE + ": it is the state file of another record");
  }

  @Test
  void refusesKeyThatIsTheStateFileOfARecordOfAnUnknownKind() {
    String videoState = "cogram/projects/p1/videos/v1/state.json";
    Record record = record(PROJECT_STATE).deleteTrue().files(videoState).stored(videoState);

    assertThat(NO_GRACE.plan(record.input(), NOW).reason())
        .isEqualTo("refused to delete " + videoState + ": it is the state file of another record");
  }

  @Test
  void stateNamedFileUnderAttachmentsIsAFileOfTheRecord() {
    String attachment = "cogram/projects/p1/emails/e1/attachments/state.json";
    String emailState = "cogram/projects/p1/emails/e1/state.json";
    Record record = record(emailState).deleteTrue().files(attachment).stored(attachment);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(keys(plan)).containsExactly(attachment, emailState);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      cogram/projects/p1/meetings/m1//minutes.pdf        | the key has an empty segment
      cogram/projects/p1/meetings/m1/./minutes.pdf       | the key has a '.' segment
      cogram/projects/p1/meetings/m1/../m2/minutes.pdf   | the key has a '..' segment
      cogram/projects/p1/meetings/m1/sub/                | the key ends with a slash (a folder, not an object)
      /cogram/projects/p1/meetings/m1/minutes.pdf        | the key starts with a slash
      """)
  void refusesEmptyAndDotSegments(String key, String problem) {
    Record record = meeting().deleteTrue().files(MINUTES, key).stored(MINUTES).stored(key);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).isEqualTo("refused to delete " + key + ": " + problem);
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void refusesAnEmptyKey() {
    Record record = meeting().deleteTrue().files(MINUTES, "").stored(MINUTES);

    assertThat(NO_GRACE.plan(record.input(), NOW).reason()).isEqualTo("refused to delete : the key is empty");
  }

  @Test
  void refusesKeyOutsidePrefix() {
    String outside = "backup/projects/p1/meetings/m1/minutes.pdf";
    Record record = meeting().deleteTrue().files(MINUTES, outside).stored(MINUTES).stored(outside);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).isEqualTo("refused to delete " + outside + ": it is outside the export prefix cogram/");
  }

  @Test
  void refusesKeyInExporterFolder() {
    String exporterFile = "cogram/_cogram/runs/2025-01-10.json";
    Record record = meeting().deleteTrue().files(MINUTES, exporterFile).stored(MINUTES).stored(exporterFile);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason())
        .isEqualTo("refused to delete " + exporterFile + ": it is inside the exporter's own folder cogram/_cogram/");
  }

  @Test
  void badStateIsKeptWholeAndNeverDeletedOn() {
    Record record = meeting().document("{\"delete\": \"yes\", \"files\": [\"" + MINUTES + "\"]}").stored(MINUTES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.BAD_STATE);
    assertThat(plan.reason())
        .isEqualTo("Invalid state file " + MEETING_STATE + ": field delete is not a boolean but a string (\"yes\")");
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.keptKeys()).isEqualTo(1);
  }

  @Test
  void stateFileThatIsNotJsonIsKeptWhole() {
    RecordPlan plan = NO_GRACE.plan(meeting().document("delete: true").input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.BAD_STATE);
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void refusedRecordKeepsItsRemovedFilesToo() {
    String outside = "cogram/projects/p2/minutes.pdf";
    Record record = meeting().files(MINUTES, outside).removedFiles(OLD_SLIDES)
        .stored(MINUTES).stored(outside).stored(OLD_SLIDES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.keptKeys()).isEqualTo(3);
  }

  @Test
  void refusedRemovedFileKeepsAWholeDueRecord() {
    String outside = "cogram/projects/p2/minutes.pdf";
    Record record = meeting().deleteTrue().files(MINUTES).removedFiles(outside).stored(MINUTES).stored(outside);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.KEPT_REFUSED);
    assertThat(plan.reason()).startsWith("refused to delete " + outside + ": ");
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void refusalWinsOverNewerFiles() {
    String outside = "cogram/projects/p2/minutes.pdf";
    Record record = meeting().deleteTrue().files(MINUTES, outside)
        .stored(MINUTES, STATE_WRITTEN.plusSeconds(1)).stored(outside);

    assertThat(NO_GRACE.plan(record.input(), NOW).action()).isEqualTo(Action.KEPT_REFUSED);
  }

  @Test
  void refusalDoesNotDependOnWhetherTheKeyExists() {
    String outside = "cogram/projects/p2/minutes.pdf";
    Record record = meeting().deleteTrue().files(MINUTES, outside).stored(MINUTES);

    assertThat(NO_GRACE.plan(record.input(), NOW).action()).isEqualTo(Action.KEPT_REFUSED);
  }

  // ---------------------------------------------------------------- counts

  @Test
  void bytesToDeleteCountEveryPlannedObjectIncludingTheStateFile() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).removedFiles(OLD_SLIDES)
        .stored(MINUTES, BEFORE_STATE, 1_000).stored(AUDIO, BEFORE_STATE, 20_000).stored(OLD_SLIDES, BEFORE_STATE, 300);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.bytesToDelete()).isEqualTo(1_000 + 20_000 + 300 + 100);
  }

  @Test
  void childKeysAreTheDeletesOtherThanTheStateFile() {
    Record record = meeting().deleteTrue().files(MINUTES, AUDIO).removedFiles(OLD_SLIDES)
        .stored(MINUTES).stored(AUDIO).stored(OLD_SLIDES);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.deletes()).hasSize(4);
    assertThat(plan.childKeysToDelete()).isEqualTo(3);
  }

  @Test
  void removedFilesPlanCountsOnlyTheRemovedFiles() {
    Record record = meeting().files(MINUTES).removedFiles(OLD_SLIDES).stored(MINUTES, BEFORE_STATE, 1_000)
        .stored(OLD_SLIDES, BEFORE_STATE, 300);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.childKeysToDelete()).isEqualTo(1);
    assertThat(plan.bytesToDelete()).isEqualTo(300);
  }

  @Test
  void liveRecordCountsItsExistingFilesAsKept() {
    Record record = meeting().files(MINUTES, AUDIO, OLD_SLIDES).stored(MINUTES).stored(AUDIO);

    RecordPlan plan = NO_GRACE.plan(record.input(), NOW);

    assertThat(plan.keptKeys()).isEqualTo(2);
  }

  // ---------------------------------------------------------------- RecordPlan invariants

  private static PlannedDelete delete(String key, DeleteRole role) {
    return new PlannedDelete(object(key, BEFORE_STATE, 1), role);
  }

  @Test
  void deleteRecordPlanMustEndWithItsStateFile() {
    List<PlannedDelete> deletes = List.of(delete(MINUTES, DeleteRole.FILE));

    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.DELETE_RECORD, "r", null, deletes, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("delete_record plan of " + MEETING_STATE + " must end with its state file");
  }

  @Test
  void stateFileMustBeTheLastDeleteOfItsRecord() {
    List<PlannedDelete> deletes = List.of(delete(MEETING_STATE, DeleteRole.STATE_FILE), delete(MINUTES, DeleteRole.FILE));

    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.DELETE_RECORD, "r", null, deletes, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the state file of " + MEETING_STATE + " must be the last delete of its own record");
  }

  @Test
  void removedFilesPlanMustNotDeleteTheStateFile() {
    List<PlannedDelete> deletes = List.of(delete(OLD_SLIDES, DeleteRole.REMOVED_FILE), delete(MEETING_STATE, DeleteRole.STATE_FILE));

    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.DELETE_REMOVED_FILES, "r", null, deletes, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the state file of " + MEETING_STATE + " must be the last delete of its own record");
  }

  @Test
  void planMustNotDeleteAnotherRecordsStateFileAsItsOwn() {
    List<PlannedDelete> deletes = List.of(delete(MINUTES, DeleteRole.FILE), delete(PROJECT_STATE, DeleteRole.STATE_FILE));

    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.DELETE_RECORD, "r", null, deletes, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the state file of " + MEETING_STATE + " must be the last delete of its own record");
  }

  @Test
  void keepingPlanMustNotDeleteAnything() {
    List<PlannedDelete> deletes = List.of(delete(MINUTES, DeleteRole.FILE));

    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.KEPT_REFUSED, "r", null, deletes, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("kept_refused plan of " + MEETING_STATE + " must not delete anything");
  }

  @Test
  void deletingPlanMustDeleteSomething() {
    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.DELETE_REMOVED_FILES, "r", null, List.of(), 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("delete_removed_files plan of " + MEETING_STATE + " has no key to delete");
  }

  @Test
  void planCountsMustNotBeNegative() {
    assertThatThrownBy(() -> new RecordPlan(MEETING_STATE, Action.KEEP, "r", null, List.of(), -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counts must not be negative");
  }

  // ---------------------------------------------------------------- inputs

  @Test
  void plannerRejectsANegativeGrace() {
    assertThatThrownBy(() -> new Planner(CLASSIFIER, Duration.ofDays(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("grace must not be negative: PT-24H");
  }

  @Test
  void plannerRejectsAGraceThatIsNotWholeDaysRatherThanShortenIt() {
    assertThatThrownBy(() -> new Planner(CLASSIFIER, Duration.ofHours(36)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("grace must be whole days: PT36H");
  }

  @Test
  void recordInputRejectsTheObjectOfAnotherKeyAsItsStateFile() {
    Classification.StateFile stateFile = (Classification.StateFile) CLASSIFIER.classify(MEETING_STATE);
    ParsedState parsed = PARSER.parse(MEETING_STATE, "{}".getBytes(StandardCharsets.UTF_8));
    StoredObject other = object(PROJECT_STATE, STATE_WRITTEN, 1);

    assertThatThrownBy(() -> new RecordInput(stateFile, other, parsed, Map.of(), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("state object " + PROJECT_STATE + " is not the state file " + MEETING_STATE);
  }

  @Test
  void plannerSurvivesJavaSerialization() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(graceOfDays(7));
    }
    Planner copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (Planner) in.readObject();
    }
    Record record = meeting().deleteTrue().files(MINUTES).stored(MINUTES);

    RecordPlan plan = copy.plan(record.input(), NOW);

    assertThat(plan.action()).isEqualTo(Action.DELETE_RECORD);
    assertThat(plan.dueAt()).isEqualTo(STATE_WRITTEN.plus(Duration.ofDays(7)));
  }
}
