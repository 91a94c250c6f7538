package io.statesweep.api;

import java.util.Map;

/**
 * What a plan produced ({@link PlanAction}): its summary, where its tables are, its per-key lines (the first
 * {@code --log-lines} {@code would delete <key>} lines, then every kept, missing and skipped line), its metrics, how
 * long each phase took and what became of the run lock (the summary ends with {@code run_lock=none} for a plan without
 * it and {@code run_lock=lost} for one that lost it). A plan made by a {@link RunAction} is executed as this value.
 */
public interface PlanResult extends ActionResult {
  /** How long each phase took, in seconds, in the order they ran (list, read-state-files, plan, summary, ...). */
  Map<String, Double> phaseSeconds();
}
