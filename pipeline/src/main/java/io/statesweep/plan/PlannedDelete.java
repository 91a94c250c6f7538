package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.StoredObject;

/** One key to delete, with the version the plan saw: execution deletes it only if it is still that version. */
public record PlannedDelete(StoredObject object, DeleteRole role) {
  public PlannedDelete {
    requireNonNull(object, "object is null");
    requireNonNull(role, "role is null");
  }

  public String key() {
    return object.key();
  }
}
