package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.DeleteRole;
import java.time.Instant;
import java.util.List;

/**
 * A key an execute deleted, as its ledger and {@code executions.deleted} record it.
 *
 * @param etag the ETag it was verified with (and sent with, where deletes are conditional); null when unknown
 * @param deletedAt when the store's answer said it was deleted; null when the attempt that deleted it stopped
 * before it recorded the answer, and the key was found gone afterwards (pipeline/README.md, "Every delete on the
 * record")
 * @param deleteMarker on a versioned bucket, the version id of the delete marker the delete wrote (the deleted version
 *     stays behind it, and removing the marker makes it current again); null without versioning, or when unknown
 * @param restoredVersion for a record that came back during its deletion on a versioned bucket, the key's version that
 *     is current again afterwards: the one statesweep's delete marker hid, made current by removing the marker, or
 *     one written since (pipeline/README.md, "Versioned buckets"); null when the key stays deleted
 */
public record DeletedKey(String key, DeleteRole role, String etag, Instant deletedAt, String deleteMarker,
    String restoredVersion) {
  public DeletedKey {
    requireNonNull(key, "key is null");
    requireNonNull(role, "role is null");
  }

  /** Keys a message names at most: a record of any size keeps its messages short, and its row names every key. */
  static final int NAMED_IN_A_MESSAGE = 10;

  /**
   * The keys, comma-separated, as a message names them: the first {@value #NAMED_IN_A_MESSAGE}, then how many more
   * (each is in {@code executions.deleted}).
   */
  public static String named(List<DeletedKey> keys) {
    String named = String.join(", ", keys.stream().limit(NAMED_IN_A_MESSAGE).map(DeletedKey::key).toList());
    return keys.size() <= NAMED_IN_A_MESSAGE ? named
        : named + " and " + (keys.size() - NAMED_IN_A_MESSAGE) + " more, each in executions.deleted";
  }

  /** A deleted key that stays deleted. */
  public DeletedKey(String key, DeleteRole role, String etag, Instant deletedAt, String deleteMarker) {
    this(key, role, etag, deletedAt, deleteMarker, null);
  }

  /** A deleted key without a known delete marker. */
  public DeletedKey(String key, DeleteRole role, String etag, Instant deletedAt) {
    this(key, role, etag, deletedAt, null, null);
  }

  /** This key, current again afterwards as {@code version}. */
  public DeletedKey restoredAs(String version) {
    return new DeletedKey(key, role, etag, deletedAt, deleteMarker, requireNonNull(version, "version is null"));
  }

  /** Whether the key is current again after its record came back (restored, or written since). */
  public boolean restored() {
    return restoredVersion != null;
  }
}
