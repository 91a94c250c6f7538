package io.statesweep.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One version of a key on a versioned bucket, as ListObjectVersions answers it: an object's version or a delete
 * marker. On a bucket where versioning is suspended, a version written then has the id {@code null} (the text).
 *
 * @param versionId the version's id, never empty
 * @param deleteMarker whether it is a delete marker (no content: a GET of the key answers 404 while it is latest)
 * @param latest whether it is the key's latest version (the current one, or the marker that hides the key)
 * @param etag the object's ETag without quotes; null for a delete marker
 * @param lastModified when it was written
 */
public record ObjectVersion(String key, String versionId, boolean deleteMarker, boolean latest, String etag,
    Instant lastModified) {
  public ObjectVersion {
    requireNonNull(key, "key is null");
    requireNonNull(versionId, "versionId is null");
    if (versionId.isEmpty()) {
      throw new IllegalArgumentException("the version of " + key + " has an empty id");
    }
  }

  /**
   * One page of ListObjectVersions ({@link ObjectStore#listVersions}): its entries, keys in UTF-8 order and each key's
   * latest first, and where the next page starts ({@code nextKeyMarker} and {@code nextVersionIdMarker}, both null on
   * the last page). A page may end within a key's versions: the next one goes on with that key's older versions.
   */
  public record Page(java.util.List<ObjectVersion> versions, String nextKeyMarker, String nextVersionIdMarker) {
    public Page {
      versions = java.util.List.copyOf(versions);
    }

    /** Whether more entries follow. */
    public boolean truncated() {
      return nextKeyMarker != null;
    }
  }

  /** {@code delete marker <id>} or {@code version <id>}. */
  public String describe() {
    return (deleteMarker ? "delete marker " : "version ") + versionId;
  }
}
