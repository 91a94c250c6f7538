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
   * bucket's versioning was suspended, never goes ({@link #nullMarker}; pipeline/README.md, "Versioned buckets").
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

  /**
   * How far a marker's LastModified (S3's clock, whole seconds) may lie outside the window its delete was sent in (the
   * executors' clocks) and still be proven: clocks kept by NTP differ by far less.
   */
  public static final java.time.Duration CLOCKS = java.time.Duration.ofSeconds(5);

  /**
   * Whether the latest version of a key whose delete was sent but whose answer was never recorded (its task stopped
   * between the two) is provably the delete marker that delete wrote (pipeline/README.md, "Undoing a run"): a delete
   * marker (of an id, not {@code null}), written between {@code sentAfter} (its record's verification) and {@code
   * sentBefore} (the end of its attempt), give or take {@link #CLOCKS}, directly above a version with the ETag it was
   * verified and deleted with ({@code deletedEtag}), as {@link #decide} requires of a recorded marker. What this cannot
   * rule out: another client's delete of the same version within the same window, which wrote the same kind of marker.
   *
   * @return null when the latest version is that marker (removing it, {@link #decide}, makes the version deleted
   *     current again); otherwise why it cannot be proven, a written-since or a not-restored removal
   */
  public static MarkerRemoval unproven(java.util.List<ObjectVersion> newest, String deletedEtag,
      java.time.Instant sentAfter, java.time.Instant sentBefore) {
    requireNonNull(newest, "newest is null");
    ObjectVersion latest = newest.isEmpty() ? null : newest.get(0);
    if (latest == null) {
      return notRestored("no version of it is left");
    }
    if (!latest.deleteMarker()) {
      return writtenSince(latest.versionId());
    }
    String unrecorded = "its delete was sent but its answer never recorded (its task stopped between the two), and ";
    if (deletedEtag == null || sentAfter == null || sentBefore == null) {
      return notRestored(unrecorded + "the ETag it was deleted with or the window it was sent in is not recorded, so"
          + " the delete marker " + latest.versionId() + " cannot be proven statesweep's: it stays deleted");
    }
    if (NULL_VERSION.equals(latest.versionId())) {
      return notRestored(nullMarker(newest.size() > 1 ? newest.get(1) : null));
    }
    java.time.Instant written = latest.lastModified();
    if (written == null || written.isBefore(sentAfter.minus(CLOCKS)) || written.isAfter(sentBefore.plus(CLOCKS))) {
      return notRestored(unrecorded + "its latest version, delete marker " + latest.versionId() + " written at "
          + written + ", lies outside the window it was sent in (" + sentAfter + " to " + sentBefore + "): it cannot"
          + " be proven statesweep's, so it stays deleted");
    }
    return decide(newest, latest.versionId(), deletedEtag).leftAlone();
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
