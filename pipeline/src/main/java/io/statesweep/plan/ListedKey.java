package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.StoredObject;

/**
 * A key that a state file lists, with what the listing knows of it.
 *
 * @param key the key as the state file wrote it
 * @param object the object, or null when it does not exist
 * @param owner the closest existing state file whose record folder (or {@code <id>.json}) holds the
 *     key, or null when there is none
 */
public record ListedKey(String key, StoredObject object, String owner) {
  public ListedKey {
    requireNonNull(key, "key is null");
  }

  public boolean exists() {
    return object != null;
  }
}
