package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/** An object as a listing or a read saw it. */
public record StoredObject(String key, String etag, Instant lastModified, long size) {
  public StoredObject {
    requireNonNull(key, "key is null");
    requireNonNull(etag, "etag is null");
    requireNonNull(lastModified, "lastModified is null");
    if (size < 0) {
      throw new IllegalArgumentException("size is negative: " + size);
    }
  }

  /** Strictly later, as the contract means it: equal timestamps (whole seconds on many stores) are not newer. */
  public boolean isNewerThan(StoredObject other) {
    return lastModified.isAfter(other.lastModified);
  }
}
