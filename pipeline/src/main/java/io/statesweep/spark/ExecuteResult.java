package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.RunSummary;
import java.util.List;
import java.util.Map;

/**
 * What an execute attempt did: its summary, the conditional-delete answer it used, the first
 * per-record lines of what it kept, why it stopped when it did not complete, and what became of its
 * run lock (held, or lost: then its summary ends with {@code run_lock=lost}).
 *
 * @param log the first {@link LogLine#RESULT_SAMPLE} of the lines that went to the action's sink as they were
 *     produced (kept, refused, failed and came-back lines)
 * @param lineCounts how many lines of each kind went to the sink (a kind without lines is absent)
 */
public record ExecuteResult(String runId, String attemptId, RunSummary summary, Tables tables,
    String conditionalDeletes, List<LogLine> log, Map<LogLine.Kind, Long> lineCounts, String failure,
    String metricsJson, LockOutcome runLock) {
  public ExecuteResult {
    requireNonNull(runId, "runId is null");
    requireNonNull(attemptId, "attemptId is null");
    requireNonNull(summary, "summary is null");
    requireNonNull(tables, "tables is null");
    requireNonNull(runLock, "runLock is null");
    log = List.copyOf(log);
    lineCounts = Map.copyOf(lineCounts);
  }

  /** How many lines of {@code kind} went to the sink. */
  public long lineCount(LogLine.Kind kind) {
    return lineCounts.getOrDefault(kind, 0L);
  }

  /** The kept log lines ({@link #log()}) as printed. */
  public List<String> logLines() {
    return log.stream().map(LogLine::text).toList();
  }

  /** The attempt's metrics ({@link #metricsJson}) as a record. */
  public Metrics metrics() {
    return Metrics.of(metricsJson);
  }

  /** 0 for a complete attempt without errors that held its run lock to the end, else 1. */
  public int exitCode() {
    return runLock.lost() ? 1 : summary.exitCode();
  }
}
