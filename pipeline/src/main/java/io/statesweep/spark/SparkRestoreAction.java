package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.RestoreResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.RestoreRefusedException;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.RestoreOptions;
import io.statesweep.plan.LineText;
import io.statesweep.restore.RestoreStatus;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.execute.AttemptReport;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.execute.LeftoverLedgers;
import io.statesweep.spark.restore.RestoreTargets;
import io.statesweep.spark.restore.RestoreTasks;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.Spread;
import io.statesweep.spark.run.StoreAccess;
import io.statesweep.spark.tables.CatalogTables;
import io.statesweep.spark.tables.TableWrites;
import io.statesweep.store.BucketVersioning;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Undoes a run on a versioned bucket (pipeline/README.md, "Undoing a run"): removes the delete markers that run wrote,
 * for the keys whose latest version is still that marker, each record's files first and its state file last ({@link
 * io.statesweep.restore.RecordRestore}); a dry run reads each key's latest version and says what it would do. A real
 * restore records every key it looked at in table {@code restorations}.
 *
 * <p>Before anything it refuses ({@link RestoreRefusedException}) a bucket whose versioning is {@code Off} (the
 * deletes removed the objects for good) or cannot be read; {@code Suspended} goes on (a marker written then has the id
 * {@code null}, removed the same way). Then it takes the run lock as execute does (a dry run as a plan does), so no
 * execute deletes meanwhile, records the run's ledgers that no execute recorded ({@link #recordLeftovers}), and
 * refuses a run without rows in {@code executions} and a record the run deleted nothing of.
 *
 * <p>The records are restored in Spark tasks, as execute deletes them, not on the driver: a run may delete millions of
 * keys (a backfill), a record's files restored in batches of requests ({@link io.statesweep.restore.RecordRestore}),
 * and the time goes to round trips that tasks overlap; a task holds only its record's keys at a time, whatever the
 * run's size. A record's keys stay in one task, in order. The rows are made
 * once (a local checkpoint) and the table, the counts and the lines read them: no key is restored twice.
 *
 * <p>A restore that loses the run lock goes on to its end (its result says {@code run_lock=lost} and exits 1): unlike
 * a delete, each of its writes is conditional on the key's latest version being the run's own marker, so a run that
 * takes the lock over and deletes a key meanwhile leaves a newer marker that the restore then leaves alone.
 */
final class SparkRestoreAction {
  private static final Logger LOG = LoggerFactory.getLogger(SparkRestoreAction.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SparkSession spark;
  private final RestoreOptions options;
  private final ExportOptions export;
  private final String runId;
  private final String record;
  private Consumer<LogLine> sink = line -> { };

  SparkRestoreAction(SparkSession spark, RestoreOptions options, String runId, String record) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.export = options.export();
    this.runId = requireNonNull(runId, "runId is null");
    this.record = record;
  }

  /** Where the per-key lines go, each as it is read; by default nowhere. */
  SparkRestoreAction lines(Consumer<LogLine> newSink) {
    this.sink = requireNonNull(newSink, "sink is null");
    return this;
  }

  RestoreResult execute() {
    Tables tables = new Tables(export.warehouse(), export.catalogSchema());
    Instant startedAt = Instant.now();
    try (ActionSettings settings = ActionSettings.of(spark)) {
      CatalogTables.registerAll(spark, tables);
      checkVersioning(S3ObjectStore.open(export.s3(), export.bucket()).bucketVersioning());
      String label = "restore --run-id " + runId;
      try (ActionLock lock = options.dryRun() ? ActionLock.forDryRun(export, label)
          : ActionLock.toDelete(export, options.deletes(), label)) {
        String restoreId = RunContext.start(startedAt, 0).runId();
        RunMetrics metrics = RunMetrics.register(spark.sparkContext());
        recordLeftovers(tables, lock, restoreId, metrics);
        RestoreTargets.checkRun(spark, tables, runId, record);
        return restoreLocked(tables, lock, startedAt, restoreId, metrics);
      }
    }
  }

  /** Refuses a bucket without versions, or whose versioning cannot be read; Enabled and Suspended go on. */
  private void checkVersioning(BucketVersioning versioning) {
    String bucket = "s3://" + export.bucket();
    if (versioning.status().equals(BucketVersioning.OFF)) {
      throw new RestoreRefusedException("Cannot restore run " + LineText.escape(runId) + ": bucket " + bucket
          + " has no versioning (GetBucketVersioning answers Off), so its deletes removed the objects for good: no"
          + " earlier version stays behind a delete marker to be made current again. Nothing was changed");
    }
    if (versioning.status().equals(BucketVersioning.UNKNOWN)) {
      throw new RestoreRefusedException("Cannot restore run " + LineText.escape(runId) + ": the versioning of bucket "
          + bucket + " cannot be read (" + versioning.unknownBecause() + "); restore needs s3:GetBucketVersioning on"
          + " arn:aws:s3:::" + export.bucket() + " to know that the deleted versions are still there. Nothing was"
          + " changed");
    }
  }

  /**
   * The run's ledgers that no execute recorded (its driver stopped first; pipeline/README.md, "Every delete on the
   * record"), recorded into {@code executions} before anything reads it, as the run's next execute would record them:
   * their deletes, delete markers included, are then the restore's to take back, and a run whose driver died before it
   * recorded anything is no longer "never executed". A dry run that could not take the run lock records none (an
   * execute of the run may still be writing them) and says so.
   */
  private void recordLeftovers(Tables tables, ActionLock lock, String restoreId, RunMetrics metrics) {
    ExecuteOptions asExecute = new ExecuteOptions(export, options.deletes(), false, java.time.Duration.ZERO);
    LedgerRecorder ledger = new LedgerRecorder(spark, asExecute, metrics);
    if (!lock.taken()) {
      List<LedgerRecorder.Leftover> leftovers = ledger.leftovers(null, runId);
      if (!leftovers.isEmpty()) {
        LOG.warn("Run {} has {} ledgers no execute recorded (under s3://{}/{}); without the run lock this dry run does"
            + " not record them, and what they deleted is not in it: run it with the lock, or the restore itself",
            LineText.escape(runId), leftovers.size(), export.bucket(),
            LineText.escape(ledger.folder(runId, leftovers.get(0).attemptId())));
      }
      return;
    }
    List<String> recorded = new LeftoverLedgers(spark, asExecute, ledger, new AttemptReport(spark, asExecute), LOG)
        .record(tables, null, runId, "restore " + restoreId);
    if (!recorded.isEmpty()) {
      LOG.info("Restore {} recorded the ledgers of run {} that no execute had: attempts {}", restoreId,
          LineText.escape(runId), LineText.escape(String.join(", ", recorded)));
    }
  }

  private RestoreResult restoreLocked(Tables tables, ActionLock lock, Instant startedAt, String restoreId,
      RunMetrics metrics) {
    spark.sparkContext().setJobGroup("statesweep-restore", "statesweep restore of run " + runId, false);
    try {
      Dataset<Row> byRecord = RestoreTargets.byRecord(spark, tables, runId, record).localCheckpoint(true);
      long records = byRecord.count();
      int partitions = (int) Math.max(1, Math.min(records, 2L * spark.sparkContext().defaultParallelism()));
      LOG.info("Restore {} of run {}{}: {} records in {} tasks{}", restoreId, LineText.escape(runId),
          record == null ? "" : " (record " + LineText.escape(record) + ")", records, partitions,
          options.dryRun() ? " (a dry run: nothing is changed)" : "");
      Dataset<Row> rows = new RestoreTasks(StoreAccess.of(export, metrics), restoreId, options.dryRun())
          .restore(Spread.byKey(byRecord, partitions, "state_file_key")).localCheckpoint(true);
      if (!options.dryRun()) {
        TableWrites.append(rows.drop("seq", "failed"), tables, Tables.RESTORATIONS);
      }
      RestoreResult.Counts counts = counts(rows);
      LineStream lines = new LineStream(sink);
      Iterator<Row> ordered = LineStream.inOrder(rows, counts.keys(), col("state_file_key"), col("seq"));
      ordered.forEachRemaining(row -> lines.accept(line(row)));
      double seconds = (Instant.now().toEpochMilli() - startedAt.toEpochMilli()) / 1000.0;
      String json = metricsJson(restoreId, counts, metrics, seconds);
      RestoreResult result = new RestoreResult(restoreId, runId, record, options.dryRun(), true, counts, tables,
          lines.sample(), lines.counts(), null, lock.outcome(), Metrics.of(json));
      LOG.info("Restore {} of run {}: {}", restoreId, LineText.escape(runId), result.summaryLine());
      return result;
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  private static RestoreResult.Counts counts(Dataset<Row> rows) {
    Row counted = rows.agg(expr("count(*)"), status(RestoreStatus.RESTORED), status(RestoreStatus.WRITTEN_SINCE),
        status(RestoreStatus.ALREADY_RESTORED), status(RestoreStatus.NOT_RESTORED), expr("count_if(failed)")).first();
    return new RestoreResult.Counts(counted.getLong(0), counted.getLong(1), counted.getLong(2), counted.getLong(3),
        counted.getLong(4), counted.getLong(5));
  }

  private static org.apache.spark.sql.Column status(RestoreStatus status) {
    return expr("count_if(restore_status = '" + status.label() + "')");
  }

  /** A row's line: what {@link io.statesweep.restore.KeyRestoration#line} says of it. */
  private LogLine line(Row row) {
    String key = row.getAs("key");
    String status = row.getAs("restore_status");
    if (!status.equals(RestoreStatus.RESTORED.label())) {
      return LogLine.left(key, row.getAs("detail"));
    }
    String marker = row.getAs("delete_marker");
    return options.dryRun() ? LogLine.wouldRestore(key, marker, row.getAs("run_id"))
        : LogLine.restored(key, marker, row.getAs("run_id"), row.getAs("version_made_current"));
  }

  private String metricsJson(String restoreId, RestoreResult.Counts counts, RunMetrics metrics, double seconds) {
    ObjectNode root = JSON.createObjectNode();
    root.put("metric", "statesweep.run");
    root.put("command", RestoreResult.COMMAND);
    root.put("run_id", runId);
    root.put("attempt_id", restoreId);
    root.put("dry_run", options.dryRun());
    root.put("complete", true);
    ObjectNode countsNode = root.putObject("counts");
    counts.byName().forEach(countsNode::put);
    root.putObject("seconds").put("total", Math.round(seconds * 1000) / 1000.0);
    ObjectNode requests = root.putObject("s3_requests");
    long retries = 0;
    long throttled = 0;
    for (Map.Entry<String, Map<String, Long>> operation : metrics.requests().entrySet()) {
      ObjectNode node = requests.putObject(operation.getKey());
      operation.getValue().forEach(node::put);
      retries += operation.getValue().getOrDefault("retries", 0L);
      throttled += operation.getValue().getOrDefault("throttled", 0L);
    }
    root.put("retries", retries);
    root.put("throttled", throttled);
    return root.toString();
  }
}
