package io.statesweep.store;

import java.util.Map;
import java.util.Set;

/**
 * What one DeleteObjects request did: the keys it deleted (or found already gone), the per-key errors of the store,
 * key to error, and, on a versioned bucket, the delete marker each deleted key got, key to the marker's version id.
 * {@code PreconditionFailed} means the key changed since its ETag was seen, and it stays.
 *
 * @param markers key to the version id of the delete marker this request wrote for it (S3's {@code DeleteMarker}
 *     and {@code DeleteMarkerVersionId}); empty on a bucket without versioning, where a delete removes the object
 * @param throttled SlowDown answers on the way: 503 or 429 answers to the request's attempts (the SDK retried them)
 *     and keys the answer refused with {@code SlowDown} (pipeline/README.md, "Deleting at the bucket's speed")
 */
public record DeleteResult(Set<String> deleted, Map<String, KeyError> errors, Map<String, String> markers,
    int throttled) {
  public DeleteResult {
    if (throttled < 0) {
      throw new IllegalArgumentException("throttled must not be negative: " + throttled);
    }
    deleted = Set.copyOf(deleted);
    errors = Map.copyOf(errors);
    markers = Map.copyOf(markers);
    if (!deleted.containsAll(markers.keySet())) {
      throw new IllegalArgumentException("a delete marker of a key not deleted: " + markers.keySet());
    }
  }

  /** The result of a delete that met no SlowDown. */
  public DeleteResult(Set<String> deleted, Map<String, KeyError> errors, Map<String, String> markers) {
    this(deleted, errors, markers, 0);
  }

  /** The result of a delete that wrote no delete marker (a bucket without versioning). */
  public DeleteResult(Set<String> deleted, Map<String, KeyError> errors) {
    this(deleted, errors, Map.of());
  }

  /** A store's error for one key, such as {@code AccessDenied}: "message (code)". */
  public record KeyError(String code, String message) {

    public boolean isPreconditionFailed() {
      return "PreconditionFailed".equals(code);
    }

    @Override
    public String toString() {
      return message + " (" + code + ")";
    }
  }
}
