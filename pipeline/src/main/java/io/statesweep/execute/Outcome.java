package io.statesweep.execute;

import java.util.Locale;

/** What executing one record's plan did. */
public enum Outcome {
  /** Every file of a due record is gone, and then its state file. */
  DELETED,
  /** The removed files of a live record that still existed are gone. */
  REMOVED_FILES_DELETED,
  /** The state file was rewritten since the plan: nothing was done on the old plan. */
  STATE_CHANGED,
  /** The state file is gone already (an earlier attempt finished the record): nothing to do. */
  ALREADY_DELETED,
  /** A file is newer than the state file: the record is coming back. Nothing was deleted. */
  KEPT_NEWER_FILES,
  /**
   * A planned key now belongs to another record (whose state file appeared since the plan): refused,
   * kept whole, as the planner would (README, "Actions (one per record)"). Nothing was deleted.
   */
  KEPT_REFUSED,
  /** A key changed between verification and its conditional delete; it stays, and so does the state file. */
  CHANGED_DURING_DELETE,
  /**
   * The state file changed while the record's files were deleted: the record came back during its
   * deletion, and files deleted (named, each in a log line) may be live again and are not current: the bucket keeps no
   * versions, or a delete marker could not be removed. Run Verify bucket in the exporter. The state file stays.
   */
  CAME_BACK_DURING_DELETE,
  /**
   * The record came back during its deletion on a versioned bucket, and every file deleted is current again:
   * statesweep removed the delete markers it had just written (each only while it was still the key's latest
   * version), or the file was written again since (pipeline/README.md, "Versioned buckets"). Nothing is lost; the state
   * file stays.
   */
  RESTORED_AFTER_COMING_BACK,
  /** A request failed; the state file stays and the next run retries. */
  FAILED,
  /**
   * The task that was deleting the record's keys stopped (its executor or driver died, its job was cancelled)
   * before it recorded the store's answers: the keys of its intent that are gone now are its deletions, the
   * state file stays, and the next run finishes the record.
   */
  INTERRUPTED;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Outcome fromLabel(String label) {
    return valueOf(label.toUpperCase(Locale.ROOT));
  }
}
