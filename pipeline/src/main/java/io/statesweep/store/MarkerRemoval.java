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
