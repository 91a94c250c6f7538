package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TestArchive;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The EMR steps as YARN runs them: the spark-submit arguments of {@code conf/deploy/emr-step.json}, with
 * the bucket, the warehouse and the jars' paths substituted, submitted with {@code --master yarn} (EMR's
 * default) and the step's own {@code --deploy-mode cluster} to a MiniYARNCluster in this JVM (one
 * ResourceManager, one NodeManager). The driver runs in the ApplicationMaster's container, one executor
 * in a container of its own; both reach S3Proxy through the endpoint and the credentials given to their
 * environment, as a cluster's nodes get theirs (conf/deploy/README.md, "Deploy: the platforms": credentials from the
 * SDK's default chain only).
 *
 * <p>What the platform reads is checked where YARN keeps it: the application's final status and
 * diagnostics, and its attempts (a second attempt would plan again).
 *
 * <p>Like Spark's own YARN tests (BaseYarnClusterSuite), the containers get this machine's jars as
 * {@code spark.driver.extraClassPath} and {@code spark.executor.extraClassPath} (they run on the same
 * machine) and {@code spark.yarn.jars} names an empty local jar, so no Spark distribution is needed.
 * Delta comes as the step brings it on EMR: through {@code --jars}, here the same artifacts from the local
 * Maven repository, and not on the platform's class path.
 *
 * <p>The MiniYARNCluster is Hadoop 3.4.2's, with Spark 3.5.9's spark-yarn. The warehouse is an {@code s3a://} bucket on
 * the test server, and Delta's two jars come through {@code --jars} from the Maven repository in place of EMR's
 * {@code /usr/share/aws/delta/lib}. The driver runs in the ApplicationMaster's container (512 MB), with one executor
 * (512 MB, one core). The endpoint and credentials reach both through their containers' environment ({@code
 * spark.yarn.appMasterEnv.*}, {@code spark.executorEnv.*}: {@code STATESWEEP_ENDPOINT}, {@code AWS_ACCESS_KEY_ID},
 * {@code AWS_SECRET_ACCESS_KEY}), where the SDK's default chain and S3A read them (on EMR the instance role needs
 * neither).
 *
 * <p>Three submissions of the step: on a fresh archive the execute step finds no approved plan, deletes nothing and ends
 * SUCCEEDED ({@code approved_plan=none}), and the plan step ends FAILED with exit code 4, as the sample archive has
 * live records with missing files and the step gives {@code --fail-on missing}; bad settings ({@code --grace-days
 * seven}) end FAILED with the diagnostics {@code User class threw exception: io.statesweep.jobs.StatesweepFailure:
 * statesweep execute failed with exit code 2 (...); summary: ... stopped=bad_settings}; a plan with one state file
 * that the fault proxy denies ends FAILED with exit code 1 and its {@code errors=1} summary in YARN's diagnostics.
 * Each ends after exactly one attempt.
 *
 * <p>Failsafe runs it in profile {@code yarn} only ({@code mvn -B verify -Pyarn}; {@code -Dit.test=YarnClusterIT} runs
 * it alone): it needs about 8.7 CPU-minutes (three Spark applications, each an ApplicationMaster and an executor
 * container), more than CI's 2-core budget leaves.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class YarnClusterIT {
  private static final Path JAR = Path.of(System.getProperty("statesweep.jar")).toAbsolutePath();
  private static final Path EMR_STEP = Path.of("..", "conf", "deploy", "emr-step.json");
  private static final String PREFIX = "cogram/";
  /** The steps of the file: the execute of the newest approved plan, then the plan for the day's review. */
  private static final int EXECUTE_STEP = 0;
  private static final int PLAN_STEP = 1;
  private static final Duration SUBMIT_TIMEOUT = Duration.ofMinutes(8);
  /** The delta jars on an EMR 7 node, and their Maven artifacts. */
  private static final Map<String, String> DELTA_JARS = Map.of(
      "/usr/share/aws/delta/lib/delta-spark.jar", "delta-spark_2.12-",
      "/usr/share/aws/delta/lib/delta-storage.jar", "delta-storage-");

  @TempDir
  static Path work;
  private static MiniYARNCluster yarn;
  private static YarnClient yarnClient;
  private static Path hadoopConfDir;

  @BeforeAll
  static void startYarn() throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    // The smallest cluster: one NodeManager with room for the driver's and one executor's containers.
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setInt(YarnConfiguration.NM_VCORES, 4);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 256);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.set("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "100.0");
    // capacity-scheduler.xml is not in hadoop-client-minicluster (the same settings as Spark's suite).
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    conf.setInt("yarn.scheduler.capacity.root.default.capacity", 100);
    conf.setFloat("yarn.scheduler.capacity.root.default.user-limit-factor", 1);
    conf.setInt("yarn.scheduler.capacity.root.default.maximum-capacity", 100);
    conf.set("yarn.scheduler.capacity.root.default.state", "RUNNING");
    conf.set("yarn.scheduler.capacity.root.default.acl_submit_applications", "*");
    conf.set("yarn.scheduler.capacity.root.default.acl_administer_queue", "*");
    conf.setInt("yarn.scheduler.capacity.node-locality-delay", -1);
    conf.setFloat("yarn.scheduler.capacity.maximum-am-resource-percent", 0.5f);
    // YARN's default of two attempts stays: one attempt must come from the step's spark.yarn.maxAppAttempts.
    yarn = new MiniYARNCluster(YarnClusterIT.class.getSimpleName(), 1, 1, 1);
    yarn.init(conf);
    yarn.start();

    // start() may return before the ResourceManager has put its port in the configuration.
    Configuration config = yarn.getConfig();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (config.get(YarnConfiguration.RM_ADDRESS).endsWith(":0")) {
      assertThat(System.nanoTime()).as("the ResourceManager's address").isLessThan(deadline);
      Thread.sleep(100);
    }
    hadoopConfDir = Files.createDirectories(work.resolve("hadoop-conf"));
    try (OutputStream out = Files.newOutputStream(hadoopConfDir.resolve("yarn-site.xml"))) {
      config.writeXml(out);
    }
    yarnClient = YarnClient.createYarnClient();
    yarnClient.init(config);
    yarnClient.start();
  }

  @AfterAll
  static void stopYarn() {
    if (yarnClient != null) {
      yarnClient.stop();
    }
    if (yarn != null) {
      yarn.stop();
    }
  }

  /**
   * The first morning of a deployment: the execute step finds no approved plan, deletes nothing and succeeds; the
   * plan step that follows writes the plan for review and, as the archive has live records whose files are
   * missing, fails with exit code 4 (its {@code --fail-on missing}). Both in one attempt, the lock released.
   */
  @Test
  void theStepsOnAFreshArchiveDeleteNothingUnapprovedAndAPlanWithMissingFilesFails(LocalS3Server server)
      throws Exception {
    String bucket = server.createBucket("yarn-clean");
    String reports = server.createBucket("yarn-clean-reports");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    SampleArchive.Manifest manifest = SampleArchive.generate(store, PREFIX, 60, 41L, Instant.now());
    Set<String> before = exportKeys(store);
    assertThat(manifest.expectedDeletes(graceDays())).as("something is due").isNotEmpty();

    Application execute = submit(stepArgs(EXECUTE_STEP, bucket, reports, Map.of()), server.endpoint(), server);

    assertThat(execute.finalStatus()).as(execute.describe()).isEqualTo(FinalApplicationStatus.SUCCEEDED);
    assertThat(execute.attempts()).as(execute.describe()).isEqualTo(1);
    assertThat(execute.driverSummary()).as(execute.describe())
        .startsWith("summary: dry_run=false complete=true state_files_scanned=0 records_deleted=0 ")
        .contains(" approved_plan=none");
    assertThat(exportKeys(store)).as("nothing approved, nothing deleted").isEqualTo(before);

    Application plan = submit(stepArgs(PLAN_STEP, bucket, reports, Map.of()), server.endpoint(), server);

    // The sample archive has live records whose files are missing: the step's --fail-on missing fails it (exit 4).
    assertThat(plan.finalStatus()).as(plan.describe()).isEqualTo(FinalApplicationStatus.FAILED);
    assertThat(plan.attempts()).as(plan.describe()).isEqualTo(1);
    assertThat(plan.driverSummary()).as(plan.describe()).startsWith("summary: dry_run=true complete=true ")
        .contains(" errors=0 ").contains(" records_deleted=" + manifest.countsByAction(graceDays())
            .getOrDefault("delete_record", 0L) + " ").endsWith(" failed_on=missing");
    assertThat(plan.diagnostics()).as(plan.describe())
        .startsWith(userClassThrew("plan", StatesweepCli.LOST_FILES, plan.driverSummary()));
    assertThat(exportKeys(store)).isEqualTo(before);
    assertThat(store.read("cogram.statesweep/lock", 4096)).as("the lock released").isNull();
  }

  @Test
  void badSettingsEndFailedInOneAttemptWithTheExitCodeAndTheSummaryInTheDiagnostics(LocalS3Server server)
      throws Exception {
    String bucket = server.createBucket("yarn-bad-settings");
    String reports = server.createBucket("yarn-bad-settings-reports");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    SampleArchive.generate(store, PREFIX, 60, 43L, Instant.now());
    Set<String> before = exportKeys(store);
    List<String> args = stepArgs(EXECUTE_STEP, bucket, reports, Map.of("--grace-days", "seven"));
    assertThat(args).containsSubsequence("--grace-days", "seven");

    Application application = submit(args, server.endpoint(), server);

    assertThat(application.finalStatus()).as(application.describe()).isEqualTo(FinalApplicationStatus.FAILED);
    assertThat(application.attempts()).as(application.describe()).isEqualTo(1);
    String summary = "summary: dry_run=false complete=false state_files_scanned=0 records_deleted=0"
        + " child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0"
        + " stopped=bad_settings";
    assertThat(application.driverSummary()).as(application.describe()).isEqualTo(summary);
    assertThat(application.diagnostics()).as(application.describe())
        .startsWith(userClassThrew("execute", StatesweepCli.BAD_SETTINGS, summary));
    assertThat(exportKeys(store)).isEqualTo(before);
  }

  @Test
  void aRunWithErrorsEndsFailedInOneAttemptWithTheExitCodeAndTheSummaryInTheDiagnostics(LocalS3Server server)
      throws Exception {
    String bucket = server.createBucket("yarn-errors");
    String reports = server.createBucket("yarn-errors-reports");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    SampleArchive.Manifest manifest = SampleArchive.generate(store, PREFIX, 60, 47L, Instant.now());
    String unreadable = manifest.records().keySet().iterator().next();
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      // One state file that cannot be read (403 on its GET): the run's one error.
      proxy.plan(request -> request.method().equals("GET") && request.target().startsWith("/" + bucket + "/" + unreadable)
          ? FaultProxy.Fault.ACCESS_DENIED : null);

      Application application = submit(stepArgs(PLAN_STEP, bucket, reports, Map.of()), proxy.endpoint(), server);

      assertThat(proxy.injected()).as("the state file's GET was denied").containsKey(FaultProxy.Fault.ACCESS_DENIED);
      assertThat(application.finalStatus()).as(application.describe()).isEqualTo(FinalApplicationStatus.FAILED);
      assertThat(application.attempts()).as(application.describe()).isEqualTo(1);
      String summary = application.driverSummary();
      assertThat(summary).as(application.describe()).startsWith("summary: dry_run=true complete=true ")
          .contains(" errors=1 ");
      assertThat(application.diagnostics()).as(application.describe())
          .startsWith(userClassThrew("plan", StatesweepCli.RUN_FAILED, summary));
    }
  }

  /** The diagnostics of an application whose main threw the failure of the step's run command. */
  private static String userClassThrew(String command, int exitCode, String summary) {
    return "User class threw exception: " + StatesweepFailure.class.getName() + ": "
        + StatesweepFailure.message(command, exitCode, summary);
  }

  /** The step's grace period, as its arguments say. */
  private static Duration graceDays() throws IOException {
    List<String> args = emrStepArgs(PLAN_STEP);
    return Duration.ofDays(Integer.parseInt(args.get(args.indexOf("--grace-days") + 1)));
  }

  /** What the step gives spark-submit: its Args after "spark-submit". */
  private static List<String> emrStepArgs(int index) throws IOException {
    JsonNode step = new ObjectMapper().readTree(EMR_STEP.toFile()).get(index);
    List<String> args = new ArrayList<>();
    step.get("Args").forEach(arg -> args.add(arg.asText()));
    assertThat(args.get(0)).isEqualTo("spark-submit");
    return args.subList(1, args.size());
  }

  /**
   * The step's arguments for this cluster: its bucket, its warehouse's bucket (an {@code s3a://} warehouse
   * on S3Proxy, as the step's is on S3), the job jar as built, Delta's jars from the Maven repository;
   * {@code values} replaces the values of the step's flags it names.
   */
  private static List<String> stepArgs(int index, String bucket, String reports, Map<String, String> values)
      throws IOException {
    List<String> args = emrStepArgs(index);
    assertThat(args).as("the step runs in YARN cluster mode").containsSubsequence("--deploy-mode", "cluster");
    List<String> substituted = new ArrayList<>();
    String previous = "";
    for (String arg : args) {
      String value = switch (previous) {
        case "--bucket" -> bucket;
        case "--warehouse" -> "s3a://" + reports + "/" + arg.replaceFirst("^s3a://[^/]+/", "");
        case "--jars" -> Arrays.stream(arg.split(",")).map(YarnClusterIT::deltaJar).collect(Collectors.joining(","));
        default -> arg.startsWith("s3://") && arg.endsWith("/statesweep.jar") ? JAR.toString() : arg;
      };
      substituted.add(values.getOrDefault(previous, value));
      previous = arg;
    }
    assertThat(substituted).as("the step's own jar, bucket and warehouse, substituted")
        .contains(JAR.toString(), bucket, "s3a://" + reports + "/statesweep")
        .noneMatch(arg -> arg.startsWith("s3://") || arg.contains("my-"));
    return substituted;
  }

  private static String deltaJar(String emrPath) {
    String artifact = DELTA_JARS.get(emrPath);
    assertThat(artifact).as("a Delta jar of EMR's image: %s", emrPath).isNotNull();
    return platform().stream().filter(path -> Path.of(path).getFileName().toString().startsWith(artifact))
        .findFirst().orElseThrow(() -> new AssertionError("no " + artifact + "*.jar in the provided class path"));
  }

  /** The jars of a cluster node (Spark, Hadoop and what they need), without Delta, which the step brings. */
  private static List<String> platform() {
    try {
      String classpath = Files.readString(Path.of(System.getProperty("statesweep.provided.classpath"))).strip();
      String yarnClasspath = Files.readString(Path.of(System.getProperty("statesweep.yarn.classpath"))).strip();
      return Stream.concat(Arrays.stream(classpath.split(File.pathSeparator)),
          Arrays.stream(yarnClasspath.split(File.pathSeparator))).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String nodeClasspath() {
    return platform().stream().filter(path -> DELTA_JARS.values().stream()
        .noneMatch(artifact -> Path.of(path).getFileName().toString().startsWith(artifact)))
        .collect(Collectors.joining(File.pathSeparator));
  }

  /**
   * Runs spark-submit ({@code org.apache.spark.deploy.SparkSubmit}) with the step's arguments against the
   * cluster and waits for the application to end. The endpoint and credentials go into the environment of
   * the driver's and the executor's containers.
   */
  private static Application submit(List<String> stepArgs, String endpoint, LocalS3Server server) throws Exception {
    Set<ApplicationId> earlier = new HashSet<>();
    yarnClient.getApplications().forEach(report -> earlier.add(report.getApplicationId()));
    Path fakeSparkJar = work.resolve("spark-jars-on-the-nodes.jar");
    if (!Files.exists(fakeSparkJar)) {
      Files.createFile(fakeSparkJar);
    }
    String classpath = nodeClasspath();
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("STATESWEEP_ENDPOINT", endpoint);
    environment.put("AWS_ACCESS_KEY_ID", server.accessKey());
    environment.put("AWS_SECRET_ACCESS_KEY", server.secretKey());
    environment.put("JAVA_HOME", System.getProperty("java.home"));

    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m"));
    command.addAll(Arrays.asList(System.getProperty("spark.java17.flags").trim().split("\\s+")));
    // HADOOP_CONF_DIR on the class path, as bin/spark-submit puts it there.
    command.addAll(List.of("-cp", hadoopConfDir + File.pathSeparator + classpath, "org.apache.spark.deploy.SparkSubmit",
        "--master", "yarn"));
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.yarn.jars", "local:" + fakeSparkJar);
    conf.put("spark.driver.extraClassPath", classpath);
    conf.put("spark.executor.extraClassPath", classpath);
    conf.put("spark.yarn.stagingDir", work.resolve("staging").toUri().toString());
    conf.put("spark.driver.memory", "512m");
    conf.put("spark.driver.cores", "1");
    conf.put("spark.executor.instances", "1");
    conf.put("spark.executor.memory", "512m");
    conf.put("spark.executor.cores", "1");
    // Sized for the one-core executor, as a cluster's spark-defaults size it for its nodes (200 would be 200 tasks
    // one after another in every shuffle and Delta write).
    conf.put("spark.sql.shuffle.partitions", "2");
    // The driver's UI would need YARN's AmIpFilter (hadoop-yarn-server-web-proxy) on the class path.
    conf.put("spark.ui.enabled", "false");
    environment.forEach((name, value) -> {
      conf.put("spark.yarn.appMasterEnv." + name, value);
      conf.put("spark.executorEnv." + name, value);
    });
    conf.forEach((key, value) -> command.addAll(List.of("--conf", key + "=" + value)));
    command.addAll(stepArgs);

    Path log = Files.createTempFile(work, "spark-submit", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("HADOOP_CONF_DIR", hadoopConfDir.toString());
    builder.environment().remove("SPARK_HOME");
    long started = System.nanoTime();
    Process process = builder.start();
    boolean finished = process.waitFor(SUBMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    List<ApplicationReport> submitted = yarnClient.getApplications().stream()
        .filter(report -> !earlier.contains(report.getApplicationId())).toList();
    if (!finished) {
      process.destroyForcibly().waitFor();
      for (ApplicationReport report : submitted) {
        yarnClient.killApplication(report.getApplicationId()); // not to run beside the next test's
      }
    }
    String submitLog = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(finished).as("spark-submit ended within %s: %s", SUBMIT_TIMEOUT, submitLog).isTrue();
    assertThat(submitted).as(submitLog).hasSize(1);
    ApplicationId id = submitted.get(0).getApplicationId();
    ApplicationReport report = awaitEnd(id);
    System.out.printf("YarnClusterIT: %s %s %s in %.0f s (spark-submit exit code %d)%n", id,
        report.getYarnApplicationState(), report.getFinalApplicationStatus(),
        (System.nanoTime() - started) / 1e9, process.exitValue());
    return new Application(id, report, yarnClient.getApplicationAttempts(id).size(), process.exitValue(), submitLog,
        containerLog(id, "stdout"), containerLog(id, "stderr"));
  }

  /** The application's report once YARN says it ended; after 10 minutes, as it stands then. */
  private static ApplicationReport awaitEnd(ApplicationId id) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (true) {
      ApplicationReport report = yarnClient.getApplicationReport(id);
      YarnApplicationState state = report.getYarnApplicationState();
      if (state == YarnApplicationState.FINISHED || state == YarnApplicationState.FAILED
          || state == YarnApplicationState.KILLED || System.nanoTime() > deadline) {
        return report;
      }
      Thread.sleep(200);
    }
  }

  /** The driver's output: the file {@code name} of the first attempt's ApplicationMaster container. */
  private static String containerLog(ApplicationId id, String name) throws IOException {
    try (Stream<Path> files = Files.walk(yarn.getTestWorkDir().toPath())) {
      List<Path> logs = files.filter(path -> path.getFileName().toString().equals(name)
          && path.getParent().getFileName().toString().endsWith("_01_000001")
          && path.getParent().getParent().getFileName().toString().equals(id.toString())).toList();
      return logs.isEmpty() ? "(no " + name + " of the driver's container)" : Files.readString(logs.get(0));
    }
  }

  private static Set<String> exportKeys(ObjectStore store) {
    return TestArchive.keys(store, PREFIX);
  }

  /** An ended application as YARN reports it, with the driver's output. */
  private record Application(ApplicationId id, ApplicationReport report, int attempts, int submitExitCode,
      String submitLog, String driverOut, String driverErr) {
    FinalApplicationStatus finalStatus() {
      return report.getFinalApplicationStatus();
    }

    String diagnostics() {
      return report.getDiagnostics();
    }

    /** The driver's last summary line. */
    String driverSummary() {
      List<String> summaries = driverOut.lines().filter(line -> line.startsWith("summary: ")).toList();
      return summaries.isEmpty() ? "(no summary line)" : summaries.get(summaries.size() - 1);
    }

    String describe() {
      return id + " " + report.getYarnApplicationState() + " " + finalStatus() + ", " + attempts + " attempt(s)"
          + "\n--- diagnostics:\n" + diagnostics() + "\n--- driver stdout:\n" + driverOut
          + "\n--- driver stderr (last 200 lines):\n" + tail(driverErr, 200)
          + "\n--- spark-submit (last 60 lines):\n" + tail(submitLog, 60);
    }

    private static String tail(String text, int lines) {
      List<String> all = text.lines().toList();
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
  }
}
