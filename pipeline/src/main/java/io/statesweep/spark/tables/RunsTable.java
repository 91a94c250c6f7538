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

/**
 * Table {@code runs}: one row per command a run goes through (its {@code plan}, then each
 * {@code execute} attempt), with its settings, counts and outcome. Its columns and their types are declared in
 * {@link TableSchemas#RUNS}.
 */
public final class RunsTable {
  /** A live record's files that the bucket lacks: the plan's count (pipeline/README.md, "The summary line": {@code
   * missing_files=}). */
  public static final String MISSING_FILES = "missing_files";

  /** Dollars, to the millionth. */
  public static final DataType USD = DataTypes.createDecimalType(20, io.statesweep.cost.Costs.SCALE);
  /** Counts by name (requests by S3 operation, bytes by storage class). */
  static final DataType REQUESTS = DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType);

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

  public static Dataset<Row> dataset(SparkSession spark, RunRow run) {
    RunSummary summary = run.summary();
    io.statesweep.cost.PlanCost cost = run.cost();
    // An execute attempt records what it cost; what executing will cost and save is the plan's.
    io.statesweep.cost.PlanCost plan = "plan".equals(run.command()) ? cost : null;
    io.statesweep.cost.NoncurrentVersions noncurrent = plan == null ? null : plan.noncurrentVersions();
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
        plan == null ? null : plan.bucketVersioning(), plan == null ? null : plan.versioningNote(),
        noncurrent == null ? null : noncurrent.versions(), noncurrent == null ? null : noncurrent.bytes(), VERSION);
    return spark.createDataFrame(List.of(row), TableSchemas.RUNS.structType());
  }

  /**
   * The version of statesweep running, as the build wrote it into the jar ({@code statesweep-version.properties}):
   * every row of runs records it, so that a plan and its execute can be told apart when the jar changed between them.
   */
  public static final String VERSION = version();

  private static String version() {
    java.util.Properties properties = new java.util.Properties();
    try (java.io.InputStream in = RunsTable.class.getResourceAsStream("/io/statesweep/statesweep-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      properties.load(in);
    } catch (java.io.IOException e) {
      return "unknown";
    }
    return properties.getProperty("version", "unknown");
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
