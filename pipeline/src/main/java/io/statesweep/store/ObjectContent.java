package io.statesweep.store;

import static java.util.Objects.requireNonNull;

/** An object's bytes with the version that was read. */
public record ObjectContent(StoredObject object, byte[] bytes, boolean truncated) {
  public ObjectContent {
    requireNonNull(object, "object is null");
    requireNonNull(bytes, "bytes is null");
  }
}
