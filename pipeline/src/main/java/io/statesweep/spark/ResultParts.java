package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.LockOutcome;
import io.statesweep.api.Metrics;
import io.statesweep.api.Tables;
import io.statesweep.plan.RunSummary;

/**
 * The parts that every result of this package holds ({@link io.statesweep.api.ActionResult}: {@link SparkPlanResult},
 * {@link SparkExecuteResult}), checked in one place.
 */
final class ResultParts {
  private ResultParts() {}

  /** Refuses a result without its summary, tables, metrics or run lock, naming the part that is missing. */
  static void requireShared(RunSummary summary, Tables tables, Metrics metrics, LockOutcome runLock) {
    requireNonNull(summary, "summary is null");
    requireNonNull(tables, "tables is null");
    requireNonNull(metrics, "metrics is null");
    requireNonNull(runLock, "runLock is null");
  }
}
