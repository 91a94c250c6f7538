package io.statesweep.jobs;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * A Databricks driver in miniature, for {@link DatabricksEntryPointTest}: the JVM's session exists before
 * the JAR task runs ({@code SparkSession.builder().getOrCreate()} with the master and Delta settings
 * in the Spark properties, as a cluster's are), then the task's main class is called, once per
 * command, and the driver goes on using its session. Each step prints a {@code driver: } line.
 *
 * <p>Arguments: bucket, endpoint, warehouse.
 */
final class DatabricksDriver {
  private DatabricksDriver() {}

  public static void main(String[] args) {
    String bucket = args[0];
    String endpoint = args[1];
    String warehouse = args[2];
    SparkSession spark = SparkSession.builder().getOrCreate();
    System.out.println("driver: session started, count=" + spark.range(3).count());

    call(spark, "success", plan(bucket, endpoint, warehouse));
    call(spark, "missing-bucket", plan("statesweep-no-such-bucket", endpoint, warehouse));
    List<String> badSettings = new ArrayList<>(List.of(plan(bucket, endpoint, warehouse)));
    badSettings.addAll(List.of("--dry-run", "false"));
    call(spark, "bad-settings", badSettings.toArray(String[]::new));

    System.out.println("driver: done");
    spark.stop();
  }

  private static String[] plan(String bucket, String endpoint, String warehouse) {
    return new String[] {"plan", "--bucket", bucket, "--prefix", "cogram/", "--endpoint", endpoint,
        "--warehouse", warehouse, "--log-lines", "5"};
  }

  private static void call(SparkSession spark, String label, String[] args) {
    try {
      StatesweepCli.main(args);
      System.out.println("driver: " + label + " returned");
    } catch (StatesweepFailure failure) {
      System.out.println("driver: " + label + " threw StatesweepFailure exit_code=" + failure.exitCode()
          + " summary_line=" + failure.summaryLine() + " message=" + failure.getMessage());
    } catch (RuntimeException other) {
      System.out.println("driver: " + label + " threw " + other);
    }
    boolean stopped = spark.sparkContext().isStopped();
    boolean same = SparkSession.getDefaultSession().isDefined() && SparkSession.getDefaultSession().get() == spark;
    String count;
    try {
      count = Long.toString(spark.range(7).count());
    } catch (RuntimeException e) {
      count = "failed: " + e;
    }
    System.out.println("driver: after " + label + " stopped=" + stopped + " same_session=" + same + " count=" + count);
  }
}
