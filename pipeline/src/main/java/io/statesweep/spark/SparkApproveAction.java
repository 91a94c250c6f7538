package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;

import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.tables.CatalogTables;
import io.statesweep.spark.tables.PlanDigest;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.spark.tables.TableDocs;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.tables.TableWrites;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.api.failures.BadSettingsException;
import io.delta.tables.DeltaTable;
import io.statesweep.api.Approval;
import io.statesweep.api.Tables;
import io.statesweep.plan.LineText;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * Records that a person reviewed a plan and approves its execution: one row of table
 * {@code approvals} with who, when, an optional note, what the plan deletes (records, keys, bytes),
 * and the digest of the plan's rows ({@code plan_digest}, {@code plan_rows}; see {@link PlanDigest}),
 * so the approval says what was approved and binds to it. {@code execute --run-id} refuses a plan
 * without an approval, and a plan whose rows no longer match its newest approval's digest.
 */
final class SparkApproveAction {
  private static final int MAX_NAME = 200;

  private final SparkSession spark;
  private final Tables tables;
  private Clock clock = Clock.systemUTC();

  SparkApproveAction(SparkSession spark, Tables tables) {
    this.spark = requireNonNull(spark, "spark is null");
    this.tables = requireNonNull(tables, "tables is null");
  }

  SparkApproveAction clock(Clock newClock) {
    this.clock = requireNonNull(newClock, "clock is null");
    return this;
  }

  Approval approve(String runId, String approvedBy, String note) {
    return approve(runId, approvedBy, note, null);
  }

  /**
   * What an approval of {@code runId} would record now (its counts and the digest of the plan's rows), recording
   * nothing: a reviewer sees the digest before approving, and approves that digest ({@link #approve(String, String,
   * String, String)}). Its {@code approvedBy} is empty and {@code approvedAt} the time of the preview.
   */
  Approval preview(String runId) {
    requireNonNull(runId, "runId is null");
    try (ActionSettings settings = ActionSettings.of(spark)) {
      return previewed(runId);
    }
  }

  private Approval previewed(String runId) {
    Row plan = RunsTable.planRow(spark, tables, runId);
    String runDate = plan.getAs("run_date");
    long version = PlanDigest.currentVersion(spark, tables);
    return counted(runId, "", clock.instant(), runDate, version);
  }

  /**
   * Records the approval of {@code runId}, only when the digest of its rows now is {@code expectedDigest} (null:
   * whatever it is): an approval typed or saved for one version of the plan does not approve another.
   *
   * @throws PlanRefusedException when the digest differs, naming both (and for a run with no complete plan)
   * @throws BadSettingsException without {@code approvedBy}
   */
  Approval approve(String runId, String approvedBy, String note, String expectedDigest) {
    requireNonNull(runId, "runId is null");
    if (approvedBy == null || approvedBy.isBlank()) {
      throw new BadSettingsException("Missing --by: who approves the plan (a name or an email)");
    }
    if (approvedBy.length() > MAX_NAME) {
      throw new BadSettingsException("--by is longer than " + MAX_NAME + " characters");
    }
    try (ActionSettings settings = ActionSettings.of(spark)) {
      return approved(runId, approvedBy, note, expectedDigest);
    }
  }

  private Approval approved(String runId, String approvedBy, String note, String expectedDigest) {
    CatalogTables.registerAll(spark, tables);
    Row plan = RunsTable.planRow(spark, tables, runId);
    String runDate = plan.getAs("run_date");
    // The counts and the digest read one version of the plan: what they describe is what was approved.
    long version = PlanDigest.currentVersion(spark, tables);
    Approval approval = counted(runId, approvedBy.trim(), clock.instant(), runDate, version);
    if (expectedDigest != null && !expectedDigest.trim().equals(approval.planDigest())) {
      throw new PlanRefusedException("Not approved: the plan of run " + runId + " has digest "
          + approval.planDigest() + " (" + approval.planRows() + " rows), not " + LineText.escape(expectedDigest.trim())
          + ", the digest given to approve: its rows changed since that digest was read, or it is another plan's."
          + " Review the plan again and approve its digest");
    }
    Row row = RowFactory.create(runId, runDate, approval.approvedBy(), Timestamp.from(approval.approvedAt()),
        note == null || note.isBlank() ? null : note.trim(), plan.getAs("bucket"), plan.getAs("prefix"),
        plan.getAs("planned_at"), approval.recordsToDelete(), approval.recordsWithRemovedFiles(),
        approval.keysToDelete(), approval.bytesToDelete(), approval.planRows(), approval.planDigest(), version);
    TableWrites.append(spark.createDataFrame(List.of(row), TableSchemas.APPROVALS.structType()), tables,
        Tables.APPROVALS);
    return approval;
  }

  /** The counts and the digest of one version of the plan: what they describe is what is approved. */
  private Approval counted(String runId, String approvedBy, Instant at, String runDate, long version) {
    PlanDigest.Result digest = PlanDigest.of(spark, tables, version, runDate, runId);
    Row counts = PlanDigest.planRows(spark, tables, version, runDate, runId)
        .agg(expr("count_if(action = 'delete_record')"), expr("count_if(action = 'delete_removed_files')"),
            expr("coalesce(sum(keys_to_delete), 0)"), expr("coalesce(sum(bytes_to_delete), 0)"))
        .first();
    return new Approval(runId, approvedBy, at, counts.getLong(0), counts.getLong(1), counts.getLong(2),
        counts.getLong(3), digest.rows(), digest.digest());
  }

  /** Table approvals, empty, unless it exists: a plan makes it, so that the notebooks can read it at once. */
  static void createTableIfMissing(SparkSession spark, Tables tables) {
    TableDocs.createIfMissing(spark.createDataFrame(List.of(), TableSchemas.APPROVALS.structType()), tables,
        Tables.APPROVALS);
  }

  /**
   * Which plan {@code execute --latest-approved} executes: the newest complete plan of {@code bucket} and
   * {@code prefix} that someone approved, if it was made within {@code maxPlanAge} of {@code now} and no execute
   * attempt of it completed yet (one that stopped at its bound did not: the next goes on); otherwise none, and why ({@link LatestApproved#why}). Only the newest approved
   * plan counts: an older one is never executed after a newer one was approved, since the newer one saw the bucket
   * later. Whether its rows still match its approval is {@link SparkExecuteAction}'s check, as for any run id.
   */
  static LatestApproved latestApproved(SparkSession spark, Tables tables, String bucket, String prefix,
      java.time.Duration maxPlanAge, Instant now) {
    String export = "s3://" + bucket + "/" + prefix;
    if (!DeltaTable.isDeltaTable(spark, tables.runs())) {
      return LatestApproved.none("no plan of " + export + " was made in " + tables.warehouse() + " yet: run plan,"
          + " review it and approve it");
    }
    Dataset<Row> plans = spark.read().format("delta").load(tables.runs())
        .filter(col("command").equalTo("plan").and(col("complete")).and(col("bucket").equalTo(bucket))
            .and(col("prefix").equalTo(prefix)))
        .select("run_id", "planned_at");
    List<Row> newestPlan = plans.orderBy(col("planned_at").desc(), col("run_id").desc()).limit(1).collectAsList();
    if (newestPlan.isEmpty()) {
      return LatestApproved.none("no complete plan of " + export + " is in " + tables.runs() + ": run plan, review it"
          + " and approve it");
    }
    String newest = "the newest plan, run " + newestPlan.get(0).getString(0) + " of "
        + newestPlan.get(0).getTimestamp(1).toInstant() + ", ";
    String approve = "statesweep approve --run-id " + newestPlan.get(0).getString(0) + " --by <your name> --warehouse "
        + tables.warehouse();
    if (!DeltaTable.isDeltaTable(spark, tables.approvals())) {
      return LatestApproved.none("no plan of " + export + " was approved yet: " + newest + "awaits review; approve"
          + " it with: " + approve);
    }
    Dataset<Row> approved = spark.read().format("delta").load(tables.approvals()).select("run_id").distinct();
    List<Row> newestApproved = plans.join(approved, "run_id")
        .orderBy(col("planned_at").desc(), col("run_id").desc()).limit(1).collectAsList();
    if (newestApproved.isEmpty()) {
      return LatestApproved.none("no plan of " + export + " was approved yet: " + newest + "awaits review; approve"
          + " it with: " + approve);
    }
    String runId = newestApproved.get(0).getString(0);
    Instant plannedAt = newestApproved.get(0).getTimestamp(1).toInstant();
    boolean newerAwaits = !runId.equals(newestPlan.get(0).getString(0));
    String awaits = newerAwaits ? "; " + newest + "awaits review (approve it with: " + approve + ")" : "";
    if (java.time.Duration.between(plannedAt, now).compareTo(maxPlanAge) > 0) {
      return LatestApproved.none("the newest approved plan of " + export + ", run " + runId + ", was made at "
          + plannedAt + ", longer ago than max-plan-age " + maxPlanAge.toString().substring(2).toLowerCase(
              java.util.Locale.ROOT) + awaits);
    }
    List<Row> done = spark.read().format("delta").load(tables.runs())
        .filter(col("run_id").equalTo(runId).and(col("command").equalTo("execute")).and(col("complete"))
            // An attempt that stopped at its bound left the rest of the plan for the next one.
            .and(functions.not(col("summary").contains(" deferred_records="))))
        .select("attempt_id", "ended_at").orderBy(col("ended_at")).limit(1).collectAsList();
    if (!done.isEmpty()) {
      return LatestApproved.none("the newest approved plan of " + export + ", run " + runId + ", was executed"
          + " completely by attempt " + done.get(0).getString(0) + " at " + done.get(0).getTimestamp(1).toInstant()
          + awaits);
    }
    return new LatestApproved(runId, null);
  }

  /**
   * The plan that {@code execute --latest-approved} executes, or none and why.
   *
   * @param runId the run id of the plan to execute; null for none
   * @param why why no plan is executed; null when one is
   */
  record LatestApproved(String runId, String why) {
    static LatestApproved none(String why) {
      return new LatestApproved(null, requireNonNull(why, "why is null"));
    }
  }

  /**
   * The approvals of a run, newest first, as {@code approved_by}, {@code approved_at}, {@code plan_digest},
   * {@code plan_rows}, {@code plan_version}; empty when there is none (or no table yet). An approval recorded before
   * approvals carried a digest has a null {@code plan_digest}, one before they carried a version a null
   * {@code plan_version}.
   */
  static List<Row> approvals(SparkSession spark, Tables tables, String runId) {
    if (!DeltaTable.isDeltaTable(spark, tables.approvals())) {
      return List.of();
    }
    Dataset<Row> approvals = spark.read().format("delta").load(tables.approvals());
    List<String> columns = List.of(approvals.columns());
    return approvals.filter(col("run_id").equalTo(runId)).orderBy(col("approved_at").desc())
        .select(col("approved_by"), col("approved_at"),
            columns.contains("plan_digest") ? col("plan_digest") : lit(null).cast(DataTypes.StringType),
            columns.contains("plan_rows") ? col("plan_rows") : lit(null).cast(DataTypes.LongType),
            columns.contains("plan_version") ? col("plan_version") : lit(null).cast(DataTypes.LongType))
        .collectAsList();
  }
}
