package io.statesweep.store;

import static java.util.Objects.requireNonNull;

/** A key to delete, only while it still has {@code etag} when the etag is given (a conditional delete). */
public record DeleteTarget(String key, String etag) {
  public DeleteTarget {
    requireNonNull(key, "key is null");
  }
}
