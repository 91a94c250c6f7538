package io.statesweep.spark.restore;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;

import io.delta.tables.DeltaTable;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.RestoreRefusedException;
import io.statesweep.plan.LineText;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The deletes of a run that a restore takes back, read from {@code executions} (every attempt of the run): one row per
 * record ({@code state_file_key}, {@code run_date}, {@code deletions}), each of its deleted keys with the attempt that
 * deleted it, its role, the delete marker it got ({@code deleted.delete_marker}; null when none was recorded) and,
 * from {@code restorations}, the newest earlier restore of the run that restored it and the version it made current.
 * A row written before {@code deleted} existed names its keys in {@code deleted_keys} only: they have no marker.
 */
public final class RestoreTargets {
  private RestoreTargets() {}

  /**
   * Refuses a run that has no rows in {@code executions}, and a record the run deleted nothing of, naming the run,
   * the record and the table.
   */
  public static void checkRun(SparkSession spark, Tables tables, String runId, String record) {
    String run = "run " + LineText.escape(runId);
    if (!DeltaTable.isDeltaTable(spark, tables.executions())) {
      throw new RestoreRefusedException("Nothing to restore: " + run + " has no rows in table executions ("
          + tables.executions() + ": no execute wrote there yet). Give the run_id of an execute (its summary line, or"
          + " table runs where command = 'execute') and the --warehouse it wrote to");
    }
    Dataset<Row> rows = executions(spark, tables, runId);
    if (rows.isEmpty()) {
      throw new RestoreRefusedException("Nothing to restore: " + run + " has no rows in table executions ("
          + tables.executions() + "): it was never executed, or it wrote to another --warehouse. Give the run_id of"
          + " an execute (its summary line, or table runs where command = 'execute')");
    }
    if (record != null && keys(rows).filter(col("state_file_key").equalTo(record)).isEmpty()) {
      throw new RestoreRefusedException("Nothing to restore: " + run + " deleted nothing of record "
          + LineText.escape(record) + " (no deleted key of that state file in table executions, "
          + tables.executions() + "). Give the full key of a state file the run deleted keys of");
    }
  }

  /** The run's deletes by record (only {@code record}'s when it is not null), with what earlier restores did. */
  public static Dataset<Row> byRecord(SparkSession spark, Tables tables, String runId, String record) {
    Dataset<Row> keys = keys(executions(spark, tables, runId));
    if (record != null) {
      keys = keys.filter(col("state_file_key").equalTo(record));
    }
    if (DeltaTable.isDeltaTable(spark, tables.restorations())) {
      Dataset<Row> restored = spark.read().format("delta").load(tables.restorations())
          .filter(col("run_id").equalTo(runId).and(col("restore_status").equalTo("restored")))
          .groupBy(col("key").as("restored_key"))
          .agg(expr("concat('restore ', max_by(restore_id, restored_at))").as("restored_by"),
              expr("max_by(version_made_current, restored_at)").as("restored_version"));
      keys = keys.join(restored, keys.col("key").equalTo(restored.col("restored_key")), "left")
          .drop("restored_key");
    } else {
      keys = keys.withColumn("restored_by", lit(null).cast(DataTypes.StringType))
          .withColumn("restored_version", lit(null).cast(DataTypes.StringType));
    }
    // A key whose delete was never answered on the record is proven by its marker's time (RecordRestore): from its
    // record's verification to the end of its attempt, as the attempt's row of runs says.
    if (DeltaTable.isDeltaTable(spark, tables.runs())) {
      Dataset<Row> attempts = spark.read().format("delta").load(tables.runs())
          .filter(col("run_id").equalTo(runId).and(col("command").equalTo("execute")))
          .groupBy(col("attempt_id").as("ended_attempt")).agg(expr("max(ended_at)").as("sent_before"));
      keys = keys.join(attempts, keys.col("attempt_id").equalTo(attempts.col("ended_attempt")), "left")
          .drop("ended_attempt");
    } else {
      keys = keys.withColumn("sent_before", lit(null).cast(DataTypes.TimestampType));
    }
    keys = keys
        .withColumn("restored_by", expr("coalesce(restored_by, if(execute_restored is null, null,"
            + " concat('execute attempt ', attempt_id, ' (its record came back during its deletion)')))"))
        .withColumn("restored_version", expr("coalesce(restored_version, execute_restored)"))
        .drop("execute_restored");
    return keys.groupBy("state_file_key", "run_date")
        .agg(expr("collect_list(struct(run_id, attempt_id, key, role, delete_marker, etag, deleted_at, restored_by,"
            + " restored_version, sent_after, sent_before))").as("deletions"));
  }

  private static Dataset<Row> executions(SparkSession spark, Tables tables, String runId) {
    return spark.read().format("delta").load(tables.executions()).filter(col("run_id").equalTo(runId));
  }

  /** One row per deleted key per attempt: from {@code deleted}, or from {@code deleted_keys} where it is null. */
  private static Dataset<Row> keys(Dataset<Row> executions) {
    List<String> columns = List.of(executions.columns());
    Column stateFile = col("state_file_key");
    Dataset<Row> fromKeys = executions
        .filter(columns.contains("deleted") ? col("deleted").isNull() : lit(true))
        .select(col("run_id"), col("run_date"), col("attempt_id"), stateFile, expr("explode(deleted_keys)").as("key"))
        .withColumn("role", expr("case when key = state_file_key then 'state_file' else 'file' end"))
        .withColumn("delete_marker", lit(null).cast(DataTypes.StringType))
        .withColumn("etag", lit(null).cast(DataTypes.StringType))
        .withColumn("deleted_at", lit(null).cast(DataTypes.TimestampType))
        .withColumn("execute_restored", lit(null).cast(DataTypes.StringType))
        .withColumn("sent_after", lit(null).cast(DataTypes.TimestampType));
    if (!columns.contains("deleted")) {
      return fromKeys;
    }
    StructType deleted = (StructType) ((ArrayType) executions.schema().apply("deleted").dataType()).elementType();
    Column marker = List.of(deleted.fieldNames()).contains("delete_marker") ? col("d.delete_marker")
        : lit(null).cast(DataTypes.StringType);
    // A file of a record that came back during its deletion that the execute made current again (README,
    // "Versioned buckets"): restored already, by the execute.
    Column executeRestored = List.of(deleted.fieldNames()).contains("restored_version") ? col("d.restored_version")
        : lit(null).cast(DataTypes.StringType);
    Dataset<Row> fromDeleted = executions.filter(col("deleted").isNotNull())
        .select(col("run_id"), col("run_date"), col("attempt_id"), stateFile, col("started_at"),
            expr("explode(deleted)").as("d"))
        .select(col("run_id"), col("run_date"), col("attempt_id"), stateFile, col("d.key").as("key"),
            col("d.role").as("role"), marker.as("delete_marker"), col("d.etag").as("etag"),
            col("d.deleted_at").as("deleted_at"),
            executeRestored.as("execute_restored"), col("started_at").as("sent_after"));
    return fromDeleted.unionByName(fromKeys);
  }
}
