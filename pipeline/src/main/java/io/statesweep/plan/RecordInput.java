package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.state.ParsedState;
import io.statesweep.store.StoredObject;
import java.util.Map;

/**
 * Everything the planner knows of one record.
 *
 * @param stateFile where the state file stands and which record it describes
 * @param stateObject the state file as it was read (its ETag and LastModified)
 * @param parsed its document, or why it is bad
 * @param listedKeys every key that {@code files} or {@code delete_files} names, by key; keys missing
 *     here count as not existing with no owner
 * @param newestOwnedFile the newest existing object that the record owns (in its folder and not in a
 *     nested record's, or its {@code <id>.json}), state files excluded; null when it owns none
 */
public record RecordInput(
    Classification.StateFile stateFile,
    StoredObject stateObject,
    ParsedState parsed,
    Map<String, ListedKey> listedKeys,
    StoredObject newestOwnedFile) {
  public RecordInput {
    requireNonNull(stateFile, "stateFile is null");
    requireNonNull(stateObject, "stateObject is null");
    requireNonNull(parsed, "parsed is null");
    listedKeys = Map.copyOf(requireNonNull(listedKeys, "listedKeys is null"));
    if (!stateFile.key().equals(stateObject.key())) {
      throw new IllegalArgumentException(
          "state object " + stateObject.key() + " is not the state file " + stateFile.key());
    }
  }

  public String stateFileKey() {
    return stateFile.key();
  }

  ListedKey listed(String key) {
    ListedKey listed = listedKeys.get(key);
    return listed != null ? listed : new ListedKey(key, null, null);
  }
}
