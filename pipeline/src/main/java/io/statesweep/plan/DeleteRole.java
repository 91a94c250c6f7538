package io.statesweep.plan;

import java.util.Locale;

/** Why a key is in a plan. */
public enum DeleteRole {
  /** Listed in {@code files} of a due record. */
  FILE,
  /** Listed in {@code delete_files}. */
  REMOVED_FILE,
  /** The record's own state file: always the last key of its record. */
  STATE_FILE;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static DeleteRole fromLabel(String label) {
    return valueOf(label.toUpperCase(Locale.ROOT));
  }
}
