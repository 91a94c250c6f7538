package io.statesweep.spark.tables;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.run.RootMessage;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.plan.RunSummary;
import io.statesweep.state.StateParser;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import static org.apache.spark.sql.functions.col;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Table {@code runs}: one row per command a run goes through (its {@code plan}, then each
 * {@code execute} attempt), with its settings, counts and outcome.
 */
public final class RunsTable {
  /** A live record's files that the bucket lacks: the plan's count (README, "The summary line": {@code missing_files=}). */
  public static final String MISSING_FILES = "missing_files";

  /** Dollars, to the millionth. */
  public static final DataType USD = DataTypes.createDecimalType(20, io.statesweep.cost.Costs.SCALE);
  /** Counts by name (requests by S3 operation, bytes by storage class). */
  static final DataType REQUESTS = DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType);

  public static final StructType SCHEMA = new StructType(new StructField[] {
      field("run_id", DataTypes.StringType, false),
      field("run_date", DataTypes.StringType, false),
      field("attempt_id", DataTypes.StringType, false),
      field("command", DataTypes.StringType, false),
      field("dry_run", DataTypes.BooleanType, false),
      field("complete", DataTypes.BooleanType, false),
      field("started_at", DataTypes.TimestampType, false),
      field("ended_at", DataTypes.TimestampType, false),
      field("planned_at", DataTypes.TimestampType, false),
      field("bucket", DataTypes.StringType, false),
      field("prefix", DataTypes.StringType, false),
      field("layout", DataTypes.StringType, false),
      field("layout_fingerprint", DataTypes.StringType, false),
      field("grace_days", DataTypes.IntegerType, false),
      field("settings", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType), false),
      field("conditional_deletes", DataTypes.StringType, true),
      field("listing_tasks", DataTypes.LongType, false),
      field("keys_listed", DataTypes.LongType, false),
      field("state_files_scanned", DataTypes.LongType, false),
      field("records_deleted", DataTypes.LongType, false),
      field("child_keys_deleted", DataTypes.LongType, false),
      field("bytes_deleted", DataTypes.LongType, false),
      field("records_kept", DataTypes.LongType, false),
      field("kept_newer_files", DataTypes.LongType, false),
      field("kept_refused", DataTypes.LongType, false),
      field("bad_state", DataTypes.LongType, false),
      field("not_yet_due", DataTypes.LongType, false),
      field("skipped", DataTypes.LongType, false),
      field("errors", DataTypes.LongType, false),
      field("state_changed", DataTypes.LongType, false),
      field("already_deleted", DataTypes.LongType, false),
      field("changed_during_delete", DataTypes.LongType, false),
      field("summary", DataTypes.StringType, false),
      field("failure", DataTypes.StringType, true),
      field("listing", DataTypes.StringType, true),
      field("inventory_manifest", DataTypes.StringType, true),
      field("inventory_date", DataTypes.TimestampType, true),
      field("state_parser", DataTypes.StringType, true),
      field("came_back_during_delete", DataTypes.LongType, true),
      field("missing_files", DataTypes.LongType, true),
      // The cost of a run (README, "The cost of a run"): null where it was not counted.
      field("s3_requests", REQUESTS, true),
      field("cost_usd", USD, true),
      field("execute_requests", REQUESTS, true),
      field("execute_cost_usd", USD, true),
      field("bytes_by_storage_class", REQUESTS, true),
      field("saves_usd_per_month", USD, true),
      field("early_delete_usd", USD, true),
      field("price_region", DataTypes.StringType, true),
      field("prices", DataTypes.StringType, true),
      field("bucket_versioning", DataTypes.StringType, true),
      field("versioning_note", DataTypes.StringType, true)});

  private RunsTable() {}

  /** One row of the table. {@code conditionalDeletes} is null for a plan. */
  public record RunRow(String runId, String runDate, String attemptId, String command, Instant startedAt, Instant endedAt,
      Instant plannedAt, String bucket, String prefix, String layout, String layoutFingerprint, int graceDays, Map<String, String> settings,
      String conditionalDeletes, long listingTasks, long keysListed, long bytesDeleted, long badState, long notYetDue,
      long stateChanged, long alreadyDeleted, long changedDuringDelete, Long cameBackDuringDelete, RunSummary summary,
      String failure, Source source, io.statesweep.cost.PlanCost cost) {
    public RunRow {
      requireNonNull(runId, "runId is null");
      requireNonNull(summary, "summary is null");
      requireNonNull(source, "source is null");
      settings = Map.copyOf(settings);
    }
  }

  /**
   * Where a plan's view of the bucket came from: {@code list}, or {@code inventory} with the report's
   * manifest and the time the inventory was taken. Execute attempts verify live and have none.
   */
  public record Source(String listing, String inventoryManifest, Instant inventoryDate) {
    public static final Source NONE = new Source(null, null, null);
    public static final Source LIST = new Source("list", null, null);
  }

  private static StructField field(String name, DataType type, boolean nullable) {
    return DataTypes.createStructField(name, type, nullable);
  }

  public static Dataset<Row> dataset(SparkSession spark, RunRow run) {
    RunSummary summary = run.summary();
    io.statesweep.cost.PlanCost cost = run.cost();
    // An execute attempt records what it cost; what executing will cost and save is the plan's.
    io.statesweep.cost.PlanCost plan = "plan".equals(run.command()) ? cost : null;
    Row row = RowFactory.create(
        run.runId(), run.runDate(), run.attemptId(), run.command(), summary.dryRun(), summary.complete(),
        Timestamp.from(run.startedAt()), Timestamp.from(run.endedAt()), Timestamp.from(run.plannedAt()),
        run.bucket(), run.prefix(), run.layout(), run.layoutFingerprint(), run.graceDays(), new TreeMap<>(run.settings()),
        run.conditionalDeletes(), run.listingTasks(), run.keysListed(), summary.stateFilesScanned(),
        summary.recordsDeleted(), summary.childKeysDeleted(), run.bytesDeleted(), summary.recordsKept(),
        summary.keptNewerFiles(), summary.keptRefused(), run.badState(), run.notYetDue(), summary.skipped(),
        summary.errors(), run.stateChanged(), run.alreadyDeleted(), run.changedDuringDelete(), summary.line(),
        run.failure(), run.source().listing(), run.source().inventoryManifest(),
        run.source().inventoryDate() == null ? null : Timestamp.from(run.source().inventoryDate()),
        "plan".equals(run.command()) ? StateParser.VERSION : null, run.cameBackDuringDelete(),
        summaryCount(summary, MISSING_FILES),
        cost == null ? null : new TreeMap<>(cost.requests()), usd(cost == null ? null : cost.costUsd()),
        plan == null ? null : new TreeMap<>(plan.executeRequests()), usd(plan == null ? null : plan.executeCostUsd()),
        plan == null ? null : new TreeMap<>(plan.bytesByStorageClass()),
        usd(plan == null ? null : plan.savesUsdPerMonth()), usd(plan == null ? null : plan.earlyDeleteUsd()),
        cost == null ? null : cost.region(), cost == null ? null : cost.prices(),
        plan == null ? null : plan.bucketVersioning(), plan == null ? null : plan.versioningNote());
    return spark.createDataFrame(List.of(row), SCHEMA);
  }

  private static java.math.BigDecimal usd(java.math.BigDecimal amount) {
    return amount == null ? null : io.statesweep.cost.Costs.rounded(amount);
  }

  /** A count that the summary carries as an extra pair; null when it has none (a run stopped before counting). */
  private static Long summaryCount(RunSummary summary, String name) {
    String value = summary.extra().get(name);
    return value == null ? null : Long.valueOf(value);
  }

  /**
   * The plan's {@code missing_files}, which its execute attempts repeat in their summaries; empty for a
   * plan recorded before the column existed.
   */
  public static OptionalLong missingFiles(Row plan) {
    boolean recorded = Arrays.asList(plan.schema().fieldNames()).contains(MISSING_FILES)
        && !plan.isNullAt(plan.fieldIndex(MISSING_FILES));
    return recorded ? OptionalLong.of(plan.<Long>getAs(MISSING_FILES)) : OptionalLong.empty();
  }

  /** The plan's own row in {@code runs}: it must exist and be complete. */
  public static Row planRow(SparkSession spark, Tables tables, String runId) {
    List<Row> rows;
    try {
      rows = spark.read().format("delta").load(tables.runs())
          .filter(col("run_id").equalTo(runId).and(col("command").equalTo("plan"))).collectAsList();
    } catch (Exception e) {
      throw new PlanRefusedException("No plan with run id " + runId + ": cannot read table " + tables.runs()
          + ": " + RootMessage.of(e), e);
    }
    if (rows.isEmpty()) {
      throw new PlanRefusedException("No plan with run id " + runId + " in " + tables.runs()
          + ": run plan first, and give its run_id");
    }
    Row plan = rows.get(0);
    if (!plan.<Boolean>getAs("complete")) {
      throw new PlanRefusedException("The plan of run " + runId + " did not complete: plan again");
    }
    return plan;
  }
}
