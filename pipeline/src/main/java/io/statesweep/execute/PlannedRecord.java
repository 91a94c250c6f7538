package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.store.StoredObject;
import java.util.List;

/**
 * One record of a written plan, as execution reads it back: its state file as planned and its keys to
 * delete in order (the state file last, for {@link Action#DELETE_RECORD}). Nothing else of the plan
 * is trusted: execution reads the state document again and makes the decision again.
 */
public record PlannedRecord(Action action, StoredObject stateFile, List<PlannedDelete> deletes) {

  public PlannedRecord {
    requireNonNull(action, "action is null");
    requireNonNull(stateFile, "stateFile is null");
    deletes = List.copyOf(deletes);
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

  public String stateFileKey() {
    return stateFile.key();
  }

  /** The planned keys other than the state file. */
  public List<PlannedDelete> files() {
    return deletes.stream().filter(delete -> delete.role() != DeleteRole.STATE_FILE).toList();
  }
}
