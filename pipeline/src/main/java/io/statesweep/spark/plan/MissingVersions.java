package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.struct;

import io.statesweep.api.Tables;
import io.statesweep.plan.MissingVersion;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.rows.VersionLookupRow;
import io.statesweep.spark.run.StoreAccess;
import io.statesweep.store.ObjectVersion;
import io.statesweep.store.StoreException;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The {@code missing <key>} lines on a versioned bucket (pipeline/README.md, "The summary line"): the latest version of
 * each missing file, looked up with ListObjectVersions in tasks (the first {@link #MAX_LOOKUPS} by state file and
 * position), and, when it is a delete marker, the execute that wrote it, from {@code executions.deleted.delete_marker}.
 * A failed lookup (ListObjectVersions denied: {@code s3:ListBucketVersions}) is an answer of its line, never a failure
 * of the plan.
 */
public final class MissingVersions {
  /** How many missing files a plan looks up at most: one ListObjectVersions each. */
  public static final int MAX_LOOKUPS = 10_000;
  private static final int KEYS_PER_TASK = 100;

  private MissingVersions() {}

  /**
   * The latest version of the first {@code bound} rows of {@code missingDS} ({@code state_file_key}, {@code position},
   * {@code key}), with the run and record whose execute wrote it when it is one of statesweep's delete markers. Held
   * by the job (a local checkpoint, made now), so its requests are counted where it is called.
   */
  public static Dataset<Row> lookUp(SparkSession spark, Dataset<Row> missingDS, StoreAccess access, Tables tables,
      int bound) {
    Dataset<String> keys = missingDS.orderBy(col("state_file_key"), col("position")).limit(bound)
        .select(col("key")).distinct().as(Encoders.STRING());
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    int tasks = (int) Math.max(1, Math.min(parallelism, ((long) bound + KEYS_PER_TASK - 1) / KEYS_PER_TASK));
    Dataset<Row> found = keys.repartition(tasks).mapPartitions(new LookUp(access), VersionLookupRow.ENCODER)
        .select(col("key"), col("versionId").as("version_id"), col("deleteMarker").as("delete_marker"),
            col("error"))
        // Once: the joins below read it twice, and each lookup is a request.
        .localCheckpoint(true);
    Dataset<Row> markers = statesweepMarkers(spark, tables);
    Dataset<Row> attributed;
    if (markers == null) {
      attributed = found.withColumn("marker_run", lit(null).cast(DataTypes.StringType))
          .withColumn("marker_record", lit(null).cast(DataTypes.StringType));
    } else {
      // The executions table may be large: only the markers the lookups found are taken from it.
      Dataset<Row> wanted = broadcast(found.filter(col("delete_marker")).select(col("key").as("wanted_key"),
          col("version_id").as("wanted_version")));
      Dataset<Row> ours = markers.join(wanted, col("marker_key").equalTo(col("wanted_key"))
              .and(col("marker").equalTo(col("wanted_version"))))
          .groupBy(col("marker_key"), col("marker"))
          .agg(min(struct(col("marker_run"), col("marker_record"))).as("m"))
          .select(col("marker_key"), col("marker"), col("m.marker_run").as("marker_run"),
              col("m.marker_record").as("marker_record"));
      attributed = found.join(ours, found.col("key").equalTo(ours.col("marker_key"))
              .and(found.col("version_id").equalTo(ours.col("marker"))), "left")
          .select(col("key"), col("version_id"), col("delete_marker"), col("error"), col("marker_run"),
              col("marker_record"));
    }
    return attributed.localCheckpoint(true);
  }

  /** What {@link #lines} gives every row when the lookups themselves could not run: {@code why}. */
  public static Dataset<Row> failed(Dataset<Row> missingDS, String why) {
    return missingDS.select(col("key"), lit(null).cast(DataTypes.StringType).as("version_id"),
            lit(null).cast(DataTypes.BooleanType).as("delete_marker"), lit(why).as("error"),
            lit(null).cast(DataTypes.StringType).as("marker_run"),
            lit(null).cast(DataTypes.StringType).as("marker_record"))
        .distinct();
  }

  /**
   * Every row of {@code missingDS} with what {@code lookedUp} found for its key ({@link #of} reads it): its first
   * three columns are {@code state_file_key}, {@code position} and {@code key}.
   */
  public static Dataset<Row> lines(Dataset<Row> missingDS, Dataset<Row> lookedUp) {
    Dataset<Row> found = broadcast(lookedUp.withColumnRenamed("key", "looked_up_key"));
    return missingDS.join(found, missingDS.col("key").equalTo(found.col("looked_up_key")), "left")
        .select(col("state_file_key"), col("position"), col("key"), col("looked_up_key"), col("version_id"),
            col("delete_marker"), col("error"), col("marker_run"), col("marker_record"));
  }

  /** What a row of {@link #lines} says of its key; {@code bound} is how many the plan looks up. */
  public static MissingVersion of(Row row, int bound) {
    if (row.isNullAt(row.fieldIndex("looked_up_key"))) {
      return MissingVersion.notLookedUp(bound);
    }
    String error = row.getAs("error");
    if (error != null) {
      return MissingVersion.lookupFailed(error);
    }
    if (row.isNullAt(row.fieldIndex("version_id"))) {
      return MissingVersion.noVersion();
    }
    if (!row.<Boolean>getAs("delete_marker")) {
      return MissingVersion.currentVersion();
    }
    String run = row.getAs("marker_run");
    return run == null ? MissingVersion.otherMarker() : MissingVersion.statesweepMarker(run, row.getAs("marker_record"));
  }

  /**
   * Every delete marker an execute of this warehouse recorded: {@code marker_key}, {@code marker} (its version id),
   * {@code marker_run}, {@code marker_record}; null when the table does not exist or predates
   * {@code deleted.delete_marker}.
   */
  static Dataset<Row> statesweepMarkers(SparkSession spark, Tables tables) {
    String path = tables.executions();
    if (!io.delta.tables.DeltaTable.isDeltaTable(spark, path)) {
      return null;
    }
    Dataset<Row> executions = spark.read().format("delta").load(path);
    if (!Arrays.asList(executions.schema().fieldNames()).contains("deleted")
        || !(executions.schema().apply("deleted").dataType() instanceof ArrayType deleted)
        || !(deleted.elementType() instanceof StructType entry)
        || !Arrays.asList(entry.fieldNames()).contains("delete_marker")) {
      return null;
    }
    return executions.select(col("run_id"), col("state_file_key"), explode(col("deleted")).as("d"))
        .filter(col("d.delete_marker").isNotNull())
        .select(col("d.key").as("marker_key"), col("d.delete_marker").as("marker"), col("run_id").as("marker_run"),
            col("state_file_key").as("marker_record"));
  }

  /**
   * One task's lookups: ListObjectVersions of one entry per key. A store failure is the key's answer; after a denial
   * the task's other keys get the same answer without asking again.
   */
  static final class LookUp implements MapPartitionsFunction<String, VersionLookupRow> {
    private static final long serialVersionUID = 1L;
    private final StoreAccess access;

    LookUp(StoreAccess access) {
      this.access = requireNonNull(access, "access is null");
    }

    @Override
    public Iterator<VersionLookupRow> call(Iterator<String> keys) {
      S3ObjectStore store = access.open();
      String[] denied = {null};
      return access.countedAtEnd(keys, store, key -> {
        VersionLookupRow row = new VersionLookupRow();
        row.setKey(key);
        if (denied[0] != null) {
          row.setError(denied[0]);
          return row;
        }
        try {
          ObjectVersion latest = store.latestVersion(key);
          if (latest != null) {
            row.setVersionId(latest.versionId());
            row.setDeleteMarker(latest.deleteMarker());
          }
        } catch (StoreException e) {
          row.setError(e.getMessage());
          if (e.isAccessDenied()) {
            denied[0] = "not asked after ListObjectVersions was denied in the same task: " + e.getMessage();
          }
        }
        return row;
      }, () -> { });
    }
  }
}
