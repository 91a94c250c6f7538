package io.statesweep.api;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.LineText;
import io.statesweep.plan.MissingVersion;

/**
 * One per-key line (pipeline/README.md, "What a run does"), as a value: what kind of line it is, the key it is about,
 * and its exact text (what the command line prints, and what users' log metric filters count).
 *
 * <p>The key is data: the text holds it, and every other outside text (a reason that names keys), escaped with
 * {@link LineText#escape}, so a line is always one line and no key can start another (pipeline/README.md, "Keys in
 * printed lines"); {@link #key()} is the key as it is.
 *
 * @param key the key the line is about, as it is: the key that would be deleted, the state file of a kept record
 *     or of a record that came back during its deletion, the missing file, the skipped key
 * @param text the line as printed: one line, without a line break or another character {@link LineText#escape}
 *     writes as an escape
 */
public record LogLine(Kind kind, String key, String text) {
  /**
   * The lines a result keeps ({@link PlanResult#log()}, {@link ExecuteResult#log()}): the first this many. Every
   * line goes to the action's sink as it is produced ({@code lines(..)} of the action), and the tables hold them all.
   */
  public static final int RESULT_SAMPLE = 1_000;

  /** The kinds of per-key lines. */
  public enum Kind {
    /** {@code would delete <key>}: a dry run's key to delete (the first {@code --log-lines} of them). */
    WOULD_DELETE,
    /** {@code kept <state file>: <why>}: a refused, coming-back or bad-state record, kept. */
    KEPT,
    /** {@code missing <key>: listed by live record <state file>}: a live record's file the bucket lacks. */
    MISSING,
    /** {@code skipped <key>: <why>}: a state-named key that is no record's state file. */
    SKIPPED,
    /** {@code <state file> came back during its deletion: <key> was deleted; ...}: a file lost to a comeback. */
    CAME_BACK,
    /**
     * {@code <state file> came back during its deletion: <key> was restored (version <v> is current)}: a file of a
     * record that came back, current again on a versioned bucket (pipeline/README.md, "Versioned buckets").
     */
    CAME_BACK_RESTORED,
    /** The bucket keeps noncurrent versions: the bytes a run frees go only when they expire (key: the bucket). */
    VERSIONING,
    /** {@code stopped at the bound ...}: a bounded run left records for the next (key: the first one left). */
    BOUND,
    /** {@code would restore <key>: removes delete marker M of run R}: a dry run of restore. */
    WOULD_RESTORE,
    /** {@code restored <key>: removed delete marker M of run R; version V is current}: a restore. */
    RESTORED,
    /** {@code left <key>: <why>}: a key restore leaves as it is (written since, deleted again, no marker). */
    LEFT
  }

  public LogLine {
    requireNonNull(kind, "kind is null");
    requireNonNull(key, "key is null");
    requireNonNull(text, "text is null");
    int breaking = LineText.firstLineBreaking(text);
    if (breaking >= 0) {
      throw new IllegalArgumentException("A log line is one line of printable text, but the " + kind + " line about "
          + LineText.escape(key) + " has U+" + String.format("%04X", (int) text.charAt(breaking)) + " at index "
          + breaking + ": escape it with LineText.escape");
    }
  }

  public static LogLine bound(String firstLeft, String text) {
    return new LogLine(Kind.BOUND, firstLeft, text);
  }

  public static LogLine wouldDelete(String key) {
    return new LogLine(Kind.WOULD_DELETE, key, "would delete " + LineText.escape(key));
  }

  public static LogLine kept(String stateFileKey, String why) {
    return new LogLine(Kind.KEPT, stateFileKey, "kept " + LineText.escape(stateFileKey) + ": " + LineText.escape(why));
  }

  public static LogLine missing(String key, String stateFileKey) {
    return new LogLine(Kind.MISSING, key, "missing " + LineText.escape(key) + ": listed by live record "
        + LineText.escape(stateFileKey));
  }

  /**
   * {@code missing <key>: listed by live record <state file>: <what its versions say>} on a versioned bucket
   * (pipeline/README.md, "The summary line"): whether statesweep's own delete marker hides the key and which {@code
   * restore} brings it back; {@code versions} null gives the line of an unversioned bucket.
   */
  public static LogLine missing(String key, String stateFileKey, MissingVersion versions) {
    LogLine line = missing(key, stateFileKey);
    return versions == null ? line
        : new LogLine(Kind.MISSING, key, line.text() + ": " + LineText.escape(versions.text()));
  }

  public static LogLine skipped(String key, String why) {
    return new LogLine(Kind.SKIPPED, key, "skipped " + LineText.escape(key) + ": " + LineText.escape(why));
  }

  public static LogLine cameBack(String stateFileKey, String deletedKey) {
    return new LogLine(Kind.CAME_BACK, stateFileKey, LineText.escape(stateFileKey) + " came back during its deletion: "
        + LineText.escape(deletedKey) + " was deleted; run Verify bucket in the exporter");
  }

  /** A file of a record that came back during its deletion that is current again as {@code version}. */
  public static LogLine cameBackRestored(String stateFileKey, String deletedKey, String version) {
    return new LogLine(Kind.CAME_BACK_RESTORED, stateFileKey, LineText.escape(stateFileKey)
        + " came back during its deletion: " + LineText.escape(deletedKey) + " was restored (version "
        + LineText.escape(version) + " is current)");
  }

  /** {@code would restore <key>: removes delete marker <marker> of run <run>}. */
  public static LogLine wouldRestore(String key, String marker, String runId) {
    return new LogLine(Kind.WOULD_RESTORE, key, "would restore " + LineText.escape(key) + ": removes delete marker "
        + LineText.escape(marker) + " of run " + LineText.escape(runId));
  }

  /** {@code restored <key>: removed delete marker <marker> of run <run>; version <version> is current}. */
  public static LogLine restored(String key, String marker, String runId, String version) {
    return new LogLine(Kind.RESTORED, key, "restored " + LineText.escape(key) + ": removed delete marker "
        + LineText.escape(marker) + " of run " + LineText.escape(runId) + "; version " + LineText.escape(version)
        + " is current");
  }

  /** {@code left <key>: <why>}: restore leaves the key as it is. */
  public static LogLine left(String key, String why) {
    return new LogLine(Kind.LEFT, key, "left " + LineText.escape(key) + ": " + LineText.escape(why));
  }

  public static LogLine versioning(String bucket, String note) {
    return new LogLine(Kind.VERSIONING, bucket, LineText.escape(note));
  }

  @Override
  public String toString() {
    return text;
  }
}
