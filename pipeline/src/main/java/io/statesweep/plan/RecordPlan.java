package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * The planner's decision for one record. {@code deletes} is in execution order: files and removed
 * files first, the state file (only for {@link Action#DELETE_RECORD}) last.
 *
 * @param stateFileKey the record's state file
 * @param action what to do
 * @param reason why, in words a person can act on
 * @param dueAt when the record is or becomes due (null for a live record)
 * @param deletes the keys to delete, each with the version seen
 * @param missingKeys listed keys that do not exist (noted, never sent for deletion)
 * @param keptKeys listed keys that exist and are kept (a live record's files, refused or newer keys)
 */
public record RecordPlan(
    String stateFileKey,
    Action action,
    String reason,
    Instant dueAt,
    List<PlannedDelete> deletes,
    int missingKeys,
    int keptKeys) {

  public RecordPlan {
    requireNonNull(stateFileKey, "stateFileKey is null");
    requireNonNull(action, "action is null");
    requireNonNull(reason, "reason is null");
    deletes = List.copyOf(deletes);
    boolean deletesSomething = !deletes.isEmpty();
    boolean mayDelete = action == Action.DELETE_RECORD || action == Action.DELETE_REMOVED_FILES;
    if (deletesSomething != mayDelete) {
      throw new IllegalArgumentException(action.label() + " plan of " + stateFileKey
          + (mayDelete ? " has no key to delete" : " must not delete anything"));
    }
    for (int i = 0; i < deletes.size(); i++) {
      boolean isStateFile = deletes.get(i).role() == DeleteRole.STATE_FILE;
      boolean last = i == deletes.size() - 1;
      if (isStateFile && (!last || action != Action.DELETE_RECORD || !deletes.get(i).key().equals(stateFileKey))) {
        throw new IllegalArgumentException("the state file of " + stateFileKey + " must be the last delete of its own record");
      }
      if (last && action == Action.DELETE_RECORD && !isStateFile) {
        throw new IllegalArgumentException("delete_record plan of " + stateFileKey + " must end with its state file");
      }
    }
    if (missingKeys < 0 || keptKeys < 0) {
      throw new IllegalArgumentException("counts must not be negative");
    }
  }

  /** Keys other than the state file: the contract's child keys. */
  public long childKeysToDelete() {
    return deletes.stream().filter(delete -> delete.role() != DeleteRole.STATE_FILE).count();
  }

  public long bytesToDelete() {
    return deletes.stream().mapToLong(delete -> delete.object().size()).sum();
  }
}
