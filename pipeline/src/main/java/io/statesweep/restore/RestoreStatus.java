package io.statesweep.restore;

/** What became of a deleted key that a restore looked at: the {@code status} column of table restorations. */
public enum RestoreStatus {
  /** Its delete marker was the latest version and is removed (a dry run: would be): the version it hid is current. */
  RESTORED("restored"),
  /** A version was written above the marker since: that version stays current, and the marker stays. */
  WRITTEN_SINCE("written_since"),
  /** An earlier restore of the run restored it, and the version it made current still is. */
  ALREADY_RESTORED("already_restored"),
  /** Left deleted: deleted again since, no marker recorded, no version left, or a request failed. */
  NOT_RESTORED("not_restored");

  private final String label;

  RestoreStatus(String label) {
    this.label = label;
  }

  /** The label in the table and the summary line. */
  public String label() {
    return label;
  }
}
