package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.unix_timestamp;
import static org.apache.spark.sql.functions.when;

import io.statesweep.spark.execute.DeleteTasks;
import io.statesweep.spark.run.HadoopFiles;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.Spread;
import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.PlanOptions;
import io.statesweep.config.Settings;
import io.statesweep.cost.PlanCost;
import io.statesweep.cost.PriceTable;
import io.statesweep.execute.ExecuteRequestEstimate;
import io.statesweep.execute.PacedLane;
import io.statesweep.plan.Action;
import io.statesweep.s3.RequestCounts;
import io.statesweep.s3.S3Clients;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.store.BucketVersioning;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.function.ForeachPartitionFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Gathers what the plain-Java {@link PlanCost} prices: the requests the plan made (its tasks' and the
 * driver's, through {@link RunMetrics}, and the run lock's), the requests its execute will make (estimated
 * over the plan's rows spread as the execute spreads them), and the bytes it deletes by storage class (the
 * plan's deletes joined with the listing's StorageClass).
 */
public final class PlanCosts {
  /** A key whose listing named no storage class (an inventory report without the StorageClass field). */
  static final String UNKNOWN_STORAGE_CLASS = "unknown";
  private static final int MAX_PRICES_BYTES = 4 * 1024 * 1024;

  private PlanCosts() {}

  /**
   * The price table that {@code --prices} names: {@value PriceTable#BUILT_IN}, the table in the jar; anything
   * else a file read through Hadoop's FileSystem (a local path, s3://, s3a://, dbfs:/). Refused with a
   * message naming the file when it cannot be read or is not a valid table.
   */
  public static PriceTable priceTable(SparkSession spark, ExportOptions options) {
    String location = options.settings().getOrDefault(Settings.PRICES.key(), PriceTable.BUILT_IN);
    if (location == null || location.equals(PriceTable.BUILT_IN)) {
      return PriceTable.builtIn();
    }
    byte[] bytes;
    try {
      bytes = HadoopFiles.of(spark).read(location, MAX_PRICES_BYTES);
    } catch (java.io.IOException e) {
      throw new BadSettingsException("Cannot read price table " + location + " (" + Settings.PRICES.key()
          + "): " + io.statesweep.store.FileSource.reason(e));
    }
    return PriceTable.parse(bytes, location);
  }

  /** The region whose prices apply, and how it was chosen. */
  public record Region(String name, String from) {}

  public static Region region(ExportOptions options) {
    String name = S3Clients.region(options.s3());
    if (options.s3().region() != null) {
      return new Region(name, "--region");
    }
    if (options.s3().endpoint() != null) {
      return new Region(name, "no --region with --endpoint " + options.s3().endpoint()
          + ": the client's region, priced as AWS " + name);
    }
    return new Region(name, "the AWS SDK's default region");
  }

  /** HTTP requests sent (retries included: S3 bills each), by operation, from {@link RunMetrics#requests()}. */
  public static Map<String, Long> sent(Map<String, Map<String, Long>> byOperation) {
    Map<String, Long> sent = new TreeMap<>();
    byOperation.forEach((operation, counts) -> {
      long requests = counts.getOrDefault(RequestCounts.ATTEMPTS, counts.getOrDefault(RequestCounts.CALLS, 0L));
      if (requests > 0) {
        sent.put(operation, requests);
      }
    });
    return sent;
  }

  /** {@link #sent} of a store's own counts ({@code <Operation>.<kind>}). */
  public static Map<String, Long> sentBy(Map<String, Long> snapshot) {
    Map<String, Map<String, Long>> byOperation = new TreeMap<>();
    snapshot.forEach((key, count) -> {
      int dot = key.lastIndexOf('.');
      byOperation.computeIfAbsent(key.substring(0, dot), k -> new TreeMap<>()).put(key.substring(dot + 1), count);
    });
    return sent(byOperation);
  }

  public static Map<String, Long> plus(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> sum = new TreeMap<>(a);
    b.forEach((operation, count) -> sum.merge(operation, count, Long::sum));
    return sum;
  }

  /** The rows of a plan (its {@code deletion_plan} rows) that execution acts on. */
  private static Dataset<Row> deleteRows(Dataset<Row> planRows) {
    return planRows.filter(col("action").isin(Action.DELETE_RECORD.label(), Action.DELETE_REMOVED_FILES.label()));
  }

  /** Key and storage class of every listed key, for joins with the plan's deletes. */
  public static Dataset<Row> storageClasses(Dataset<ObjectRow> listingDS) {
    return listingDS.select(col("key"), coalesce(col("storageClass"), lit(UNKNOWN_STORAGE_CLASS)).as("storage_class"));
  }

  /**
   * The requests an execute of the plan will make, estimated: its rows spread over the tasks as the
   * execute spreads them, each task's windows replayed by {@link ExecuteRequestEstimate}.
   */
  public static Map<String, Long> executeRequests(SparkSession spark, PlanOptions options, Dataset<Row> planRows) {
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    int ceiling = options.deletes().maxDeletesPerSecond();
    RunMetrics.Requests estimated = new RunMetrics.Requests();
    spark.sparkContext().register(estimated, "statesweep.execute_requests_estimate");
    Dataset<Row> rows = deleteRows(planRows)
        .dropDuplicates("state_file_key")
        .select(col("state_file_key"), col("action"), col("child_keys_to_delete"),
            expr("coalesce(keys_to_delete, 0) + coalesce(kept_keys, 0)").as("folder_keys"));
    Spread.byKeyRange(rows, DeleteTasks.deletePartitions(parallelism, ceiling,
        options.deletes().pacing() != null), "state_file_key")
        .foreachPartition(new Estimate(options.deletes().batchSize(), options.export().workers(),
            windowRate(DeleteTasks.keysPerSecondPerTask(parallelism, ceiling), options),
            options.deletes().pacing() != null, options.export().prefix().value(), options.deletes().laneDepth(),
            estimated));
    Map<String, Long> requests = new TreeMap<>(estimated.value());
    return plus(requests, ExecuteRequestEstimate.perAttempt(options.deletes().conditionalDeletes(),
        options.export().prefix()));
  }

  /**
   * The rate that sizes an execute's windows: the task's share of the run's ceiling, or, where deletes are paced, a
   * lane's limit when that is lower (a lane climbs to it; its windows are smaller while it climbs).
   */
  private static double windowRate(double perTask, PlanOptions options) {
    PacedLane.Pacing pacing = options.deletes().pacing();
    if (pacing == null) {
      return perTask;
    }
    double limit = pacing.partitionKeysPerSecond() * (1 - pacing.margin());
    return perTask == 0 ? limit : Math.min(perTask, limit);
  }

  /** One task's share of the estimate. */
  static final class Estimate implements ForeachPartitionFunction<Row> {
    private static final long serialVersionUID = 1L;
    private final int batchSize;
    private final int workers;
    private final double keysPerSecondPerTask;
    private final boolean paced;
    private final String prefix;
    private final int laneDepth;
    private final RunMetrics.Requests estimated;

    Estimate(int batchSize, int workers, double keysPerSecondPerTask, boolean paced, String prefix, int laneDepth,
        RunMetrics.Requests estimated) {
      this.batchSize = batchSize;
      this.workers = workers;
      this.keysPerSecondPerTask = keysPerSecondPerTask;
      this.paced = paced;
      this.prefix = requireNonNull(prefix, "prefix is null");
      this.laneDepth = laneDepth;
      this.estimated = requireNonNull(estimated, "estimated is null");
    }

    @Override
    public void call(Iterator<Row> rows) {
      ExecuteRequestEstimate estimate = new ExecuteRequestEstimate(batchSize, workers, keysPerSecondPerTask, paced,
          paced ? key -> PacedLane.of(key, prefix, laneDepth) : null);
      while (rows.hasNext()) {
        Row row = rows.next();
        estimate.add(row.getString(0), row.isNullAt(2) ? 0 : row.getLong(2),
            Action.DELETE_RECORD.label().equals(row.getString(1)), row.isNullAt(3) ? 0 : row.getLong(3));
      }
      estimated.add(estimate.requests());
    }
  }

  /** Bytes and byte-days of minimum storage duration left, by storage class, of the keys the plan deletes. */
  public record Freed(Map<String, Long> bytes, Map<String, BigDecimal> byteDaysLeft) {}

  public static Freed freed(Dataset<Row> planRows, Instant plannedAt, Dataset<Row> storageClasses, PriceTable prices) {
    Dataset<Row> deletes = deleteRows(planRows)
        .select(explode(col("deletes")).as("d"))
        .select(col("d.key").as("key"), col("d.size").as("size"), col("d.last_modified").as("last_modified"));
    // The class's minimum as a value compared to the column, never spliced into SQL text: a price file names classes.
    Column minimumDays = lit(0);
    for (Map.Entry<String, Integer> minimum : prices.minimumDays().entrySet()) {
      minimumDays = when(col("storage_class").equalTo(lit(minimum.getKey())), lit(minimum.getValue()))
          .otherwise(minimumDays);
    }
    long plannedSeconds = plannedAt.getEpochSecond();
    // Whole days stored at the plan's time, as S3 counts them; the charge is for the days of the minimum left.
    Column daysLeft = greatest(lit(0), minimumDays.minus(
        floor(lit(plannedSeconds).minus(unix_timestamp(col("last_modified"))).divide(86400))));
    java.util.List<Row> rows = deletes.join(storageClasses, deletes.col("key").equalTo(storageClasses.col("key")), "left")
        .select(coalesce(col("storage_class"), lit(UNKNOWN_STORAGE_CLASS)).as("storage_class"), col("size"),
            col("last_modified"))
        .withColumn("days_left", daysLeft)
        .groupBy("storage_class")
        .agg(expr("sum(size)").as("bytes"),
            expr("sum(cast(size as decimal(38,0)) * cast(days_left as decimal(38,0)))").as("byte_days_left"))
        .collectAsList();
    Map<String, Long> bytes = new TreeMap<>();
    Map<String, BigDecimal> byteDaysLeft = new TreeMap<>();
    for (Row row : rows) {
      bytes.put(row.getString(0), row.getLong(1));
      BigDecimal left = row.getDecimal(2);
      if (left != null && left.signum() > 0) {
        byteDaysLeft.put(row.getString(0), left);
      }
    }
    return new Freed(bytes, byteDaysLeft);
  }

  static Timestamp timestamp(Instant instant) {
    return Timestamp.from(instant);
  }

  /**
   * The versioning statement, for the log and the runs table, with what the listing saw of the noncurrent versions
   * already under the prefix ({@code noncurrent}); null on a bucket that is not versioned.
   */
  public static String versioningNote(ExportOptions options, BucketVersioning versioning, long bytes,
      io.statesweep.cost.NoncurrentVersions noncurrent) {
    return io.statesweep.cost.VersioningNote.of(options.bucket(), options.prefix().value(), versioning.status(),
        versioning.unknownBecause(), bytes, noncurrent);
  }
}
