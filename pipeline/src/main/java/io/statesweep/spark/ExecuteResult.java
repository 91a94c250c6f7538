package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.RunSummary;
import java.util.List;

/**
 * What an execute attempt did: its summary, the conditional-delete answer it used, the first
 * per-record lines of what it kept, and why it stopped when it did not complete.
 */
public record ExecuteResult(String runId, String attemptId, RunSummary summary, Tables tables,
    String conditionalDeletes, List<String> logLines, String failure, String metricsJson) {
  public ExecuteResult {
    requireNonNull(runId, "runId is null");
    requireNonNull(attemptId, "attemptId is null");
    requireNonNull(summary, "summary is null");
    requireNonNull(tables, "tables is null");
    logLines = List.copyOf(logLines);
  }
}
