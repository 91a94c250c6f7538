package io.statesweep.store;

/** How deep a listing goes under its prefix. */
public enum ListingDepth {
  /** Every object under the prefix. */
  RECURSIVE,
  /** Only the objects directly in the folder (delimiter '/'), not those in its sub-folders. */
  DIRECT
}
