package io.statesweep.spark.execute;

import io.statesweep.api.Tables;
import io.statesweep.cost.PriceTable;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RunMetrics;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What one execute attempt works with from the end of its checks to its result.
 *
 * @param runId the plan's run id
 * @param attemptId the attempt's own id
 * @param plan the plan, read and checked
 * @param lock the run lock it holds
 * @param recordedBefore the attempts whose leftover ledgers it recorded first ({@link LeftoverLedgers})
 * @param prices the region's list prices, or null: the attempt is not priced
 * @param lockBefore the lock's requests before the attempt began, when the lock is the run's it is part of
 * @param lines where its per-record lines go
 */
public record Attempt(String runId, String attemptId, Instant startedAt, Tables tables, ReviewedPlan plan,
    RunMetrics metrics, LedgerRecorder ledger, ActionLock lock, List<String> recordedBefore, PriceTable prices,
    Map<String, Long> lockBefore, Progress progress, AttemptPhases phases, LineStream lines) {}
