package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LockOutcome;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.Tables;
import io.statesweep.plan.RunSummary;
import java.util.List;
import java.util.Map;

/** An execute attempt's result as {@link SparkExecuteAction} makes it. */
record SparkExecuteResult(String runId, String attemptId, RunSummary summary, Tables tables,
    String conditionalDeletes, List<LogLine> log, Map<LogLine.Kind, Long> lineCounts, String failure,
    Metrics metrics, LockOutcome runLock, String notExecuted) implements ExecuteResult {
  SparkExecuteResult {
    if (notExecuted == null) {
      requireNonNull(runId, "runId is null");
      requireNonNull(attemptId, "attemptId is null");
    }
    ResultParts.requireShared(summary, tables, metrics, runLock);
    log = List.copyOf(log);
    lineCounts = Map.copyOf(lineCounts);
  }

  /**
   * The result of an {@code execute --latest-approved} that found no plan to execute: complete, nothing deleted,
   * its summary's pair {@code approved_plan=none}, and {@code why} as {@link #notExecuted}.
   */
  static SparkExecuteResult nothingToExecute(Tables tables, String why, LockOutcome runLock) {
    RunSummary summary = runLock.appliedTo(new RunSummary(false, true, 0, 0, 0, 0, 0, 0, 0, 0,
        Map.of(NOTHING_APPROVED_PAIR, "none")));
    return new SparkExecuteResult(null, null, summary, tables, "not probed: nothing was executed", List.of(), Map.of(),
        null, Metrics.of("{}"), runLock, requireNonNull(why, "why is null"));
  }
}
