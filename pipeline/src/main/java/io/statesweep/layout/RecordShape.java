package io.statesweep.layout;

/** How a record keeps its files (pipeline/README.md, "The layout"). */
public enum RecordShape {
  /** {@code <folder>/state.json}: the record owns keys inside its folder. */
  FOLDER,
  /** {@code <dir>/<id>.state.json}: the record owns only its sibling {@code <dir>/<id>.json}. */
  SINGLE_FILE
}
