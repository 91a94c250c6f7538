package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.LockOutcome;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.plan.RunSummary;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A plan's result as {@link SparkPlanAction} makes it. Only this package makes one, so a value of this type is a plan
 * that a {@link SparkPlanAction} of this JVM completed: what lets {@link SparkRunAction} execute its own plan without an
 * approval ({@link SparkExecuteAction#plannedInThisJob}), and nothing else.
 */
record SparkPlanResult(String runId, RunSummary summary, Tables tables, List<LogLine> log,
    Map<LogLine.Kind, Long> lineCounts, String failure, Map<String, Double> phaseSeconds, Metrics metrics,
    LockOutcome runLock) implements PlanResult {
  SparkPlanResult {
    requireNonNull(runId, "runId is null");
    ResultParts.requireShared(summary, tables, metrics, runLock);
    log = List.copyOf(log);
    lineCounts = Map.copyOf(lineCounts);
    phaseSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(phaseSeconds));
  }
}
