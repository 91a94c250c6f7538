package io.statesweep.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
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
      SparkSession.Builder builder = SparkSession.builder();
      String metastore = System.getProperty("statesweep.test.metastore");
      if (metastore != null) {
        builder = withHiveMetastore(builder, Path.of(metastore));
      }
      session = builder
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

  /**
   * Points {@code s3a://} paths of {@code spark} at the S3-protocol server at {@code endpoint} (path-style, plain
   * HTTP, static keys), as a user configures Hadoop S3A for an S3-compatible store.
   */
  public static void s3a(SparkSession spark, String endpoint, String accessKey, String secretKey) {
    var hadoop = spark.sparkContext().hadoopConfiguration();
    hadoop.set("fs.s3a.endpoint", endpoint);
    hadoop.set("fs.s3a.path.style.access", "true");
    hadoop.set("fs.s3a.connection.ssl.enabled", "false");
    hadoop.set("fs.s3a.endpoint.region", "us-east-1");
    hadoop.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    hadoop.set("fs.s3a.access.key", accessKey);
    hadoop.set("fs.s3a.secret.key", secretKey);
  }

  /**
   * Hive support with an embedded Derby metastore and Hive warehouse in {@code folder}, emptied first (the
   * catalog execution of the build: tables registered by name, as on EMR's Hive metastore or Glue).
   */
  private static SparkSession.Builder withHiveMetastore(SparkSession.Builder builder, Path folder) {
    try {
      if (Files.exists(folder)) {
        try (Stream<Path> paths = Files.walk(folder)) {
          paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
      }
      Files.createDirectories(folder);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path absolute = folder.toAbsolutePath();
    System.setProperty("derby.system.home", absolute.toString());
    return builder.enableHiveSupport()
        .config("spark.sql.warehouse.dir", absolute.resolve("hive-warehouse").toString())
        .config("spark.hadoop.javax.jdo.option.ConnectionURL",
            "jdbc:derby:;databaseName=" + absolute.resolve("metastore_db") + ";create=true");
  }
}
