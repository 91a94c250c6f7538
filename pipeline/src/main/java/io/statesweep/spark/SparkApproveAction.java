package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;

import io.delta.tables.DeltaTable;
import io.statesweep.plan.LineText;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Records that a person reviewed a plan and approves its execution: one row of table
 * {@code approvals} with who, when, an optional note, what the plan deletes (records, keys, bytes),
 * and the digest of the plan's rows ({@code plan_digest}, {@code plan_rows}; see {@link PlanDigest}),
 * so the approval says what was approved and binds to it. {@code execute --run-id} refuses a plan
 * without an approval, and a plan whose rows no longer match its newest approval's digest.
 */
public final class SparkApproveAction {
  static final StructType SCHEMA = new StructType()
      .add("run_id", DataTypes.StringType, false)
      .add("run_date", DataTypes.StringType, false)
      .add("approved_by", DataTypes.StringType, false)
      .add("approved_at", DataTypes.TimestampType, false)
      .add("note", DataTypes.StringType, true)
      .add("bucket", DataTypes.StringType, false)
      .add("prefix", DataTypes.StringType, false)
      .add("planned_at", DataTypes.TimestampType, false)
      .add("records_to_delete", DataTypes.LongType, false)
      .add("records_with_removed_files", DataTypes.LongType, false)
      .add("keys_to_delete", DataTypes.LongType, false)
      .add("bytes_to_delete", DataTypes.LongType, false)
      .add("plan_rows", DataTypes.LongType, false)
      .add("plan_digest", DataTypes.StringType, false);

  private static final int MAX_NAME = 200;

  private final SparkSession spark;
  private final Tables tables;
  private Clock clock = Clock.systemUTC();

  public SparkApproveAction(SparkSession spark, Tables tables) {
    this.spark = requireNonNull(spark, "spark is null");
    this.tables = requireNonNull(tables, "tables is null");
  }

  public SparkApproveAction clock(Clock newClock) {
    this.clock = requireNonNull(newClock, "clock is null");
    return this;
  }

  /** What was approved, as one line for the log. */
  public record Approval(String runId, String approvedBy, Instant approvedAt, long recordsToDelete,
      long recordsWithRemovedFiles, long keysToDelete, long bytesToDelete, long planRows, String planDigest) {
    /** The approval as one line, who approved escaped ({@link LineText#escape}; table approvals holds it as given). */
    public String line() {
      return "approved run " + LineText.escape(runId) + " by " + LineText.escape(approvedBy) + " at " + approvedAt
          + ": records_to_delete=" + recordsToDelete + " records_with_removed_files=" + recordsWithRemovedFiles
          + " keys_to_delete=" + keysToDelete + " bytes_to_delete=" + bytesToDelete + " plan_rows=" + planRows
          + " plan_digest=" + planDigest;
    }
  }

  public Approval approve(String runId, String approvedBy, String note) {
    requireNonNull(runId, "runId is null");
    if (approvedBy == null || approvedBy.isBlank()) {
      throw new IllegalArgumentException("Missing --by: who approves the plan (a name or an email)");
    }
    if (approvedBy.length() > MAX_NAME) {
      throw new IllegalArgumentException("--by is longer than " + MAX_NAME + " characters");
    }
    CatalogTables.registerAll(spark, tables);
    Row plan = RunsTable.planRow(spark, tables, runId);
    String runDate = plan.getAs("run_date");
    // The counts and the digest read one version of the plan: what they describe is what was approved.
    long version = PlanDigest.currentVersion(spark, tables);
    PlanDigest.Result digest = PlanDigest.of(spark, tables, version, runDate, runId);
    Row counts = PlanDigest.planRows(spark, tables, version, runDate, runId)
        .agg(expr("count_if(action = 'delete_record')"), expr("count_if(action = 'delete_removed_files')"),
            expr("coalesce(sum(keys_to_delete), 0)"), expr("coalesce(sum(bytes_to_delete), 0)"))
        .first();
    Instant now = clock.instant();
    Row row = RowFactory.create(runId, runDate, approvedBy.trim(), Timestamp.from(now),
        note == null || note.isBlank() ? null : note.trim(), plan.getAs("bucket"), plan.getAs("prefix"),
        plan.getAs("planned_at"), counts.getLong(0), counts.getLong(1), counts.getLong(2), counts.getLong(3),
        digest.rows(), digest.digest());
    SparkPlanAction.append(spark.createDataFrame(List.of(row), SCHEMA), tables, Tables.APPROVALS);
    return new Approval(runId, approvedBy.trim(), now, counts.getLong(0), counts.getLong(1), counts.getLong(2),
        counts.getLong(3), digest.rows(), digest.digest());
  }

  /**
   * The approvals of a run, newest first, as {@code approved_by}, {@code approved_at}, {@code plan_digest},
   * {@code plan_rows}; empty when there is none (or no table yet). An approval recorded before approvals
   * carried a digest has a null {@code plan_digest}.
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
            columns.contains("plan_rows") ? col("plan_rows") : lit(null).cast(DataTypes.LongType))
        .collectAsList();
  }
}
