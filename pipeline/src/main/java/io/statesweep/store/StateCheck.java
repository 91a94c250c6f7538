package io.statesweep.store;

/** The answer of a conditional read of a state file against the ETag a plan saw. */
public enum StateCheck {
  /** It still has the planned ETag. */
  UNCHANGED,
  /** It was rewritten since it was planned. */
  CHANGED,
  /** It no longer exists. */
  GONE
}
