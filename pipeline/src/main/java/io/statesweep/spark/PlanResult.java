package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.RunSummary;
import java.util.List;
import java.util.Map;

/**
 * What a planning run produced: its summary, where its tables are, and its per-key log lines.
 *
 * @param log the first {@link LogLine#RESULT_SAMPLE} of the lines that went to the action's sink as they were
 *     produced: the first {@code --log-lines} {@code would delete <key>} lines, then every kept (refused, coming back,
 *     bad state), missing and skipped line
 * @param lineCounts how many lines of each kind went to the sink (a kind without lines is absent)
 * @param failure why the run did not complete, or null
 * @param phaseSeconds how long each phase took (list, read-state-files, plan, summary, ...)
 * @param metricsJson the run's metrics as one JSON object ({@link RunMetrics#json})
 * @param runLock what became of the run lock; the summary ends with {@code run_lock=none} for a plan without
 *     it and {@code run_lock=lost} for one that lost it
 */
public record PlanResult(String runId, RunSummary summary, Tables tables, List<LogLine> log,
    Map<LogLine.Kind, Long> lineCounts, String failure, Map<String, Double> phaseSeconds, String metricsJson,
    LockOutcome runLock) {
  public PlanResult {
    requireNonNull(runId, "runId is null");
    requireNonNull(summary, "summary is null");
    requireNonNull(tables, "tables is null");
    requireNonNull(runLock, "runLock is null");
    log = List.copyOf(log);
    lineCounts = Map.copyOf(lineCounts);
    phaseSeconds = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(phaseSeconds));
  }

  /** How many lines of {@code kind} went to the sink. */
  public long lineCount(LogLine.Kind kind) {
    return lineCounts.getOrDefault(kind, 0L);
  }

  /** The kept log lines ({@link #log()}) as printed. */
  public List<String> logLines() {
    return log.stream().map(LogLine::text).toList();
  }

  /** The run's metrics ({@link #metricsJson}) as a record. */
  public Metrics metrics() {
    return Metrics.of(metricsJson);
  }

  /**
   * 0 for a complete plan without errors that kept its run lock to the end (or never had it: a dry run
   * the store denied it); 4 for one that saw lost files that {@code --fail-on} names
   * ({@link io.statesweep.plan.FailOn}); else 1: a plan that lost the lock may have overlapped another run.
   */
  public int exitCode() {
    return runLock.lost() ? 1 : summary.exitCode();
  }
}
