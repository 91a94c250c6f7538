package io.statesweep.testing;

import org.apache.spark.sql.SparkSession;

/**
 * One local[2] Spark session with Delta for the whole test JVM: a session costs most of a minute to
 * start on two cores, so tests share it and never stop it.
 */
public final class SharedSpark {
  private static SparkSession session;

  private SharedSpark() {}

  public static synchronized SparkSession session() {
    if (session == null) {
      session = SparkSession.builder()
          .appName("statesweep-tests")
          // local[2,4] (the task-retries execution of the build) retries a failed task, as a cluster does.
          .master(System.getProperty("statesweep.test.master", "local[2]"))
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "4")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
          .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
          .config("spark.databricks.delta.snapshotPartitions", "2")
          .getOrCreate();
    }
    return session;
  }
}
