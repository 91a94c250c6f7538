package io.statesweep.plan;

import java.util.Locale;

/** The one thing the plan does with a record (README, "Actions (one per record)"). */
public enum Action {
  /** Due: delete its files and delete_files, then its state file, last. */
  DELETE_RECORD,
  /** Live or not yet due: delete only the delete_files that still exist (and are not also in files). */
  DELETE_REMOVED_FILES,
  /** Live, nothing to delete. */
  KEEP,
  /** Marked or expired, but its grace period has not passed; nothing to delete. */
  NOT_YET_DUE,
  /** Due, but a file is newer than its state file: the record is coming back. Kept whole. */
  KEPT_NEWER_FILES,
  /** The state file lists a key that it may not list. Kept whole. */
  KEPT_REFUSED,
  /** The state file is not a valid document. Kept whole. */
  BAD_STATE;

  /** The name used in tables and logs, such as {@code delete_record}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Action fromLabel(String label) {
    return valueOf(label.toUpperCase(Locale.ROOT));
  }
}
