package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

/**
 * What a plan found behind a missing file on a versioned bucket (pipeline/README.md, "The summary line": {@code missing
 * <key>}):
 * the key's latest version, as ListObjectVersions answers it, told apart by who wrote it. The {@code missing} line
 * ends with {@link #text()}: whether statesweep's own delete marker hides the key and which {@code restore} brings
 * it back, a marker statesweep did not write, no version at all, or why the plan did not look.
 *
 * @param found what the lookup found
 * @param runId for {@link Found#STATESWEEP_MARKER}: the run whose execute wrote the marker; null otherwise
 * @param record for {@link Found#STATESWEEP_MARKER}: the state file of the record whose deletion wrote it
 * @param why for {@link Found#LOOKUP_FAILED} and {@link Found#NOT_LOOKED_UP}: why there is no answer
 */
public record MissingVersion(Found found, String runId, String record, String why) {
  /** What the key's latest version is. */
  public enum Found {
    /** A delete marker that an execute of this warehouse wrote ({@code executions.deleted.delete_marker}). */
    STATESWEEP_MARKER,
    /** A delete marker that no execute of this warehouse recorded. */
    OTHER_MARKER,
    /** No version at all: never written, or every version expired. */
    NO_VERSION,
    /** An object: the key was written again after the listing. */
    CURRENT_VERSION,
    /** ListObjectVersions failed (denied: s3:ListBucketVersions), so nobody knows. */
    LOOKUP_FAILED,
    /** Beyond the plan's bound of lookups. */
    NOT_LOOKED_UP
  }

  public MissingVersion {
    requireNonNull(found, "found is null");
    if ((found == Found.STATESWEEP_MARKER) != (runId != null && record != null)) {
      throw new IllegalArgumentException("a run and a record go with statesweep's own delete marker only");
    }
    if ((found == Found.LOOKUP_FAILED || found == Found.NOT_LOOKED_UP) != (why != null)) {
      throw new IllegalArgumentException("a reason goes with a lookup that failed or was not made only");
    }
  }

  public static MissingVersion statesweepMarker(String runId, String record) {
    return new MissingVersion(Found.STATESWEEP_MARKER, requireNonNull(runId, "runId is null"),
        requireNonNull(record, "record is null"), null);
  }

  public static MissingVersion otherMarker() {
    return new MissingVersion(Found.OTHER_MARKER, null, null, null);
  }

  public static MissingVersion noVersion() {
    return new MissingVersion(Found.NO_VERSION, null, null, null);
  }

  public static MissingVersion currentVersion() {
    return new MissingVersion(Found.CURRENT_VERSION, null, null, null);
  }

  public static MissingVersion lookupFailed(String why) {
    return new MissingVersion(Found.LOOKUP_FAILED, null, null, requireNonNull(why, "why is null"));
  }

  /** Beyond the first {@code bound} missing files, which are the ones the plan looks up. */
  public static MissingVersion notLookedUp(int bound) {
    return new MissingVersion(Found.NOT_LOOKED_UP, null, null, "the plan looks up the latest version of the first "
        + bound + " missing files only");
  }

  /**
   * What the {@code missing} line adds after {@code listed by live record <state file>: } (raw: keys as they are;
   * the line escapes it whole).
   */
  public String text() {
    return switch (found) {
      case STATESWEEP_MARKER -> "hidden by the delete marker of run " + runId + " (statesweep restore --run-id " + runId
          + " --record " + record + ")";
      case OTHER_MARKER -> "hidden by a delete marker statesweep did not write";
      case NO_VERSION -> "no version of it exists (never written, or every version expired)";
      case CURRENT_VERSION -> "a version of it is current again (written after the listing)";
      case LOOKUP_FAILED -> "its versions could not be looked up: " + why;
      case NOT_LOOKED_UP -> "its versions were not looked up: " + why;
    };
  }
}
