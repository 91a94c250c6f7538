package io.statesweep.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.spark.execute.ExecuteFunctions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shipped jar on Spark with executors in JVMs of their own: {@code local-cluster[2,1,1024]} (a
 * standalone master and two workers inside the driver's JVM, each worker starting its executor as a
 * separate JVM from a Spark home), launched through Spark's own {@code SparkSubmit} with the platform's
 * jars, on S3Proxy. {@code plan}, then {@code execute --run-id} of the sample archive, one executor JVM
 * killed with SIGKILL while the deletes run.
 *
 * <p>What runs in another JVM here and nowhere else in the tests: the job jar shipped to executors by
 * Spark, one S3 client per executor JVM, accumulators that cross processes, task retries after a lost
 * executor, and credentials that the executors find themselves. They come from the AWS SDK's default
 * provider chain, environment variables here: the launched process's environment, which the workers
 * (threads of the driver's JVM in {@code local-cluster}, daemons on a standalone cluster) pass on to
 * the executors they start. No flag, setting or system property carries them.
 *
 * <p>Evidence comes from Spark's event log (which executor ran each task, with its accumulator
 * updates, which executors were lost and why), the run's own lines, its Delta tables and the bucket.
 *
 * <p>Failsafe runs it after {@code package}: {@code java -cp <Spark 3.5, Delta 3.3, Hadoop 3.4 jars>
 * org.apache.spark.deploy.SparkSubmit --master local-cluster[2,1,1024] --class io.statesweep.jobs.StatesweepCli
 * jobs/target/statesweep.jar ...}. The test assembles the Spark home the workers start their executors from ({@code
 * jobs/target/local-cluster-it/spark-home}: {@code jars/} links to the platform's jars; {@code SPARK_HOME} and {@code
 * SPARK_SCALA_VERSION} set as a distribution's scripts set them; Spark 3.5 adds its Java 17 {@code --add-opens} to
 * executors itself). Settings and the layout come from the S3Proxy bucket through {@code s3a://} ({@code
 * --config-file s3a://<bucket>/statesweep-conf/statesweep.properties}, whose {@code sweep.layout} is an {@code
 * s3a://} layout file); the credentials are checked in each executor's environment, never on a command line.
 *
 * <p>The plan of the sample archive (96 records, 278 keys): the event log shows tasks in both executor JVMs and none in
 * the driver, both read state files, and their accumulators sum on the driver to the metrics line's {@code
 * state_files_read} and {@code GetObject.calls} (96); the plan's rows equal, less {@code run_id}, {@code run_date}
 * and {@code planned_at}, those of the same plan in local mode.
 *
 * <p>Then {@code execute --run-id} at 6 keys/s; once deletes have begun, the executor JVM running the delete task (found
 * by its thread dump) is killed with SIGKILL: Spark logs {@code Lost executor N}, the event log shows its task lost
 * ({@code ExecutorLostFailure}, exit 137), the task runs again on the other executor, and the attempt completes. The
 * bucket is then the bucket before less exactly the planned keys, and every planned record has one row in the
 * attempt; the keys its rows name as deleted are exactly the keys gone since the attempt began, those the killed task
 * deleted included (its ledger), each once. The killed task's accumulator updates die with it, so the metrics' {@code
 * keys_deleted} counts only the keys the surviving attempts deleted (85 of 96 in one run); {@code executions} counts
 * them all. This test's event log also showed that a plain repartition by the key after the plan's de-duplication put
 * every delete of a run in one task (pipeline/README.md, "Deleting").
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class LocalClusterIT {
  private static final Path JAR = Path.of(System.getProperty("statesweep.jar")).toAbsolutePath();
  private static final String MASTER = "local-cluster[2,1,1024]";
  private static final String EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend";
  private static final String BUCKET = "local-cluster";
  private static final String PREFIX = "cogram/";
  private static final String CONFIG_KEY = "statesweep-conf/statesweep.properties";
  private static final String LAYOUT_KEY = "statesweep-conf/cogram.json";
  private static final int RECORDS = SampleArchive.minimumRecordCount() + 60;
  /** The execute's ceiling: slow enough that it is still deleting when an executor is killed. */
  private static final int DELETES_PER_SECOND = 6;
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Columns of a plan row that differ between two plans of the same bucket. */
  private static final List<String> RUN_COLUMNS = List.of("run_id", "run_date", "planned_at");

  private static SparkSession spark;

  @AfterAll
  static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  void planAndExecuteOnExecutorsInTheirOwnJvmsSurviveAKilledExecutor(LocalS3Server server) throws Exception {
    Timer timer = new Timer();
    Path work = cleanDirectory(JAR.getParent().resolve("local-cluster-it"));
    Path sparkHome = sparkHome(work.resolve("spark-home"));
    Path events = Files.createDirectories(work.resolve("events"));
    server.createBucket(BUCKET);
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    SampleArchive.Manifest manifest = SampleArchive.generate(store, PREFIX, RECORDS, 14L, Instant.now());
    Set<String> before = exportKeys(store);
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes());
    int plannedKeys = before.size() - expectedLeft.size();
    String clusterWarehouse = work.resolve("cluster-warehouse").toString();
    // The cluster runs' settings and layout live on the bucket, beside the export, read through s3a://:
    // only the endpoint that reaches them is a flag. The layout is the built-in one's document.
    store.write(LAYOUT_KEY, Files.readAllBytes(JAR.getParent().resolve("../../conf/layouts/cogram.json").normalize()));
    store.write(CONFIG_KEY, String.join("\n", "sweep.bucket = " + BUCKET, "sweep.prefix = " + PREFIX,
        "sweep.region = " + LocalS3Server.REGION, "sweep.layout = s3a://" + BUCKET + "/" + LAYOUT_KEY,
        "sweep.warehouse = " + clusterWarehouse, "sweep.log.lines = 0", "sweep.log.progress-seconds = 5", "")
        .getBytes(UTF_8));
    Cluster cluster = new Cluster(server, sparkHome, events, work);
    timer.lap("spark home and archive");

    // The same plan in local mode (this JVM's local[2] session), to another warehouse: the reference.
    String localWarehouse = work.resolve("local-warehouse").toString();
    CommandOutput local = planInThisJvm(server, localWarehouse);
    timer.lap("local plan");

    // 1. plan on the cluster.
    CommandOutput plan = cluster.run("plan", List.of("plan"));
    timer.lap("cluster plan");
    assertThat(plan.code()).as(plan.text()).isZero();
    String runId = pair(summary(plan.text()), "run_id");
    assertThat(withoutPairs(summary(plan.text()), "run_id")).isEqualTo(withoutPairs(summary(local.text()), "run_id"));
    JsonNode planMetrics = metrics(plan.text());
    long stateFilesRead = planMetrics.at("/counts/state_files_read").asLong();
    assertThat(stateFilesRead).as("every state file read").isEqualTo(metrics(local.text()).at("/counts/state_files_read").asLong())
        .isGreaterThanOrEqualTo(RECORDS);
    assertThat(planMetrics.at("/s3_requests/GetObject/calls").asLong()).as("one GET per state file")
        .isEqualTo(stateFilesRead);
    // Each executor JVM read state files, counted in its tasks' accumulators and summed on the driver.
    EventLog planEvents = EventLog.of(events, "statesweep plan");
    Map<String, Long> readsByExecutor = planEvents.sumByExecutor("statesweep.state_files_read");
    Map<String, Long> getsByExecutor = planEvents.requestsByExecutor("GetObject.calls");
    assertThat(planEvents.executorsWithTasks()).as("tasks ran in both executor JVMs, none in the driver")
        .containsExactlyInAnyOrder("0", "1");
    assertThat(readsByExecutor.values()).allMatch(reads -> reads > 0);
    assertThat(readsByExecutor.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(stateFilesRead);
    assertThat(getsByExecutor.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(stateFilesRead);
    assertThat(planEvents.requestsByExecutor("GetObject.failed").values()).allMatch(failed -> failed == 0);
    // The same rows as local mode, less the run's own columns.
    List<String> clusterRows = planRows(clusterWarehouse, runId);
    assertThat(clusterRows).hasSize(manifest.recordCount())
        .isEqualTo(planRows(localWarehouse, pair(summary(local.text()), "run_id")));
    assertThat(exportKeys(store)).as("a plan deletes nothing").isEqualTo(before);
    assertThat(TableReader.of(session(), clusterWarehouse).runs(runId)
        .selectExpr("settings['sweep.layout']", "settings['sweep.bucket']").first().toString())
        .as("the layout and settings read from the bucket").isEqualTo("[s3a://" + BUCKET + "/" + LAYOUT_KEY + "," + BUCKET + "]");

    // 2. execute, slowed down; one executor JVM is killed with SIGKILL once its deletes have begun.
    Cluster.Running execute = cluster.start("execute", List.of("execute", "--run-id", runId, "--skip-approval", "true",
        "--max-deletes-per-second", Integer.toString(DELETES_PER_SECOND), "--batch-size", "2"));
    Set<String> atKill;
    String killedId;
    try {
      atKill = awaitDeletes(store, before, 8, execute);
      List<ProcessHandle> executors = execute.executors();
      assertThat(executors).as("two executor JVMs, children of the driver").hasSize(2);
      for (ProcessHandle executor : executors) {
        String commandLine = executor.info().commandLine().orElse("");
        assertThat(commandLine).as("started from the test's Spark home, with Spark's own --add-opens")
            .contains(sparkHome.resolve("jars").toString(), "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED")
            .doesNotContain(server.secretKey()).doesNotContain(server.accessKey());
        assertThat(environment(executor)).as("the executor's environment, inherited from its worker")
            .containsEntry("AWS_ACCESS_KEY_ID", server.accessKey());
      }
      // The executor whose task is verifying and deleting (Spark may run the delete phase as one task).
      ProcessHandle killed = deleting(executors);
      killedId = executorId(killed);
      killed.destroyForcibly();
      assertThat(killed.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
    } finally {
      execute.await(Duration.ofMinutes(10));
    }
    CommandOutput first = execute.output();
    timer.lap("execute with the kill");
    Set<String> afterFirst = exportKeys(store);
    assertThat(afterFirst).as("nothing outside the plan is gone").containsAll(expectedLeft);
    assertThat(before.size() - atKill.size()).as("keys gone when the executor was killed: deletes were still to do")
        .isPositive().isLessThan(plannedKeys);
    // The kill hit a running task of the delete phase, Spark heard of it, and the task ran again elsewhere.
    EventLog executeEvents = EventLog.of(events, "statesweep execute");
    assertThat(executeEvents.lostTasks()).as("tasks lost with executor " + killedId).containsOnlyKeys(killedId);
    assertThat(executeEvents.removedExecutors()).containsKey(killedId);
    assertThat(first.text()).contains("Lost executor " + killedId);
    assertThat(executeEvents.executorsWithTasks()).as("deletes ran in executor JVMs only").doesNotContain("driver")
        .hasSizeGreaterThanOrEqualTo(2);
    assertThat(executeEvents.requestsByExecutor("DeleteObjects.calls").values().stream().mapToLong(Long::longValue)
        .sum()).isPositive();

    // 3. The attempt completed despite the kill, or a second attempt finishes it.
    CommandOutput last = first;
    if (first.code() != 0) {
      last = cluster.run("execute-again", List.of("execute", "--run-id", runId, "--skip-approval", "true"));
    }
    timer.lap("execute again");
    assertThat(last.code()).as(last.text()).isZero();
    assertThat(summary(last.text())).startsWith("summary: dry_run=false complete=true");
    assertThat(exportKeys(store)).as("the bucket less exactly the planned keys").isEqualTo(expectedLeft);
    // The attempt with the kill: every key gone by its end is in its rows, the lost task's among them.
    Set<String> goneInFirst = new TreeSet<>(before);
    goneInFirst.removeAll(afterFirst);
    assertThat(recordedKeys(clusterWarehouse, attemptId(first.text()))).isEqualTo(goneInFirst);
    System.out.printf("ledger, an executor killed mid-execute: %d keys deleted by the attempt, %d recorded%n",
        goneInFirst.size(), recordedKeys(clusterWarehouse, attemptId(first.text())).size());
    if (last != first) {
      Set<String> goneInLast = new TreeSet<>(afterFirst);
      goneInLast.removeAll(expectedLeft);
      assertThat(recordedKeys(clusterWarehouse, attemptId(last.text()))).isEqualTo(goneInLast);
    }
    accountedForOnce(clusterWarehouse, runId);
    timer.lap("checks");

    System.out.printf("LocalClusterIT: %d records, %d keys, %d planned keys (%d gone at the kill of executor %s, %d"
        + " after the first attempt, exit %d); plan rows compared %d; state files read %s by executor; %s%n",
        manifest.recordCount(), before.size(), plannedKeys, before.size() - atKill.size(), killedId,
        before.size() - afterFirst.size(), first.code(), clusterRows.size(), readsByExecutor,
        summary(first.text()));
    System.out.println("LocalClusterIT: execute metrics " + metrics(first.text()));
    System.out.println("LocalClusterIT: seconds " + timer);
  }

  /** The keys an attempt's rows of executions say it deleted; fails when one is in them twice. */
  private static Set<String> recordedKeys(String warehouse, String attemptId) {
    List<String> keys = TableReader.of(session(), warehouse).executions()
        .filter("attempt_id = '" + attemptId + "'").selectExpr("explode(deleted_keys)")
        .as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
    Set<String> unique = new TreeSet<>(keys);
    assertThat(keys).as("each key once in the rows of attempt " + attemptId).hasSize(unique.size());
    return unique;
  }

  private static String attemptId(String text) {
    return summary(text).replaceAll(".* attempt_id=(\\S+).*", "$1");
  }

  /**
   * Every planned record has exactly one row in the attempt that completed, and every planned key is
   * accounted for once: deleted by that attempt (its {@code deleted_keys}, the keys of a task lost with
   * the executor included: its retry's row holds them), already gone when it came (deleted by an earlier
   * attempt: {@code keys_already_gone}), or in a record that an earlier attempt finished whole
   * ({@code already_deleted}).
   */
  private static void accountedForOnce(String warehouse, String runId) {
    SparkSession session = session();
    Dataset<Row> runs = TableReader.of(session, warehouse).runs()
        .filter("run_id = '" + runId + "' and command = 'execute' and complete");
    assertThat(runs.count()).as("one complete attempt").isEqualTo(1);
    String attemptId = runs.first().getAs("attempt_id");
    Dataset<Row> executions = TableReader.of(session, warehouse).executions()
        .filter("attempt_id = '" + attemptId + "'");
    Dataset<Row> planned = TableReader.of(session, warehouse).deletionPlan()
        .filter("run_id = '" + runId + "' and action in ('delete_record', 'delete_removed_files')");
    assertThat(executions.count()).as("one row per planned record").isEqualTo(planned.count());
    assertThat(executions.select("state_file_key").distinct().count()).isEqualTo(planned.count());
    assertThat(executions.filter("outcome not in ('deleted', 'already_deleted', 'removed_files_deleted')").count())
        .as("no other outcome").isZero();
    Row counted = executions.join(planned.selectExpr("state_file_key", "child_keys_to_delete"), "state_file_key")
        .selectExpr("count_if(outcome = 'already_deleted' or child_keys_deleted + keys_already_gone = child_keys_to_delete)",
            "count_if(outcome in ('deleted', 'already_deleted'))", "count(*)").first();
    Row promised = planned.selectExpr("count_if(action = 'delete_record')").first();
    assertThat(counted.getLong(0)).as("records whose planned keys are all accounted for").isEqualTo(counted.getLong(2));
    assertThat(counted.getLong(1)).isEqualTo(promised.getLong(0));
  }

  /** The run's plan rows less its own columns, as sorted JSON lines (maps sorted by key). */
  private static List<String> planRows(String warehouse, String runId) {
    Dataset<Row> rows = TableReader.of(session(), warehouse).deletionPlan(runId);
    String[] columns = Arrays.stream(rows.columns()).filter(column -> !RUN_COLUMNS.contains(column))
        .map(column -> column.equals("ids") ? "array_sort(map_entries(ids)) as ids" : column).toArray(String[]::new);
    return rows.selectExpr(columns).selectExpr("to_json(struct(*))").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList().stream().sorted().toList();
  }

  private static CommandOutput planInThisJvm(LocalS3Server server, String warehouse) {
    session();
    CommandOutput output = CommandOutput.run(Map.of(), cliArgs(server, List.of("plan", "--warehouse", warehouse)));
    assertThat(output.code()).as(output.all()).isZero();
    return output;
  }

  private static synchronized SparkSession session() {
    if (spark == null) {
      spark = SparkSession.builder().master("local[2]").appName("LocalClusterIT")
          .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
          .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
          .getOrCreate();
    }
    return spark;
  }

  /** The command's options for the test bucket (each command adds its own). */
  private static List<String> cliArgs(LocalS3Server server, List<String> command) {
    List<String> args = new ArrayList<>(command);
    args.addAll(List.of("--bucket", BUCKET, "--prefix", PREFIX, "--endpoint", server.endpoint(), "--region",
        LocalS3Server.REGION, "--log-lines", "0", "--progress-seconds", "5"));
    return args;
  }

  /**
   * A Spark home as a distribution lays it out, for the workers: {@code jars/} holds the platform's jars
   * (links to the Maven artifacts of {@code provided-classpath.txt}), {@code conf/} the logging.
   */
  private static Path sparkHome(Path home) throws IOException {
    Path jars = Files.createDirectories(home.resolve("jars"));
    for (String entry : Files.readString(Path.of(System.getProperty("statesweep.provided.classpath"))).strip()
        .split(File.pathSeparator)) {
      Path jar = Path.of(entry);
      Path link = jars.resolve(jar.getFileName());
      if (!Files.exists(link)) {
        Files.createSymbolicLink(link, jar);
      }
    }
    Path conf = Files.createDirectories(home.resolve("conf"));
    Files.writeString(conf.resolve("log4j2.properties"), """
        status = warn
        appender.console.type = Console
        appender.console.name = console
        appender.console.target = SYSTEM_ERR
        appender.console.layout.type = PatternLayout
        appender.console.layout.pattern = %d{HH:mm:ss} %-5p %c{1}: %m%n
        rootLogger.level = warn
        rootLogger.appenderRef.console.ref = console
        logger.statesweep.name = io.statesweep
        logger.statesweep.level = info
        """);
    return home;
  }

  /** The driver's launches: {@code java -cp <platform> org.apache.spark.deploy.SparkSubmit ... statesweep.jar}. */
  private static final class Cluster {
    private final LocalS3Server server;
    private final Path sparkHome;
    private final Path events;
    private final Path logs;

    Cluster(LocalS3Server server, Path sparkHome, Path events, Path logs) {
      this.server = server;
      this.sparkHome = sparkHome;
      this.events = events;
      this.logs = logs;
    }

    CommandOutput run(String name, List<String> command) throws Exception {
      Running running = start(name, command);
      running.await(Duration.ofMinutes(10));
      return running.output();
    }

    Running start(String name, List<String> command) throws IOException {
      List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx1g"));
      java.addAll(Arrays.asList(System.getProperty("spark.java17.flags").trim().split("\\s+")));
      // The driver and its executors start with the flags of every test JVM of the build.
      String testFlags = System.getProperty("statesweep.test.jvm.flags", "").trim();
      if (!testFlags.isEmpty()) {
        java.addAll(Arrays.asList(testFlags.split("\\s+")));
      }
      java.add("-Dlog4j2.configurationFile=" + sparkHome.resolve("conf/log4j2.properties"));
      java.addAll(List.of("-cp", Files.readString(Path.of(System.getProperty("statesweep.provided.classpath"))).strip(),
          "org.apache.spark.deploy.SparkSubmit", "--master", MASTER,
          "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
          "--conf", "spark.sql.shuffle.partitions=4",
          // Spark refuses Spark settings (-Dspark.*) among an executor's JVM options: its JVM flags only.
          "--conf", "spark.executor.extraJavaOptions=" + Arrays.stream(testFlags.split("\\s+"))
              .filter(flag -> !flag.startsWith("-Dspark.")).collect(Collectors.joining(" ")),
          "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.dir=" + events.toUri(),
          "--conf", "spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension",
          "--conf", "spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog",
          "--class", StatesweepCli.class.getName(), JAR.toString()));
      // Settings from the config file on the bucket, through s3a://; the endpoint that reaches it is a flag.
      java.addAll(command);
      java.addAll(List.of("--config-file", "s3a://" + BUCKET + "/" + CONFIG_KEY, "--endpoint", server.endpoint()));
      Path log = logs.resolve(name + ".log");
      ProcessBuilder builder = new ProcessBuilder(java).directory(logs.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile());
      Map<String, String> environment = builder.environment();
      environment.keySet().removeIf(key -> key.startsWith("AWS_") || key.startsWith("SPARK_"));
      environment.put("SPARK_HOME", sparkHome.toString());
      // What bin/load-spark-env.sh exports in a distribution; Spark's WorkerCommandBuilder needs it.
      environment.put("SPARK_SCALA_VERSION", "2.12");
      environment.put("SPARK_LOCAL_IP", "127.0.0.1");
      // The credentials, where the SDK's default provider chain looks: the environment.
      environment.put("AWS_ACCESS_KEY_ID", server.accessKey());
      environment.put("AWS_SECRET_ACCESS_KEY", server.secretKey());
      environment.put("AWS_REGION", LocalS3Server.REGION);
      return new Running(builder.start(), log);
    }

    /** A launched driver. */
    record Running(Process process, Path log) {
      List<ProcessHandle> executors() {
        return process.descendants().filter(child -> child.info().commandLine().orElse("").contains(EXECUTOR_MAIN))
            .sorted(Comparator.comparingLong(ProcessHandle::pid)).toList();
      }

      boolean alive() {
        return process.isAlive();
      }

      void await(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      }

      CommandOutput output() throws IOException {
        // The driver's stdout and stderr, as one log.
        return new CommandOutput(process.isAlive() ? -1 : process.exitValue(), Files.readString(log, UTF_8), "");
      }
    }
  }

  /** Seconds by step, for the report. */
  private static final class Timer {
    private final Map<String, Long> seconds = new java.util.LinkedHashMap<>();
    private final long start = System.nanoTime();
    private long last = start;

    void lap(String step) {
      long now = System.nanoTime();
      seconds.put(step, TimeUnit.NANOSECONDS.toSeconds(now - last));
      last = now;
    }

    @Override
    public String toString() {
      return seconds + " total " + TimeUnit.NANOSECONDS.toSeconds(last - start);
    }
  }

  /** Spark's event log of one application: its JSON events, one a line. */
  private record EventLog(List<JsonNode> events) {
    static EventLog of(Path directory, String appName) throws IOException {
      try (Stream<Path> files = Files.list(directory)) {
        for (Path file : files.toList()) {
          List<JsonNode> events = Files.readAllLines(file, UTF_8).stream().map(EventLog::parse).toList();
          if (events.stream().anyMatch(event -> event.path("Event").asText().equals("SparkListenerApplicationStart")
              && event.path("App Name").asText().equals(appName))) {
            return new EventLog(events);
          }
        }
      }
      throw new AssertionError("no event log of " + appName + " in " + directory);
    }

    private static JsonNode parse(String line) {
      try {
        return JSON.readTree(line);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private Stream<JsonNode> taskEnds() {
      return events.stream().filter(event -> event.path("Event").asText().equals("SparkListenerTaskEnd"));
    }

    private Stream<JsonNode> succeededTasks() {
      return taskEnds().filter(event -> event.at("/Task End Reason/Reason").asText().equals("Success"));
    }

    Set<String> executorsWithTasks() {
      return succeededTasks().map(event -> event.at("/Task Info/Executor ID").asText())
          .collect(Collectors.toCollection(TreeSet::new));
    }

    /** A named accumulator's updates, summed by the executor whose tasks made them. */
    Map<String, Long> sumByExecutor(String accumulator) {
      Map<String, Long> sums = new TreeMap<>();
      succeededTasks().forEach(event -> event.at("/Task Info/Accumulables").forEach(update -> {
        if (update.path("Name").asText().equals(accumulator)) {
          sums.merge(event.at("/Task Info/Executor ID").asText(), Long.parseLong(update.path("Update").asText()),
              Long::sum);
        }
      }));
      return sums;
    }

    /** One count of the requests accumulator ({@code GetObject.calls}), summed by executor. */
    Map<String, Long> requestsByExecutor(String count) {
      Pattern pattern = Pattern.compile("(?:^|[{ ,])" + Pattern.quote(count) + "=(\\d+)");
      Map<String, Long> sums = new TreeMap<>();
      succeededTasks().forEach(event -> event.at("/Task Info/Accumulables").forEach(update -> {
        if (update.path("Name").asText().equals("statesweep.s3_requests")) {
          Matcher matcher = pattern.matcher(update.path("Update").asText());
          sums.merge(event.at("/Task Info/Executor ID").asText(), matcher.find() ? Long.parseLong(matcher.group(1)) : 0L,
              Long::sum);
        }
      }));
      return sums;
    }

    /** Tasks that failed because their executor was lost, counted by that executor. */
    Map<String, Long> lostTasks() {
      return taskEnds().filter(event -> event.at("/Task End Reason/Reason").asText().equals("ExecutorLostFailure"))
          .collect(Collectors.groupingBy(event -> event.at("/Task End Reason/Executor ID").asText(), TreeMap::new,
              Collectors.counting()));
    }

    Map<String, String> removedExecutors() {
      Map<String, String> removed = new TreeMap<>();
      events.stream().filter(event -> event.path("Event").asText().equals("SparkListenerExecutorRemoved"))
          .forEach(event -> removed.put(event.path("Executor ID").asText(), event.path("Removed Reason").asText()));
      return removed;
    }
  }

  private static Set<String> awaitDeletes(ObjectStore store, Set<String> before, int keys, Cluster.Running execute)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(8);
    while (System.nanoTime() < deadline && execute.alive()) {
      Set<String> now = exportKeys(store);
      if (now.size() <= before.size() - keys) {
        return now;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the execute deleted fewer than " + keys + " keys before it "
        + (execute.alive() ? "timed out" : "ended") + ":\n" + Files.readString(execute.log(), UTF_8));
  }

  /** The first executor JVM with a task in the execute's delete code, by its thread dump (jcmd). */
  private static ProcessHandle deleting(List<ProcessHandle> executors) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      for (ProcessHandle executor : executors) {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
            Long.toString(executor.pid()), "Thread.print").redirectErrorStream(true).start();
        String dump = new String(jcmd.getInputStream().readAllBytes(), UTF_8);
        jcmd.waitFor(30, TimeUnit.SECONDS);
        if (dump.contains(ExecuteFunctions.class.getName())) {
          return executor;
        }
      }
    }
    throw new AssertionError("no executor is running the delete phase");
  }

  private static String executorId(ProcessHandle executor) {
    List<String> arguments = Arrays.asList(executor.info().arguments().orElse(new String[0]));
    int index = arguments.indexOf("--executor-id");
    assertThat(index).as("the executor's command line").isNotNegative();
    return arguments.get(index + 1);
  }

  private static Map<String, String> environment(ProcessHandle process) throws IOException {
    Map<String, String> environment = new HashMap<>();
    for (String entry : Files.readString(Path.of("/proc", Long.toString(process.pid()), "environ"), UTF_8).split("\0")) {
      int equals = entry.indexOf('=');
      if (equals > 0) {
        environment.put(entry.substring(0, equals), entry.substring(equals + 1));
      }
    }
    return environment;
  }

  private static String summary(String output) {
    return output.lines().filter(line -> line.startsWith("summary: ")).reduce((first, second) -> second)
        .orElseThrow(() -> new AssertionError("no summary line in:\n" + output));
  }

  private static JsonNode metrics(String output) throws IOException {
    String line = output.lines().filter(candidate -> candidate.startsWith("metrics: ")).reduce((first, second) -> second)
        .orElseThrow(() -> new AssertionError("no metrics line in:\n" + output));
    return JSON.readTree(line.substring("metrics: ".length()));
  }

  private static String pair(String summary, String name) {
    Matcher matcher = Pattern.compile("\\b" + name + "=(\\S+)").matcher(summary);
    assertThat(matcher.find()).as(summary).isTrue();
    return matcher.group(1);
  }

  private static String withoutPairs(String summary, String name) {
    return summary.replaceAll(" " + name + "=\\S+", "");
  }

  private static Set<String> exportKeys(ObjectStore store) {
    return TestArchive.keys(store, PREFIX);
  }

  private static Path cleanDirectory(Path directory) throws IOException {
    if (Files.exists(directory)) {
      try (Stream<Path> paths = Files.walk(directory)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
    return Files.createDirectories(directory);
  }
}
