package io.statesweep.spark.run;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.xxhash64;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.SparkSession;

/**
 * Spreads rows of network-bound work (state-file GETs, a record's verification and deletes) over
 * exactly the number of tasks asked for, by a hash of their key.
 *
 * <p>Not {@code repartition(n, col(key))}: when the rows come out of a shuffle on that same key (the
 * execute's {@code dropDuplicates}, the plan's join with the previous plan) into
 * {@code spark.sql.shuffle.partitions} partitions, and that number happens to be {@code n} (200 on a
 * cluster of 100 cores, 8 in a local session on 4 cores), Spark drops the repartition as redundant,
 * and adaptive execution then coalesces the earlier shuffle by bytes: a plan of a few MB runs in one
 * task, its deletes one request at a time. A hash of the key is another expression, so the repartition
 * stays; and adaptive execution never coalesces a repartition to a given number.
 */
public final class Spread {
  private Spread() {}

  public static <T> Dataset<T> byKey(Dataset<T> rows, int partitions, String key) {
    return rows.repartition(partitions, xxhash64(col(key)));
  }

  /**
   * Spreads rows over exactly {@code partitions} tasks in ranges of {@code key} (Spark samples the rows for the
   * ranges, a job of its own), each task's rows in key order: records side by side in the bucket are side by
   * side in a task's windows, where those in one parent folder share its listing (pipeline/README.md "Deleting"). Spark
   * compares strings by their UTF-8 bytes, as S3 orders keys. Adaptive execution never coalesces a repartition to a
   * given number, and no earlier shuffle (a hash partitioning) can stand for a range partitioning.
   */
  public static <T> Dataset<T> byKeyRange(Dataset<T> rows, int partitions, String key) {
    return rows.repartitionByRange(partitions, col(key)).sortWithinPartitions(col(key));
  }

  /**
   * A Dataset of {@code rows} whose size Spark does not know, as if it were read from a source:
   * nothing derived from it is ever planned as a broadcast on a size estimate.
   */
  public static <T> Dataset<T> ofUnknownSize(SparkSession spark, List<T> rows, Encoder<T> encoder) {
    return ofUnknownSize(spark, rows, encoder, 1);
  }

  /**
   * As {@link #ofUnknownSize(SparkSession, List, Encoder)}, in {@code partitions} partitions dealt in turn (row i to
   * partition i mod {@code partitions}), as a round-robin repartition would, without its shuffle: neighbouring rows
   * (folders that sort together, and are often alike in size) go to different tasks.
   */
  public static <T> Dataset<T> ofUnknownSize(SparkSession spark, List<T> rows, Encoder<T> encoder, int partitions) {
    int slices = Math.max(1, Math.min(partitions, Math.max(1, rows.size())));
    List<T> dealt = new ArrayList<>(rows.size());
    for (int slice = 0; slice < slices; slice++) {
      for (int i = slice; i < rows.size(); i += slices) {
        dealt.add(rows.get(i));
      }
    }
    return spark.createDataset(JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(dealt, slices)
        .rdd(), encoder);
  }
}
