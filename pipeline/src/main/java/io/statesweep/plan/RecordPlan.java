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
 * @param missingFiles the keys of a live record's {@code files} that do not exist, in document order:
 * files the record still has that are lost (pipeline/README.md, "What a run does": {@code missing <key>: listed by live
 * record <state file>}); empty for every other record, and for a live record whose state file is newer than the listing
 * @param keptKeys listed keys that exist and are kept (a live record's files, refused or newer keys)
 */
public record RecordPlan(
    String stateFileKey,
    Action action,
    String reason,
    Instant dueAt,
    List<PlannedDelete> deletes,
    int missingKeys,
    List<String> missingFiles,
    int keptKeys) {

  public RecordPlan {
    requireNonNull(stateFileKey, "stateFileKey is null");
    requireNonNull(action, "action is null");
    requireNonNull(reason, "reason is null");
    deletes = List.copyOf(deletes);
    missingFiles = List.copyOf(requireNonNull(missingFiles, "missingFiles is null"));
    if (missingKeys < 0 || keptKeys < 0) {
      throw new IllegalArgumentException("counts must not be negative");
    }
    if (!missingFiles.isEmpty() && action != Action.KEEP && action != Action.DELETE_REMOVED_FILES) {
      throw new IllegalArgumentException(action.label() + " plan of " + stateFileKey
          + " must not name missing files: only a live record keeps its files");
    }
    if (missingFiles.size() > missingKeys || missingFiles.stream().distinct().count() < missingFiles.size()) {
      throw new IllegalArgumentException("missing files of " + stateFileKey + " must be distinct missing keys: "
          + missingFiles);
    }
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
  }

  /** A plan that names no missing file of a live record. */
  public RecordPlan(String stateFileKey, Action action, String reason, Instant dueAt, List<PlannedDelete> deletes,
      int missingKeys, int keptKeys) {
    this(stateFileKey, action, reason, dueAt, deletes, missingKeys, List.of(), keptKeys);
  }

  /** Keys other than the state file: the contract's child keys. */
  public long childKeysToDelete() {
    return deletes.stream().filter(delete -> delete.role() != DeleteRole.STATE_FILE).count();
  }

  public long bytesToDelete() {
    return deletes.stream().mapToLong(delete -> delete.object().size()).sum();
  }
}
