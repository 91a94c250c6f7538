package io.statesweep.jobs;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.sql.SparkSession;

/**
 * What started the JVM that runs {@link StatesweepCli#main}, and so how a command's end must be told
 * to it. Each launcher reads a failure its own way:
 *
 * <ul>
 *   <li>{@link #JAVA} ({@code java -cp}, no {@code spark.master}) and {@link #SPARK_SUBMIT}
 *       ({@code spark-submit} in client mode, or any launcher that runs the driver as its own process and
 *       reads that process's exit code: an EMR step in client mode, a scheduler around spark-submit) read
 *       the process's exit code. {@code main} stops the Spark session if statesweep created it, then on
 *       success returns (the JVM ends as its last non-daemon thread does) and on failure exits with the
 *       code: 1 a run with errors or that did not complete, 2 bad settings, 3 the run lock is held.
 *   <li>{@link #YARN_CLUSTER} ({@code spark-submit --master yarn --deploy-mode cluster}, as the EMR step
 *       runs it): Spark's ApplicationMaster runs {@code main} in a thread. It reports SUCCEEDED when
 *       {@code main} returns; FAILED with the diagnostics {@code User class threw exception: <the
 *       exception>} when it throws; and FAILED with "Shutdown hook called before final status was
 *       reported" when {@code main} calls {@code System.exit}, even with 0, after which YARN may start a
 *       second attempt. So on failure {@code main} throws a {@link StatesweepFailure} carrying the exit code
 *       and the summary line. The AM unregisters with that status and message only once a SparkContext
 *       registered it, so a run that failed before it started Spark (bad settings) starts a session first.
 *       {@code main} never exits the JVM and never stops the session: the AM does both after {@code main}.
 *   <li>{@link #DATABRICKS} (a JAR task; {@code DATABRICKS_RUNTIME_VERSION} is set): the driver's session
 *       is shared and outlives the task; Databricks marks the run failed when {@code main} throws and
 *       shows the exception in the run's output, and tells JAR tasks never to call {@code System.exit}
 *       nor to stop the session. So on failure {@code main} throws a {@link StatesweepFailure}; it never
 *       exits nor stops the session.
 * </ul>
 *
 * <p>On success (exit code 0) every launcher gets a normal return from {@code main}. A {@code spark.master}
 * other than YARN in cluster mode (local, standalone, Kubernetes, EMR Serverless) counts as
 * {@link #SPARK_SUBMIT}: there the driver is a process of its own whose exit code is read.
 */
enum Launcher {
  /** {@code java -cp ... StatesweepCli}: no {@code spark.master}; statesweep creates a local session. */
  JAVA,
  /** {@code spark-submit} in client mode (any master), or any other launcher that reads the exit code. */
  SPARK_SUBMIT,
  /** {@code spark-submit --master yarn --deploy-mode cluster}: main runs inside the ApplicationMaster. */
  YARN_CLUSTER,
  /** A Databricks JAR task: main runs in the cluster's driver, beside its shared session. */
  DATABRICKS;

  /** The environment variable every Databricks Runtime sets (such as {@code 16.4}). */
  static final String DATABRICKS_RUNTIME_VERSION = "DATABRICKS_RUNTIME_VERSION";

  /**
   * The launcher, from the process environment and the Spark properties (the {@code spark.*} system
   * properties, where spark-submit and YARN's ApplicationMaster put them).
   */
  static Launcher detect(Map<String, String> environment, Map<String, String> sparkProperties) {
    String runtime = environment.get(DATABRICKS_RUNTIME_VERSION);
    if (runtime != null && !runtime.isBlank()) {
      return DATABRICKS;
    }
    String master = sparkProperties.get("spark.master");
    if (master == null || master.isBlank()) {
      return JAVA;
    }
    if (master.trim().startsWith("yarn") && "cluster".equals(sparkProperties.get("spark.submit.deployMode"))) {
      return YARN_CLUSTER;
    }
    return SPARK_SUBMIT;
  }

  /** The {@code spark.*} entries of {@code properties} (the system properties, where Spark's launchers put them). */
  static Map<String, String> sparkProperties(Properties properties) {
    Map<String, String> spark = new HashMap<>();
    for (String name : properties.stringPropertyNames()) {
      if (name.startsWith("spark.")) {
        spark.put(name, properties.getProperty(name));
      }
    }
    return spark;
  }

  /** Whether this launcher reads a failure from the process's exit code (rather than from an exception). */
  boolean readsExitCode() {
    return this == JAVA || this == SPARK_SUBMIT;
  }

  /**
   * Ends {@code main} after {@code command} returned {@code exitCode}, as this launcher reads it (see
   * the class documentation): returns normally, exits through {@code platform}, or throws.
   *
   * @param summaryLine the summary line the command printed last ({@link StatesweepCli.Ended}), or null
   * @param sessionCreatedHere whether statesweep created the Spark session (none was there before)
   * @throws StatesweepFailure on failure, in YARN cluster mode and on Databricks
   */
  void end(String command, int exitCode, String summaryLine, boolean sessionCreatedHere, Platform platform) {
    requireNonNull(platform, "platform is null");
    if (readsExitCode()) {
      if (sessionCreatedHere) {
        platform.stopSession();
      }
      if (exitCode != 0) {
        platform.exit(exitCode);
      }
      return;
    }
    if (exitCode == 0) {
      return;
    }
    if (this == YARN_CLUSTER) {
      platform.startSession();
    }
    throw new StatesweepFailure(command, exitCode, summaryLine);
  }

  /** What {@link #end} does to the JVM and the Spark session; the real one in {@link StatesweepCli#main}. */
  interface Platform {
    /** Stops the default Spark session, if there is one. */
    void stopSession();

    /** Gets or creates the default Spark session (so that YARN's ApplicationMaster has registered). */
    void startSession();

    /** Exits the JVM with {@code code}; does not return. */
    void exit(int code);

    /** This JVM and its default Spark session. */
    Platform JVM = new Platform() {
      @Override
      public void stopSession() {
        if (SparkSession.getDefaultSession().isDefined()) {
          SparkSession.getDefaultSession().get().stop();
        }
      }

      @Override
      public void startSession() {
        SparkSession.builder().getOrCreate();
      }

      @Override
      public void exit(int code) {
        System.exit(code);
      }
    };
  }
}
