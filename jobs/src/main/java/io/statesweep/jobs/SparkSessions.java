package io.statesweep.jobs;

import io.statesweep.spark.run.HadoopFiles;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.PlanOptions;
import io.statesweep.config.Settings;
import io.statesweep.s3.S3Settings;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * The job's Spark session. On a cluster (spark-submit, EMR, Databricks) the platform's settings
 * win; a {@code java -cp} launch with no master gets a local session. Delta's extension and catalog
 * are set when the platform has not set them.
 */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession forPlan(String appName, PlanOptions options) {
    // An inventory report is read through S3A (s3a://, or s3:// where that is S3A).
    return forTables(appName, options.export().warehouse(), options.export().s3(), options.inventory() != null);
  }

  /**
   * The session of a command of the command line, made once its settings are resolved: the tables of its
   * warehouse, with S3A pointed at the bucket's S3-compatible endpoint for an s3a:// warehouse or an inventory
   * report.
   */
  static SparkSession forSettings(String appName, Settings settings) {
    boolean inventory = settings.string(Settings.LISTING).trim().equalsIgnoreCase("inventory");
    return forTables(appName, settings.string(Settings.WAREHOUSE).trim(), ExportOptions.s3(settings), inventory);
  }

  /** A session for the tables of {@code warehouse}; {@code s3aInput} when other s3a:// input is read too. */
  static SparkSession forTables(String appName, String warehouse, S3Settings s3, boolean s3aInput) {
    SparkConf conf = new SparkConf();
    SparkSession.Builder builder = SparkSession.builder().appName(appName);
    if (!conf.contains("spark.master")) {
      builder.master("local[*]")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "8");
    }
    if (!conf.contains("spark.sql.extensions")) {
      builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension");
    }
    if (!conf.contains("spark.sql.catalog.spark_catalog")) {
      builder.config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    }
    builder.config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.debug.maxToStringFields", "200");
    // An s3a:// warehouse or inventory report on the same non-AWS store as the bucket: point S3A at it
    // unless told otherwise.
    if ((warehouse.startsWith("s3a://") || s3aInput) && s3.endpoint() != null
        && !conf.contains("spark.hadoop.fs.s3a.endpoint")) {
      HadoopFiles.s3aEndpoint(s3).forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    }
    return builder.getOrCreate();
  }
}
