package io.statesweep.api;

/**
 * What an execute attempt did ({@link ExecuteAction}): its summary, the conditional-delete answer it used, the first
 * per-record lines of what it kept, why it stopped when it did not complete, its metrics, and what became of its run
 * lock (held, or lost: then its summary ends with {@code run_lock=lost}).
 */
public interface ExecuteResult extends ActionResult {
  /** The summary pair of an execute that found no approved plan to execute. */
  String NOTHING_APPROVED_PAIR = "approved_plan";

  /** The attempt's id; null when no plan was executed ({@link #notExecuted()}). */
  String attemptId();

  /** What the store answered to conditional deletes, as the summary's {@code conditional_deletes} pair says. */
  String conditionalDeletes();

  /**
   * Why no plan was executed ({@code execute --latest-approved} found none to execute), or null; then {@link #runId()}
   * and {@link #attemptId()} are null, and the summary has {@code approved_plan=none}.
   */
  String notExecuted();
}
