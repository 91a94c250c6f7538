package io.statesweep.spark.rows;

import io.statesweep.execute.PlannedRecord;
import io.statesweep.execute.PlannedRow;
import io.statesweep.layout.Keys;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.store.StoredObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code deletion_plan} row as execution takes it: the record it plans, or why it cannot be executed, naming
 * the field (pipeline/README.md "Deleting"). The table is data that anyone who can write it could change; a row it
 * cannot execute costs only the record it names, so this never throws.
 *
 * <p>Execution uses the row's {@code state_file_key}, {@code action}, {@code state_etag},
 * {@code state_last_modified} and {@code deletes} (each delete's key, etag, last_modified, size and role):
 * each must be set, labels exactly as a plan writes them, and a {@code delete_record} row's state file its
 * last delete, at the row's key and ETag. The other columns (counts, reason, grace, ids) are for the review and
 * may hold anything: execution makes the planner's decision again.
 */
public final class PlanRows {
  private static final List<Action> EXECUTED = List.of(Action.DELETE_RECORD, Action.DELETE_REMOVED_FILES);

  private PlanRows() {}

  public static PlannedRow read(PlanRow row) {
    String stateFileKey = row.getStateFileKey();
    Action action = executedAction(row.getAction());
    Action outcomeAction = action == null ? Action.KEPT_REFUSED : action;
    if (stateFileKey == null || stateFileKey.isEmpty()) {
      return new PlannedRow.Refused("", outcomeAction, "refused to delete anything for a plan row that names no"
          + " state file: field state_file_key is " + (stateFileKey == null ? "null" : "empty"));
    }
    String refusal = "refused to delete " + stateFileKey + ": its plan row cannot be executed: ";
    String problem = problem(row, action);
    if (problem != null) {
      return new PlannedRow.Refused(stateFileKey, outcomeAction, refusal + "field " + problem);
    }
    try {
      StoredObject stateFile = new StoredObject(stateFileKey, row.getStateEtag(),
          row.getStateLastModified().toInstant(), 0L);
      List<PlannedDelete> deletes = new ArrayList<>(row.getDeletes().size());
      for (DeleteRow delete : row.getDeletes()) {
        deletes.add(new PlannedDelete(new StoredObject(delete.getKey(), delete.getEtag(),
            delete.getLastModified().toInstant(), delete.getSize()), role(delete.getRole())));
      }
      return new PlannedRow.Executable(new PlannedRecord(action, stateFile, deletes));
    } catch (RuntimeException e) {
      // What the checks below do not foresee still costs only this record.
      return new PlannedRow.Refused(stateFileKey, outcomeAction, refusal + e.getMessage());
    }
  }

  /** The first field execution cannot take, with why ({@code deletes[2].etag is null}); null when none. */
  private static String problem(PlanRow row, Action action) {
    String keyProblem = textProblem(row.getStateFileKey());
    if (keyProblem != null) {
      return "state_file_key " + keyProblem;
    }
    if (action == null) {
      return row.getAction() == null ? "action is null"
          : "action is not delete_record or delete_removed_files: " + quote(row.getAction());
    }
    String etagProblem = textProblem(row.getStateEtag());
    if (etagProblem != null) {
      return "state_etag " + etagProblem;
    }
    if (row.getStateLastModified() == null) {
      return "state_last_modified is null";
    }
    List<DeleteRow> deletes = row.getDeletes();
    if (deletes == null) {
      return "deletes is null";
    }
    for (int i = 0; i < deletes.size(); i++) {
      String problem = deleteProblem(row, action, deletes, i);
      if (problem != null) {
        return problem;
      }
    }
    if (action == Action.DELETE_RECORD) {
      if (deletes.isEmpty()) {
        return "deletes is empty, but a delete_record row deletes its state file last";
      }
      String lastRole = deletes.get(deletes.size() - 1).getRole();
      if (!DeleteRole.STATE_FILE.label().equals(lastRole)) {
        return "deletes[" + (deletes.size() - 1) + "].role is " + lastRole
            + ", but the last delete of a delete_record row is its state file";
      }
    }
    return null;
  }

  private static String deleteProblem(PlanRow row, Action action, List<DeleteRow> deletes, int i) {
    String field = "deletes[" + i + "]";
    DeleteRow delete = deletes.get(i);
    if (delete == null) {
      return field + " is null";
    }
    String keyProblem = textProblem(delete.getKey());
    if (keyProblem != null) {
      return field + ".key " + keyProblem;
    }
    String etagProblem = textProblem(delete.getEtag());
    if (etagProblem != null) {
      return field + ".etag " + etagProblem;
    }
    if (delete.getLastModified() == null) {
      return field + ".last_modified is null";
    }
    if (delete.getSize() == null) {
      return field + ".size is null";
    }
    if (delete.getSize() < 0) {
      return field + ".size is negative: " + delete.getSize();
    }
    DeleteRole role = role(delete.getRole());
    if (role == null) {
      return field + ".role " + (delete.getRole() == null ? "is null"
          : "is not file, removed_file or state_file: " + quote(delete.getRole()));
    }
    if (role != DeleteRole.STATE_FILE) {
      return null;
    }
    if (action != Action.DELETE_RECORD) {
      return field + ".role is state_file, but a " + action.label() + " row never deletes its state file";
    }
    if (i != deletes.size() - 1) {
      return field + ".role is state_file, but only the last delete of a row is its state file";
    }
    if (!delete.getKey().equals(row.getStateFileKey())) {
      return field + ".key differs from the row's state_file_key";
    }
    if (!delete.getEtag().equals(row.getStateEtag())) {
      return field + ".etag differs from the row's state_etag";
    }
    return null;
  }

  /** Why a key or ETag cannot be used (null, empty, or not valid Unicode: an encoder would send another key). */
  private static String textProblem(String text) {
    if (text == null) {
      return "is null";
    }
    if (text.isEmpty()) {
      return "is empty";
    }
    int lone = Keys.firstLoneSurrogate(text);
    return lone < 0 ? null : "is not valid Unicode: a lone surrogate " + String.format("\\u%04x", (int) text.charAt(lone))
        + " at character " + lone;
  }

  /** The action of a row that execution executes, by its exact label; null for any other value. */
  private static Action executedAction(String label) {
    return EXECUTED.stream().filter(action -> action.label().equals(label)).findFirst().orElse(null);
  }

  /** The role of its exact label, or null. */
  private static DeleteRole role(String label) {
    for (DeleteRole role : DeleteRole.values()) {
      if (role.label().equals(label)) {
        return role;
      }
    }
    return null;
  }

  private static String quote(String text) {
    return "\"" + (text.length() > 60 ? text.substring(0, Character.isHighSurrogate(text.charAt(59)) ? 59 : 60) + "..."
        : text) + "\"";
  }
}
