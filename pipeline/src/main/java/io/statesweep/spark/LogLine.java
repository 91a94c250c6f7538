package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

/**
 * One per-key line of spec section 4, as a value: what kind of line it is, the key it is about, and its exact
 * text (what the command line prints, and what users' log metric filters count).
 *
 * @param key the key the line is about: the key that would be deleted, the state file of a kept record or of a
 *     record that came back during its deletion, the missing file, the skipped key
 * @param text the line as printed
 */
public record LogLine(Kind kind, String key, String text) {

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
    /** The bucket keeps noncurrent versions: the bytes a run frees go only when they expire (key: the bucket). */
    VERSIONING
  }

  public LogLine {
    requireNonNull(kind, "kind is null");
    requireNonNull(key, "key is null");
    requireNonNull(text, "text is null");
  }

  static LogLine wouldDelete(String key) {
    return new LogLine(Kind.WOULD_DELETE, key, "would delete " + key);
  }

  static LogLine kept(String stateFileKey, String why) {
    return new LogLine(Kind.KEPT, stateFileKey, "kept " + stateFileKey + ": " + why);
  }

  static LogLine missing(String key, String stateFileKey) {
    return new LogLine(Kind.MISSING, key, "missing " + key + ": listed by live record " + stateFileKey);
  }

  static LogLine skipped(String key, String why) {
    return new LogLine(Kind.SKIPPED, key, "skipped " + key + ": " + why);
  }

  static LogLine cameBack(String stateFileKey, String deletedKey) {
    return new LogLine(Kind.CAME_BACK, stateFileKey, stateFileKey + " came back during its deletion: " + deletedKey
        + " was deleted; run Verify bucket in the exporter");
  }

  static LogLine versioning(String bucket, String note) {
    return new LogLine(Kind.VERSIONING, bucket, note);
  }

  @Override
  public String toString() {
    return text;
  }
}
