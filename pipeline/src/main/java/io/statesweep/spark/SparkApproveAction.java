package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.delta.tables.DeltaTable;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Records that a person reviewed a plan and approves its execution: one row of table
 * {@code approvals} with who, when, an optional note, and what the plan deletes (records, keys,
 * bytes), so the approval says what was approved. {@code execute --run-id} refuses a plan without one.
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
      .add("bytes_to_delete", DataTypes.LongType, false);

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
      long recordsWithRemovedFiles, long keysToDelete, long bytesToDelete) {
    public String line() {
      return "approved run " + runId + " by " + approvedBy + " at " + approvedAt + ": records_to_delete="
          + recordsToDelete + " records_with_removed_files=" + recordsWithRemovedFiles + " keys_to_delete="
          + keysToDelete + " bytes_to_delete=" + bytesToDelete;
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
    Row plan = RunsTable.planRow(spark, tables, runId);
    String runDate = plan.getAs("run_date");
    Row counts = spark.read().format("delta").load(tables.deletionPlan())
        .filter(col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId)))
        .agg(expr("count_if(action = 'delete_record')"), expr("count_if(action = 'delete_removed_files')"),
            expr("coalesce(sum(keys_to_delete), 0)"), expr("coalesce(sum(bytes_to_delete), 0)"))
        .first();
    Instant now = clock.instant();
    Row row = RowFactory.create(runId, runDate, approvedBy.trim(), Timestamp.from(now),
        note == null || note.isBlank() ? null : note.trim(), plan.getAs("bucket"), plan.getAs("prefix"),
        plan.getAs("planned_at"), counts.getLong(0), counts.getLong(1), counts.getLong(2), counts.getLong(3));
    SparkPlanAction.append(spark.createDataFrame(List.of(row), SCHEMA), tables.approvals());
    return new Approval(runId, approvedBy.trim(), now, counts.getLong(0), counts.getLong(1), counts.getLong(2),
        counts.getLong(3));
  }

  /** The approvals of a run, newest first; empty when there is none (or no table yet). */
  static List<Row> approvals(SparkSession spark, Tables tables, String runId) {
    if (!DeltaTable.isDeltaTable(spark, tables.approvals())) {
      return List.of();
    }
    return spark.read().format("delta").load(tables.approvals())
        .filter(col("run_id").equalTo(runId)).orderBy(col("approved_at").desc())
        .select("approved_by", "approved_at").collectAsList();
  }
}
