package io.statesweep.api;

import io.statesweep.plan.RunSummary;
import java.util.List;
import java.util.Map;

/**
 * What an action that reads the export did ({@link PlanResult}, {@link ExecuteResult}): its summary line, where its
 * tables are, its per-key lines, its metrics and what became of the run lock. Immutable; a run that completes with
 * errors is a result ({@link #exitCode()} 1), not an exception.
 */
public interface ActionResult {
  /** The run id: the plan's, which its executes share; null for an execute that found no plan to execute. */
  String runId();

  /** The summary line's pairs (pipeline/README.md, "The summary line"). */
  RunSummary summary();

  /** Where the run's tables are. */
  Tables tables();

  /**
   * The first {@link LogLine#RESULT_SAMPLE} of the per-key lines that went to the action's sink as they were produced
   * ({@code lines(..)} of the action); the tables hold them all.
   */
  List<LogLine> log();

  /** How many lines of each kind went to the sink (a kind without lines is absent). */
  Map<LogLine.Kind, Long> lineCounts();

  /** Why the run did not complete, or null. */
  String failure();

  /** The run's metrics, typed: what its {@code metrics:} line says. */
  Metrics metrics();

  /** What became of the run lock (pipeline/README.md, "One run at a time"). */
  LockOutcome runLock();

  /** The run's metrics as the {@code metrics:} line prints them: one JSON object. */
  default String metricsJson() {
    return metrics().json();
  }

  /** How many lines of {@code kind} went to the sink. */
  default long lineCount(LogLine.Kind kind) {
    return lineCounts().getOrDefault(kind, 0L);
  }

  /** The kept log lines ({@link #log()}) as printed. */
  default List<String> logLines() {
    return log().stream().map(LogLine::text).toList();
  }

  /**
   * 0 for a complete run without errors that kept its run lock to the end (or a dry run that never had it: the store
   * denied it); 4 for one that saw or lost files that {@code --fail-on} names ({@link io.statesweep.plan.FailOn});
   * else 1: a run that lost the lock may have overlapped another run.
   */
  default int exitCode() {
    return runLock().lost() ? 1 : summary().exitCode();
  }
}
