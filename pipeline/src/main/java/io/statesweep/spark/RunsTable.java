package io.statesweep.spark;

import io.statesweep.config.PlanOptions;
import io.statesweep.plan.RunSummary;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** The one row a run adds to table {@code runs}: its settings, counts and outcome. */
final class RunsTable {
  static final StructType SCHEMA = new StructType(new StructField[] {
      field("run_id", DataTypes.StringType, false),
      field("run_date", DataTypes.StringType, false),
      field("command", DataTypes.StringType, false),
      field("dry_run", DataTypes.BooleanType, false),
      field("complete", DataTypes.BooleanType, false),
      field("started_at", DataTypes.TimestampType, false),
      field("ended_at", DataTypes.TimestampType, false),
      field("planned_at", DataTypes.TimestampType, false),
      field("bucket", DataTypes.StringType, false),
      field("prefix", DataTypes.StringType, false),
      field("layout", DataTypes.StringType, false),
      field("grace_days", DataTypes.IntegerType, false),
      field("settings", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType), false),
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
      field("summary", DataTypes.StringType, false),
      field("failure", DataTypes.StringType, true)});

  private RunsTable() {}

  private static StructField field(String name, org.apache.spark.sql.types.DataType type, boolean nullable) {
    return DataTypes.createStructField(name, type, nullable);
  }

  static Dataset<Row> row(SparkSession spark, RunContext run, PlanOptions options, Instant startedAt, Instant endedAt,
      RunSummary summary, SparkPlanAction.Counts counts, String failure) {
    Row row = RowFactory.create(
        run.runId(), run.runDate(), "plan", summary.dryRun(), summary.complete(),
        Timestamp.from(startedAt), Timestamp.from(endedAt), Timestamp.from(run.now()),
        options.bucket(), options.prefix().value(), options.layout().name(), options.graceDays(),
        new java.util.TreeMap<>(options.settings()),
        counts.listingTasks(), counts.keysListed(), summary.stateFilesScanned(), summary.recordsDeleted(),
        summary.childKeysDeleted(), counts.bytes(), summary.recordsKept(), summary.keptNewerFiles(),
        summary.keptRefused(), counts.badState(), counts.notYetDue(), summary.skipped(), summary.errors(),
        summary.line(), failure);
    return spark.createDataFrame(List.of(row), SCHEMA);
  }
}
