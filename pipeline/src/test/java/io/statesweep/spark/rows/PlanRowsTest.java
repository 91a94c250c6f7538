package io.statesweep.spark.rows;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.execute.PlannedRecord;
import io.statesweep.execute.PlannedRow;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.store.StoredObject;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A deletion_plan row as execution takes it: the record it plans, or refused naming the field (pipeline/README.md
 * "Deleting"). */
class PlanRowsTest {
  private static final String FOLDER = "cogram/projects/p1/documents/d1/";
  private static final String STATE = FOLDER + "state.json";
  private static final String DOC = FOLDER + "doc.pdf";
  private static final String PAGE = FOLDER + "page.png";
  private static final Instant STATE_TIME = Instant.parse("2026-06-01T03:00:00Z");
  private static final Instant FILE_TIME = Instant.parse("2026-05-30T10:00:00.123Z");
  private static final String REFUSED = "refused to delete " + STATE + ": its plan row cannot be executed: field ";

  @Test
  void aRowAsThePlanWritesItIsTheRecordItPlans() {
    assertThat(PlanRows.read(dueRow())).isEqualTo(new PlannedRow.Executable(new PlannedRecord(Action.DELETE_RECORD,
        new StoredObject(STATE, "\"e-state\"", STATE_TIME, 0), List.of(
            new PlannedDelete(new StoredObject(DOC, "\"e-doc\"", FILE_TIME, 3), DeleteRole.FILE),
            new PlannedDelete(new StoredObject(PAGE, "\"e-page\"", FILE_TIME, 4), DeleteRole.FILE),
            new PlannedDelete(new StoredObject(STATE, "\"e-state\"", STATE_TIME, 120), DeleteRole.STATE_FILE)))));
    PlanRow removed = removedFilesRow();
    assertThat(PlanRows.read(removed)).isEqualTo(new PlannedRow.Executable(new PlannedRecord(
        Action.DELETE_REMOVED_FILES, new StoredObject(STATE, "\"e-state\"", STATE_TIME, 0), List.of(
            new PlannedDelete(new StoredObject(PAGE, "\"e-page\"", FILE_TIME, 4), DeleteRole.REMOVED_FILE)))));
  }

  /** Execution makes the planner's decision again: the columns of the review may hold anything. */
  @Test
  void theColumnsExecutionDoesNotUseMayBeNull() {
    PlanRow row = dueRow();
    row.setRunId(null);
    row.setRunDate(null);
    row.setRecordType(null);
    row.setKind(null);
    row.setIds(null);
    row.setReason(null);
    row.setDueAt(null);
    row.setGraceDays(null);
    row.setGraceRule(null);
    row.setKeysToDelete(null);
    row.setChildKeysToDelete(null);
    row.setBytesToDelete(null);
    row.setMissingKeys(null);
    row.setMissingFiles(null);
    row.setKeptKeys(null);
    row.setPlannedAt(null);

    assertThat(PlanRows.read(row)).isEqualTo(PlanRows.read(dueRow())).isInstanceOf(PlannedRow.Executable.class);
  }

  static Stream<Arguments> malformedRows() {
    return Stream.of(
        malformed(row -> row.setAction(null), "action is null"),
        malformed(row -> row.setAction("keep"), "action is not delete_record or delete_removed_files: \"keep\""),
        malformed(row -> row.setAction("DELETE_RECORD"),
            "action is not delete_record or delete_removed_files: \"DELETE_RECORD\""),
        malformed(row -> row.setAction("x".repeat(100)),
            "action is not delete_record or delete_removed_files: \"" + "x".repeat(60) + "...\""),
        malformed(row -> row.setStateEtag(null), "state_etag is null"),
        malformed(row -> row.setStateEtag(""), "state_etag is empty"),
        malformed(row -> row.setStateLastModified(null), "state_last_modified is null"),
        malformed(row -> row.setDeletes(null), "deletes is null"),
        malformed(row -> row.setDeletes(new ArrayList<>()),
            "deletes is empty, but a delete_record row deletes its state file last"),
        malformed(row -> row.getDeletes().set(1, null), "deletes[1] is null"),
        malformed(row -> row.getDeletes().get(1).setKey(null), "deletes[1].key is null"),
        malformed(row -> row.getDeletes().get(1).setKey(""), "deletes[1].key is empty"),
        malformed(row -> row.getDeletes().get(1).setKey(FOLDER + "a\ud800b.pdf"),
            "deletes[1].key is not valid Unicode: a lone surrogate \\ud800 at character 33"),
        malformed(row -> row.getDeletes().get(1).setEtag(null), "deletes[1].etag is null"),
        malformed(row -> row.getDeletes().get(1).setEtag(""), "deletes[1].etag is empty"),
        malformed(row -> row.getDeletes().get(1).setLastModified(null), "deletes[1].last_modified is null"),
        malformed(row -> row.getDeletes().get(1).setSize(null), "deletes[1].size is null"),
        malformed(row -> row.getDeletes().get(1).setSize(-1L), "deletes[1].size is negative: -1"),
        malformed(row -> row.getDeletes().get(1).setRole(null), "deletes[1].role is null"),
        malformed(row -> row.getDeletes().get(1).setRole("FILE"),
            "deletes[1].role is not file, removed_file or state_file: \"FILE\""),
        malformed(row -> row.getDeletes().get(1).setRole("everything"),
            "deletes[1].role is not file, removed_file or state_file: \"everything\""),
        malformed(row -> Collections.reverse(row.getDeletes()),
            "deletes[0].role is state_file, but only the last delete of a row is its state file"),
        malformed(row -> row.getDeletes().get(2).setKey(FOLDER + "other.state.json"),
            "deletes[2].key differs from the row's state_file_key"),
        malformed(row -> row.getDeletes().get(2).setEtag("\"e-other\""),
            "deletes[2].etag differs from the row's state_etag"),
        malformed(row -> row.getDeletes().remove(2),
            "deletes[1].role is file, but the last delete of a delete_record row is its state file"),
        malformed(row -> row.getDeletes().get(2).setRole("file"),
            "deletes[2].role is file, but the last delete of a delete_record row is its state file"),
        malformed(row -> {
          row.setAction("delete_removed_files");
          row.getDeletes().forEach(delete -> delete.setRole(delete.getRole().equals("file") ? "removed_file"
              : delete.getRole()));
        }, "deletes[2].role is state_file, but a delete_removed_files row never deletes its state file"),
        malformed(row -> row.setStateFileKey(FOLDER + "\udc00state.json"),
            "state_file_key is not valid Unicode: a lone surrogate \\udc00 at character 32"));
  }

  private static Arguments malformed(Consumer<PlanRow> change, String field) {
    return Arguments.of(field, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedRows")
  void aMalformedRowIsRefusedNamingItsField(String field, Consumer<PlanRow> change) {
    PlanRow row = dueRow();
    change.accept(row);

    PlannedRow read = PlanRows.read(row);

    String key = row.getStateFileKey();
    Action action = row.getAction() == null ? Action.KEPT_REFUSED : switch (row.getAction()) {
      case "delete_record" -> Action.DELETE_RECORD;
      case "delete_removed_files" -> Action.DELETE_REMOVED_FILES;
      default -> Action.KEPT_REFUSED;
    };
    assertThat(read).isEqualTo(new PlannedRow.Refused(key, action, "refused to delete " + key
        + ": its plan row cannot be executed: field " + field));
  }

  @Test
  void aRowThatNamesNoStateFileIsRefusedUnderAnEmptyKey() {
    PlanRow withoutKey = dueRow();
    withoutKey.setStateFileKey(null);
    PlanRow emptyKey = dueRow();
    emptyKey.setStateFileKey("");

    assertThat(PlanRows.read(withoutKey)).isEqualTo(new PlannedRow.Refused("", Action.DELETE_RECORD,
        "refused to delete anything for a plan row that names no state file: field state_file_key is null"));
    assertThat(PlanRows.read(emptyKey)).isEqualTo(new PlannedRow.Refused("", Action.DELETE_RECORD,
        "refused to delete anything for a plan row that names no state file: field state_file_key is empty"));
    assertThat(PlanRows.read(new PlanRow())).isEqualTo(new PlannedRow.Refused("", Action.KEPT_REFUSED,
        "refused to delete anything for a plan row that names no state file: field state_file_key is null"));
  }

  @Test
  void aRefusedRowsOutcomeIsKeptRefusedWithNothingDeleted() {
    PlanRow row = dueRow();
    row.getDeletes().get(0).setEtag(null);
    Instant at = Instant.parse("2026-06-02T00:00:00Z");

    ExecutionOutcome outcome = ((PlannedRow.Refused) PlanRows.read(row)).outcome(at);

    assertThat(outcome).isEqualTo(new ExecutionOutcome(STATE, Action.DELETE_RECORD, Outcome.KEPT_REFUSED,
        REFUSED + "deletes[0].etag is null", 0, false, 0, List.of(), at, at, List.of(), null));
  }

  private static PlanRow dueRow() {
    PlanRow row = new PlanRow();
    row.setRunId("20260602T000000Z-abcdef");
    row.setRunDate("2026-06-02");
    row.setStateFileKey(STATE);
    row.setRecordType("project_record");
    row.setKind("documents");
    row.setIds(Map.of("project", "p1", "kind", "documents", "record", "d1"));
    row.setAction("delete_record");
    row.setReason("delete: true");
    row.setDueAt(Timestamp.from(STATE_TIME));
    row.setGraceDays(0);
    row.setGraceRule("global");
    row.setStateEtag("\"e-state\"");
    row.setStateLastModified(Timestamp.from(STATE_TIME));
    row.setDeletes(new ArrayList<>(List.of(delete(DOC, "\"e-doc\"", FILE_TIME, 3, "file"),
        delete(PAGE, "\"e-page\"", FILE_TIME, 4, "file"), delete(STATE, "\"e-state\"", STATE_TIME, 120, "state_file"))));
    row.setKeysToDelete(3L);
    row.setChildKeysToDelete(2L);
    row.setBytesToDelete(127L);
    row.setMissingKeys(0);
    row.setMissingFiles(List.of());
    row.setKeptKeys(0);
    row.setPlannedAt(Timestamp.from(STATE_TIME.plusSeconds(86_400)));
    return row;
  }

  private static PlanRow removedFilesRow() {
    PlanRow row = dueRow();
    row.setAction("delete_removed_files");
    row.setDeletes(new ArrayList<>(List.of(delete(PAGE, "\"e-page\"", FILE_TIME, 4, "removed_file"))));
    return row;
  }

  private static DeleteRow delete(String key, String etag, Instant lastModified, long size, String role) {
    DeleteRow delete = new DeleteRow();
    delete.setKey(key);
    delete.setEtag(etag);
    delete.setLastModified(Timestamp.from(lastModified));
    delete.setSize(size);
    delete.setRole(role);
    return delete;
  }
}
