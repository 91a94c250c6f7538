package io.statesweep.store;

import static java.util.Objects.requireNonNull;

/**
 * What became of one of statesweep's own delete markers asked to be removed ({@link ObjectStore#removeMarkerIfLatest}):
 * removed while it was the key's latest version, so the version before it is current again; left alone because the
 * key was written since (a version above the marker is current: the file is there); or left alone for another
 * reason (another delete marker above it, the marker gone, no versioning, a failure), each said in {@code detail}.
 *
 * @param status what was done
 * @param currentVersion the key's current version afterwards when the file is there (restored or written since),
 *     else null
 * @param detail why, in words, for a marker that was not removed; null for a removed one
 */
public record MarkerRemoval(Status status, String currentVersion, String detail) {
  /** What was done with the marker. */
  public enum Status {
    /** The marker was the key's latest version and is removed: the version before it is current again. */
    RESTORED,
    /** A version was written above the marker since: the file is there; the marker stays, now noncurrent. */
    WRITTEN_SINCE,
    /** The marker stays and the key stays deleted: {@code detail} says why. */
    NOT_RESTORED
  }

  public MarkerRemoval {
    requireNonNull(status, "status is null");
    if ((status == Status.NOT_RESTORED) != (currentVersion == null)) {
      throw new IllegalArgumentException("a " + status + " removal " + (currentVersion == null ? "without" : "with")
          + " a current version");
    }
    if (status != Status.RESTORED && detail == null) {
      throw new IllegalArgumentException("a " + status + " removal without a reason");
    }
  }

  /** How a removal that failed is worded: this, the marker's id, and the store's answer. */
  public static final String FAILED = "cannot remove its delete marker ";

  /**
   * What a look at a key's newest versions decides for statesweep's marker: remove it ({@code wouldMakeCurrent}, the
   * version behind it), or leave it alone ({@code leftAlone}, with why). Exactly one is set.
   */
  public record Decision(String wouldMakeCurrent, MarkerRemoval leftAlone) {
    public Decision {
      if ((wouldMakeCurrent == null) == (leftAlone == null)) {
        throw new IllegalArgumentException("a decision either removes the marker or leaves it alone");
      }
    }
  }

  /**
   * Whether statesweep's marker {@code markerVersionId} of a key may go, from the key's newest versions (latest first,
   * then the one behind it): only while it is the latest version, and only when the version behind it is a version
   * (not another marker) with the ETag deleted ({@code deletedEtag}, when it is recorded). Otherwise removing it
   * would bring back nothing, or an older version than the one deleted. A marker of id {@code null}, written while the
   * bucket's versioning was suspended, never goes ({@link #nullMarker}; README, "Versioned buckets").
   */
  public static Decision decide(java.util.List<ObjectVersion> newest, String markerVersionId, String deletedEtag) {
    requireNonNull(newest, "newest is null");
    requireNonNull(markerVersionId, "markerVersionId is null");
    ObjectVersion latest = newest.isEmpty() ? null : newest.get(0);
    if (latest == null) {
      return new Decision(null, notRestored("no version of it is left"));
    }
    if (!latest.deleteMarker()) {
      return new Decision(null, writtenSince(latest.versionId()));
    }
    ObjectVersion behind = newest.size() > 1 ? newest.get(1) : null;
    if (NULL_VERSION.equals(markerVersionId)) {
      return new Decision(null, notRestored(nullMarker(behind)));
    }
    if (!latest.versionId().equals(markerVersionId)) {
      return new Decision(null, notRestored("its latest version is another delete marker (" + latest.versionId()
          + "), not the one statesweep wrote (" + markerVersionId + "): it was deleted again since"));
    }
    String stays = "; statesweep's delete marker " + markerVersionId + " stays";
    if (behind == null) {
      return new Decision(null, notRestored("no version is behind its delete marker: the version deleted is gone for"
          + " good (a delete while versioning is suspended removes the null version)" + stays));
    }
    if (behind.deleteMarker()) {
      return new Decision(null, notRestored("behind its delete marker is another delete marker ("
          + behind.versionId() + "): removing it would not make the file current" + stays));
    }
    boolean etagKnown = deletedEtag != null && !deletedEtag.isEmpty();
    if (etagKnown && !deletedEtag.equals(behind.etag())) {
      return new Decision(null, notRestored("the version behind its delete marker (" + behind.versionId() + ", ETag "
          + behind.etag() + ") is not the one deleted (ETag " + deletedEtag + "): it would bring back other bytes"
          + stays));
    }
    return new Decision(behind.versionId(), null);
  }

  /** The id of every version and delete marker written while a bucket's versioning is suspended. */
  public static final String NULL_VERSION = "null";

  /**
   * Why a delete marker of id {@code null} is never removed: a write since the delete gives its object version the
   * same id, and so does another delete's marker, so the marker seen cannot be proven statesweep's, and a removal of
   * version {@code null} after a look could destroy a write made between the two for good (S3's conditional deletes
   * apply to the current version only). What to do instead, with the version behind it when there is one.
   */
  private static String nullMarker(ObjectVersion behind) {
    return "its delete marker has the id null (versioning was suspended when it was deleted): a write since the delete"
        + " would have that id too, and so would another delete's marker, so statesweep cannot prove the marker is its"
        + " own, nor remove it without risking a write made meanwhile; it stays deleted"
        + (behind == null ? " (no version is behind the marker)"
            : behind.deleteMarker() ? " (behind the marker is another delete marker, " + behind.versionId() + ")"
            : ": to bring back the version behind the marker, copy version " + behind.versionId() + " (ETag "
                + behind.etag() + ") onto the key once nothing else writes it");
  }

  /**
   * What a removal of {@code markerVersionId} that the store answered as done came to, from the key's latest version
   * read after it ({@code current}, null when it has none): restored when a version is current, else why not.
   */
  public static MarkerRemoval afterRemoval(String markerVersionId, ObjectVersion current) {
    if (current == null || current.deleteMarker()) {
      return notRestored("its delete marker " + markerVersionId + " is removed, yet "
          + (current == null ? "no version of it is left" : "its latest version is " + current.describe()));
    }
    return restored(current.versionId());
  }

  public static MarkerRemoval restored(String currentVersion) {
    return new MarkerRemoval(Status.RESTORED, currentVersion, null);
  }

  public static MarkerRemoval writtenSince(String currentVersion) {
    return new MarkerRemoval(Status.WRITTEN_SINCE, currentVersion,
        "it was written again since (version " + currentVersion + " is current), so the delete marker stays");
  }

  public static MarkerRemoval notRestored(String why) {
    return new MarkerRemoval(Status.NOT_RESTORED, null, requireNonNull(why, "why is null"));
  }

  /** Whether the key's file is there afterwards (restored, or written since). */
  public boolean fileIsThere() {
    return status != Status.NOT_RESTORED;
  }
}
