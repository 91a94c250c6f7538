package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.s3.RunLock;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The job definitions in {@code conf/deploy} run what exists: their main class has a main method,
 * their command is one the CLI knows, every option they name parses and validates as the job would
 * read it; the Databricks schedule runs after the exporter's 03:00 UTC run; the IAM policy grants
 * what those jobs touch and nothing wider. The EMR step runs in YARN cluster mode with one attempt, the EMR
 * Serverless run is one batch attempt, and the Databricks job follows Databricks' rules for a JAR task
 * (a Java 17 runtime, dedicated access mode).
 */
class DeployDefinitionsTest {
  private static final Path DEPLOY = Path.of("..", "conf", "deploy");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> COMMANDS = Set.of("plan", "run", "approve", "execute");

  private record Job(String mainClass, List<String> args) {}

  @Test
  void theEmrStepRunsTheCliWithValidOptions() throws Exception {
    JsonNode step = read("emr-step.json").get(0);
    List<String> args = strings(step.get("Args"));
    assertThat(args.get(0)).isEqualTo("spark-submit");
    String mainClass = args.get(args.indexOf("--class") + 1);
    int jar = indexOfJobJar(args);

    check(new Job(mainClass, args.subList(jar + 1, args.size())));
  }

  @Test
  void theEmrServerlessJobRunRunsTheCliWithValidOptions() throws Exception {
    JsonNode submit = read("emr-serverless-job-run.json").get("jobDriver").get("sparkSubmit");
    List<String> parameters = Arrays.asList(submit.get("sparkSubmitParameters").asText().split("\\s+"));
    assertThat(submit.get("entryPoint").asText()).endsWith("/statesweep.jar");

    check(new Job(parameters.get(parameters.indexOf("--class") + 1), strings(submit.get("entryPointArguments"))));
  }

  @Test
  void theDatabricksJobRunsTheCliDailyAfterTheExportersRunAndOneAtATime() throws Exception {
    JsonNode job = read("databricks-job.json");
    JsonNode task = job.get("tasks").get(0).get("spark_jar_task");

    check(new Job(task.get("main_class_name").asText(), strings(task.get("parameters"))));
    assertThat(job.get("max_concurrent_runs").asInt()).isEqualTo(1);
    JsonNode schedule = job.get("schedule");
    assertThat(schedule.get("timezone_id").asText()).isEqualTo("UTC");
    String[] cron = schedule.get("quartz_cron_expression").asText().split(" ");
    assertThat(cron[3]).as("every day").isEqualTo("*");
    assertThat(Integer.parseInt(cron[2])).as("hour, after the exporter's 03:00 UTC run").isBetween(4, 23);
  }

  /** A second YARN attempt would plan again: the step runs in cluster mode with one attempt. */
  @Test
  void theEmrStepRunsInYarnClusterModeWithOneAttempt() throws Exception {
    List<String> args = strings(read("emr-step.json").get(0).get("Args"));
    List<String> submitOptions = args.subList(0, indexOfJobJar(args));

    assertThat(pairs(submitOptions, "--deploy-mode")).containsExactly("cluster");
    assertThat(pairs(submitOptions, "--conf")).contains("spark.yarn.maxAppAttempts=1");
    assertThat(Launcher.detect(Map.of(), Map.of("spark.master", "yarn", "spark.submit.deployMode", "cluster")))
        .isEqualTo(Launcher.YARN_CLUSTER);
  }

  /** EMR Serverless does not run on YARN: its own retry policy keeps a failed batch run from running again. */
  @Test
  void theEmrServerlessJobRunIsOneBatchAttempt() throws Exception {
    JsonNode run = read("emr-serverless-job-run.json");

    assertThat(run.path("mode").asText()).isEqualTo("BATCH");
    assertThat(run.path("retryPolicy").path("maxAttempts").asInt()).isEqualTo(1);
  }

  /**
   * The jar is built for Java 17 and Scala 2.12: Databricks Runtime 16.4 LTS or later runs JDK 17 by
   * default; 15.4 LTS runs JDK 8 unless {@code JNAME=zulu17-ca-amd64}.
   */
  @Test
  void theDatabricksJobRunsOnAJava17RuntimeWithScala212() throws Exception {
    JsonNode cluster = read("databricks-job.json").get("tasks").get(0).get("new_cluster");
    String sparkVersion = cluster.path("spark_version").asText();
    java.util.regex.Matcher version = java.util.regex.Pattern.compile("(\\d+)\\.(\\d+)\\.x-scala(.+)")
        .matcher(sparkVersion);

    assertThat(version.matches()).as("spark_version %s", sparkVersion).isTrue();
    assertThat(version.group(3)).as("spark_version %s", sparkVersion).isEqualTo("2.12");
    int major = Integer.parseInt(version.group(1));
    int minor = Integer.parseInt(version.group(2));
    boolean java17ByDefault = major > 16 || major == 16 && minor >= 4;
    boolean java17Chosen = major == 15 && minor == 4
        && "zulu17-ca-amd64".equals(cluster.path("spark_env_vars").path("JNAME").asText());
    assertThat(java17ByDefault || java17Chosen)
        .as("spark_version %s runs Java 17 (16.4 LTS or later, or 15.4 with spark_env_vars.JNAME=zulu17-ca-amd64)",
            sparkVersion)
        .isTrue();
  }

  /**
   * The job uses RDD APIs, which standard (shared) access mode refuses: dedicated (single-user) access
   * mode, for the principal the job runs as.
   */
  @Test
  void theDatabricksJobRunsInDedicatedAccessModeAsItsOwnPrincipal() throws Exception {
    JsonNode job = read("databricks-job.json");
    JsonNode cluster = job.get("tasks").get(0).get("new_cluster");
    String mode = cluster.path("data_security_mode").asText();

    // The Clusters API takes SINGLE_USER with any kind; its alias DATA_SECURITY_MODE_DEDICATED only with
    // kind CLASSIC_PREVIEW.
    assertThat(mode.equals("SINGLE_USER")
        || mode.equals("DATA_SECURITY_MODE_DEDICATED") && cluster.path("kind").asText().equals("CLASSIC_PREVIEW"))
        .as("data_security_mode %s", mode).isTrue();
    String runAs = job.path("run_as").has("service_principal_name")
        ? job.path("run_as").path("service_principal_name").asText() : job.path("run_as").path("user_name").asText();
    assertThat(cluster.path("single_user_name").asText()).isNotBlank().isEqualTo(runAs);
  }

  @Test
  void theIamPolicyGrantsExactlyWhatTheJobsTouch() throws Exception {
    Job job = job(read("databricks-job.json"));
    RunOptions options = options(job.args());
    String bucket = options.bucket();
    String prefix = options.prefix().value();
    String lockFolder = RunLock.keyFor(prefix).substring(0, RunLock.keyFor(prefix).lastIndexOf('/') + 1);
    List<JsonNode> statements = new ArrayList<>();
    read("iam-policy.json").get("Statement").forEach(statements::add);

    assertThat(statements).allSatisfy(s -> assertThat(s.get("Effect").asText()).isEqualTo("Allow"));
    assertThat(statements).noneSatisfy(s -> assertThat(s.get("Action").toString()).contains("*\""));
    JsonNode list = statement(statements, "s3:ListBucket", "arn:aws:s3:::" + bucket);
    assertThat(strings(list.get("Condition").get("StringLike").get("s3:prefix")))
        .containsExactlyInAnyOrder(prefix + "*", lockFolder + "*");
    assertThat(strings(statement(statements, "s3:DeleteObject", "arn:aws:s3:::" + bucket + "/" + prefix + "*")
        .get("Action"))).containsExactlyInAnyOrder("s3:GetObject", "s3:DeleteObject");
    assertThat(strings(statement(statements, "s3:PutObject", "arn:aws:s3:::" + bucket + "/" + lockFolder + "*")
        .get("Action"))).containsExactlyInAnyOrder("s3:PutObject", "s3:GetObject", "s3:DeleteObject");
    String warehouse = options.warehouse().replaceFirst("^s3a://", "");
    assertThat(strings(statement(statements, "s3:PutObject", "arn:aws:s3:::" + warehouse + "/*").get("Action")))
        .contains("s3:PutObject", "s3:GetObject", "s3:DeleteObject", "s3:ListBucket");
    assertThat(statements).anySatisfy(s -> assertThat(s.get("Action").asText()).isEqualTo("kms:Decrypt"));
    assertThat(statements).noneSatisfy(s -> assertThat(s.get("Resource").toString())
        .contains("arn:aws:s3:::" + bucket + "/*"));
  }

  @Test
  void theIamPolicyLetsTheRunLockAndProbeBeWrittenOnSseKmsBucketsAndNothingElse() throws Exception {
    RunOptions options = options(job(read("databricks-job.json")).args());
    String bucket = options.bucket();
    String lockFolder = RunLock.keyFor(options.prefix().value()).replaceFirst("[^/]*$", "");
    List<JsonNode> statements = new ArrayList<>();
    read("iam-policy.json").get("Statement").forEach(statements::add);
    JsonNode decrypt = statements.stream().filter(s -> s.get("Action").asText().equals("kms:Decrypt")).findFirst()
        .orElseThrow();

    JsonNode generate = statements.stream().filter(s -> s.get("Action").asText().equals("kms:GenerateDataKey"))
        .findFirst().orElseThrow(() -> new AssertionError("no statement grants kms:GenerateDataKey alone"));

    assertThat(generate.get("Resource").asText()).as("the bucket's key").isEqualTo(decrypt.get("Resource").asText());
    JsonNode condition = generate.get("Condition");
    assertThat(condition.get("StringEquals").get("kms:ViaService").asText()).startsWith("s3.");
    // Data keys for statesweep's own folder (the lock, the probe), or the bucket's S3 Bucket Key; never
    // for the export's objects, which statesweep only reads and deletes.
    assertThat(strings(condition.get("StringLike").get("kms:EncryptionContext:aws:s3:arn")))
        .containsExactlyInAnyOrder("arn:aws:s3:::" + bucket + "/" + lockFolder + "*", "arn:aws:s3:::" + bucket);
  }

  private static void check(Job job) throws Exception {
    Class<?> main = Class.forName(job.mainClass());
    Method method = main.getMethod("main", String[].class);
    assertThat(Modifier.isStatic(method.getModifiers())).isTrue();
    assertThat(COMMANDS).contains(job.args().get(0));
    RunOptions options = options(job.args());
    assertThat(options.dryRun()).as("the scheduled job deletes").isFalse();
    assertThat(options.warehouse()).startsWith("s3a://");
  }

  /** Parses and validates the arguments exactly as the CLI would, without a request. */
  private static RunOptions options(List<String> args) {
    Commands.Invocation invocation = Commands.parse(args.toArray(String[]::new));
    return RunOptions.from(Settings.resolve(invocation.flags(), Map.of(), null));
  }

  private static Job job(JsonNode databricks) {
    JsonNode task = databricks.get("tasks").get(0).get("spark_jar_task");
    return new Job(task.get("main_class_name").asText(), strings(task.get("parameters")));
  }

  /** The values that follow {@code option} in {@code args}. */
  private static List<String> pairs(List<String> args, String option) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i + 1 < args.size(); i++) {
      if (args.get(i).equals(option)) {
        values.add(args.get(i + 1));
      }
    }
    return values;
  }

  private static int indexOfJobJar(List<String> args) {
    for (int i = 1; i < args.size(); i++) {
      if (args.get(i).endsWith("statesweep.jar") && !args.get(i - 1).equals("--jars")) {
        return i;
      }
    }
    throw new AssertionError("no statesweep.jar in " + args);
  }

  private static JsonNode statement(List<JsonNode> statements, String action, String resource) {
    return statements.stream()
        .filter(s -> s.get("Action").toString().contains("\"" + action + "\""))
        .filter(s -> s.get("Resource").toString().contains("\"" + resource + "\""))
        .findFirst().orElseThrow(() -> new AssertionError("no statement grants " + action + " on " + resource));
  }

  private static List<String> strings(JsonNode node) {
    List<String> values = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(value -> values.add(value.asText()));
    } else {
      values.add(node.asText());
    }
    return values;
  }

  private static JsonNode read(String file) throws IOException {
    return JSON.readTree(DEPLOY.resolve(file).toFile());
  }
}
