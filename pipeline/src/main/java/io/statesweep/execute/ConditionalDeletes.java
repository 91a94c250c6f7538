package io.statesweep.execute;

/** Whether deletes carry the ETag they expect (If-Match; per-object ETag in DeleteObjects). */
public enum ConditionalDeletes {
  ON,
  OFF
}
