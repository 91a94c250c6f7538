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
 * @param notExecuted why no plan was executed ({@code execute --latest-approved} found none to execute), or null;
 *     then {@code runId} and {@code attemptId} are null
 */
public record ExecuteResult(String runId, String attemptId, RunSummary summary, Tables tables,
    String conditionalDeletes, List<LogLine> log, Map<LogLine.Kind, Long> lineCounts, String failure,
    String metricsJson, LockOutcome runLock, String notExecuted) {
  public ExecuteResult {
    if (notExecuted == null) {
      requireNonNull(runId, "runId is null");
      requireNonNull(attemptId, "attemptId is null");
    }
    requireNonNull(summary, "summary is null");
    requireNonNull(tables, "tables is null");
    requireNonNull(runLock, "runLock is null");
    log = List.copyOf(log);
    lineCounts = Map.copyOf(lineCounts);
  }

  /**
   * The result of an {@code execute --latest-approved} that found no plan to execute: complete, nothing deleted,
   * its summary's pair {@code approved_plan=none}, and {@code why} as {@link #notExecuted}.
   */
  static ExecuteResult nothingToExecute(Tables tables, String why, LockOutcome runLock) {
    RunSummary summary = runLock.appliedTo(new RunSummary(false, true, 0, 0, 0, 0, 0, 0, 0, 0,
        Map.of(NOTHING_APPROVED_PAIR, "none")));
    return new ExecuteResult(null, null, summary, tables, "not probed: nothing was executed", List.of(), Map.of(), null,
        "{}", runLock, requireNonNull(why, "why is null"));
  }

  /** The summary pair of an execute that found no approved plan to execute. */
  public static final String NOTHING_APPROVED_PAIR = "approved_plan";

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

  /**
   * 0 for a complete attempt without errors that held its run lock to the end; 4 for one that lost files that
   * {@code --fail-on} names ({@link io.statesweep.plan.FailOn}); else 1.
   */
  public int exitCode() {
    return runLock.lost() ? 1 : summary.exitCode();
  }
}
