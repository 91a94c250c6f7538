package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.StoredObject;
import java.util.List;
import java.util.Set;

/**
 * One record of a written plan, as execution reads it back: its state file as planned, its keys to
 * delete in order (the state file last, for {@link Action#DELETE_RECORD}), and every key its state
 * file lists ({@code files} and {@code delete_files}, as read when planned: the state file's ETag
 * vouches that they have not changed since).
 */
public record PlannedRecord(Action action, StoredObject stateFile, List<PlannedDelete> deletes,
    Set<String> listedKeys) {

  /** A plan whose state file lists exactly the planned keys. */
  public PlannedRecord(Action action, StoredObject stateFile, List<PlannedDelete> deletes) {
    this(action, stateFile, deletes, plannedFiles(deletes));
  }

  public PlannedRecord {
    requireNonNull(action, "action is null");
    requireNonNull(stateFile, "stateFile is null");
    deletes = List.copyOf(deletes);
    listedKeys = Set.copyOf(requireNonNull(listedKeys, "listedKeys is null"));
    if (action != Action.DELETE_RECORD && action != Action.DELETE_REMOVED_FILES) {
      throw new IllegalArgumentException("nothing to execute for a " + action.label() + " record: " + stateFile.key());
    }
    for (int i = 0; i < deletes.size(); i++) {
      PlannedDelete delete = deletes.get(i);
      boolean last = i == deletes.size() - 1;
      if (delete.role() == DeleteRole.STATE_FILE
          && (!last || action != Action.DELETE_RECORD || !delete.key().equals(stateFile.key()))) {
        throw new IllegalArgumentException("the plan of " + stateFile.key() + " has its state file out of place");
      }
    }
  }

  private static Set<String> plannedFiles(List<PlannedDelete> deletes) {
    Set<String> keys = new java.util.LinkedHashSet<>();
    for (PlannedDelete delete : deletes) {
      if (delete.role() != DeleteRole.STATE_FILE) {
        keys.add(delete.key());
      }
    }
    return keys;
  }

  public String stateFileKey() {
    return stateFile.key();
  }

  /** The planned keys other than the state file. */
  public List<PlannedDelete> files() {
    return deletes.stream().filter(delete -> delete.role() != DeleteRole.STATE_FILE).toList();
  }
}
