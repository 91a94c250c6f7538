package io.statesweep.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Objects;

/**
 * An object as a listing or a read saw it.
 *
 * @param storageClass the storage class a listing gives (STANDARD, STANDARD_IA, ...), or null where none was
 *     seen (a GET or HEAD of a Standard object says none). It prices the object; it is not part of its identity:
 *     two sightings of one version are equal whatever class each reported.
 */
public record StoredObject(String key, String etag, Instant lastModified, long size, String storageClass) {
  public StoredObject {
    requireNonNull(key, "key is null");
    requireNonNull(etag, "etag is null");
    requireNonNull(lastModified, "lastModified is null");
    if (size < 0) {
      throw new IllegalArgumentException("size is negative: " + size);
    }
  }

  /** An object whose storage class was not seen. */
  public StoredObject(String key, String etag, Instant lastModified, long size) {
    this(key, etag, lastModified, size, null);
  }

  /** Strictly later, as the contract means it: equal timestamps (whole seconds on many stores) are not newer. */
  public boolean isNewerThan(StoredObject other) {
    return lastModified.isAfter(other.lastModified);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof StoredObject that && key.equals(that.key) && etag.equals(that.etag)
        && lastModified.equals(that.lastModified) && size == that.size;
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, etag, lastModified, size);
  }

  @Override
  public String toString() {
    return "StoredObject[key=" + key + ", etag=" + etag + ", lastModified=" + lastModified + ", size=" + size
        + (storageClass == null ? "" : ", storageClass=" + storageClass) + "]";
  }
}
