package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * Session settings that an action changes while it runs and puts back when it ends, so that a shared session (a
 * notebook's, a job's that runs more than statesweep) keeps its own. Settings the session sets itself are left as
 * they are ({@link #unlessSet}).
 *
 * <p>The one every action sets: Delta's state reconstruction of a table ({@code
 * spark.databricks.delta.snapshotPartitions}, 50 partitions by default) in at most {@link #SNAPSHOT_PARTITIONS}. The
 * log of a statesweep table is small (a few files per run and a checkpoint every ten commits), and each action loads
 * a table's snapshot several times: with 50 partitions each load was a job of 52 tasks, a second or more of a small
 * run each time.
 */
public final class ActionSettings implements AutoCloseable {
  static final String DELTA_SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions";
  static final int SNAPSHOT_PARTITIONS = 8;

  private final SparkSession spark;
  /** Each changed setting's value before, empty where it had none of its own. */
  private final Map<String, Optional<String>> before = new LinkedHashMap<>();

  private ActionSettings(SparkSession spark) {
    this.spark = requireNonNull(spark, "spark is null");
  }

  /** The settings of every action, applied to {@code spark} until {@link #close()}. */
  public static ActionSettings of(SparkSession spark) {
    ActionSettings settings = new ActionSettings(spark);
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    return settings.unlessSet(DELTA_SNAPSHOT_PARTITIONS, Integer.toString(Math.min(parallelism, SNAPSHOT_PARTITIONS)));
  }

  /** Sets {@code key} until {@link #close()}, whatever the session set. */
  public ActionSettings set(String key, String value) {
    before.putIfAbsent(key, ownValue(key));
    spark.conf().set(key, value);
    return this;
  }

  /** Sets {@code key} until {@link #close()} unless the session (or its application's settings) sets it. */
  ActionSettings unlessSet(String key, String value) {
    return ownValue(key).isPresent() ? this : set(key, value);
  }

  private Optional<String> ownValue(String key) {
    return spark.sessionState().conf().contains(key)
        ? Optional.of(spark.sessionState().conf().getConfString(key)) : Optional.empty();
  }

  @Override
  public void close() {
    before.forEach((key, value) -> {
      if (value.isPresent()) {
        spark.conf().set(key, value.get());
      } else {
        spark.conf().unset(key);
      }
    });
    before.clear();
  }
}
