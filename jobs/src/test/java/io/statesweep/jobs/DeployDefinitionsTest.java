package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LogLine;
import io.statesweep.config.Command;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.plan.FailOn;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.RunLock;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The definitions in {@code conf/deploy} run what exists and do what the conf/deploy/README.md's "Deploy" says.
 *
 * <ul>
 *   <li>Every job's main class has a main method, its command is one the CLI knows, and every option it names
 *       parses and validates as the job would read it (with the environment the definition gives the driver).
 *   <li>No shipped job deletes unreviewed: a job deletes only through {@code execute --latest-approved}, bounded
 *       ({@code --max-deletes}) and failing on lost files ({@code --fail-on came_back,missing}); every other job
 *       never deletes (a {@code plan}, which fails on {@code missing}). On each platform the execute comes first,
 *       then the plan for the next review, over the same export, warehouse and grace days.
 *   <li>The job policy grants every S3 location a job names (the jar, the warehouse, the log folder, the export
 *       prefix, the run lock's folder) the actions it needs and nothing wider; the reviewer policy reads the
 *       warehouse and writes only its approvals table, and never reaches the export bucket.
 *   <li>The schedules run daily after the exporter's 03:00 UTC run and start the shipped jobs; the scheduler's
 *       role may start exactly those.
 *   <li>The EventBridge rules match the failures of the shipped jobs; the metric filters count each alert line.
 *   <li>The platforms' own rules: YARN cluster mode with one attempt, one batch attempt on EMR Serverless, and on
 *       Databricks a Java 17 runtime in dedicated access mode.
 * </ul>
 */
class DeployDefinitionsTest {
  private static final Path DEPLOY = Path.of("..", "conf", "deploy");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> COMMANDS = Set.of("plan", "run", "approve", "execute");
  private static final String EMR_ADD_STEPS = "arn:aws:scheduler:::aws-sdk:emr:addJobFlowSteps";
  private static final String SERVERLESS_START = "arn:aws:scheduler:::aws-sdk:emrserverless:startJobRun";
  private static final Duration DAY = Duration.ofHours(24);

  /**
   * One shipped job: where it is defined, on which platform, its main class and arguments, the environment its
   * definition gives the driver, the jar it runs, and where the platform writes its logs (null where the
   * definition names none).
   */
  private record Job(String where, String platform, String mainClass, List<String> args,
      Map<String, String> environment, String jar, String logUri, String logGroup) {

    Commands.Invocation invocation() {
      return Commands.parse(args.toArray(String[]::new));
    }

    RunOptions options() {
      return RunOptions.from(Settings.resolve(invocation().flags(), environment, null));
    }

    boolean deletes() {
      Commands.Invocation invocation = invocation();
      return invocation.command() == Command.EXECUTE || !options().dryRun();
    }

    Job withArgs(List<String> more) {
      List<String> all = new ArrayList<>(args);
      all.addAll(more);
      return new Job(where + " " + String.join(" ", more), platform, mainClass, all, environment, jar, logUri,
          logGroup);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // The jobs run the CLI with valid options

  @Test
  void everyShippedJobRunsTheCliWithValidOptions() throws Exception {
    List<Job> jobs = shippedJobs();

    assertThat(jobs).extracting(Job::platform).contains("databricks", "emr", "emr-serverless");
    for (Job job : jobs) {
      Class<?> main = Class.forName(job.mainClass());
      Method method = main.getMethod("main", String[].class);
      assertThat(Modifier.isStatic(method.getModifiers())).as(job.where()).isTrue();
      assertThat(COMMANDS).as(job.where()).contains(job.args().get(0));
      Commands.Invocation invocation = job.invocation();
      assertThat(invocation.help()).as(job.where()).isFalse();
      // A settings file would change what the job does where this test cannot see it.
      assertThat(invocation.configFile()).as(job.where()).isNull();
      RunOptions options = job.options();
      assertThat(options.export().warehouse()).as(job.where()).startsWith("s3a://");
      // The path Publish writes a version to, once: the code a job names does not change between a plan and its
      // execute.
      assertThat(job.jar()).as(job.where()).startsWith("s3://").matches(".*/\\d+\\.\\d+\\.\\d+[^/]*/statesweep\\.jar");
    }
  }

  /** The options parse as the CLI parses them: a job whose option is misspelt fails here. */
  @Test
  void theJobCheckRefusesAnOptionTheCommandDoesNotTake() throws Exception {
    Job plan = jobs("emr").get(1);

    assertThatThrownBy(() -> plan.withArgs(List.of("--max-deletes", "10")).options())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--max-deletes");
  }

  // ---------------------------------------------------------------------------------------------------------
  // (a), (b): no shipped job deletes unreviewed, and what deletes is bounded and fails on lost files

  @Test
  void everyShippedJobDeletesOnlyAnApprovedPlanOrNothing() throws Exception {
    for (Job job : shippedJobs()) {
      Commands.Invocation invocation = job.invocation();
      RunOptions options = job.options();

      assertThat(job.args()).as(job.where()).doesNotContain("--skip-approval", "--execute", "--dry-run");
      assertThat(options.execute().skipApproval()).as(job.where()).isFalse();
      assertThat(options.execute().deletes().unsafeLock()).as(job.where()).isFalse();
      if (invocation.command() == Command.EXECUTE) {
        assertThat(invocation.latestApproved()).as("%s executes the newest approved plan", job.where()).isTrue();
        assertThat(invocation.runId()).as(job.where()).isNull();
      } else {
        assertThat(options.dryRun()).as("%s never deletes", job.where()).isTrue();
        assertThat(invocation.command()).as(job.where()).isIn(Command.PLAN, Command.RUN);
      }
    }
  }

  @Test
  void everyDeletingJobIsBoundedAndFailsOnLostFilesAndEveryPlanFailsOnMissingFiles() throws Exception {
    for (Job job : shippedJobs()) {
      RunOptions options = job.options();
      if (job.deletes()) {
        assertThat(options.execute().deletes().maxDeletes()).as("%s: --max-deletes", job.where()).isPositive();
        // Paced per lane by what S3 answers, the exporter's share kept (pipeline/README.md, "Deleting at the bucket's
        // speed").
        assertThat(options.execute().deletes().pacing()).as("%s: --pacing", job.where()).isNotNull();
        assertThat(options.execute().deletes().pacing().margin()).as("%s: --exporter-margin", job.where())
            .isEqualTo(0.1);
        assertThat(job.args()).as("%s: --exporter-margin", job.where()).contains("--exporter-margin");
        assertThat(options.export().failOn().losses()).as("%s: --fail-on", job.where())
            .contains(FailOn.Loss.CAME_BACK, FailOn.Loss.MISSING);
        // The plan it executes was made after yesterday's execute: a day old, give or take the plan's duration.
        assertThat(options.execute().maxPlanAge()).as("%s: --max-plan-age", job.where())
            .isGreaterThan(DAY).isLessThan(DAY.multipliedBy(2));
      } else {
        assertThat(options.export().failOn().losses()).as("%s: --fail-on", job.where()).contains(FailOn.Loss.MISSING);
      }
    }
  }

  /** Each platform executes first, then plans for the next review, over the same export, warehouse and grace. */
  @Test
  void eachPlatformExecutesTheApprovedPlanThenPlansTheSameExport() throws Exception {
    for (String platform : List.of("databricks", "emr", "emr-serverless")) {
      List<Job> jobs = jobs(platform);

      assertThat(jobs).as(platform).hasSize(2);
      assertThat(jobs.get(0).invocation().command()).as(platform).isEqualTo(Command.EXECUTE);
      assertThat(jobs.get(1).invocation().command()).as(platform).isEqualTo(Command.PLAN);
      ExportOptions execute = jobs.get(0).options().export();
      ExportOptions plan = jobs.get(1).options().export();
      assertThat(execute.bucket()).as(platform).isEqualTo(plan.bucket());
      assertThat(execute.prefix()).as(platform).isEqualTo(plan.prefix());
      assertThat(execute.warehouse()).as(platform).isEqualTo(plan.warehouse());
      assertThat(execute.s3().region()).as(platform).isEqualTo(plan.s3().region()).isNotNull();
      assertThat(execute.graceDays()).as("%s: the execute decides again with the plan's grace", platform)
          .isEqualTo(plan.graceDays());
      assertThat(execute.kindGraceDays()).as(platform).isEqualTo(plan.kindGraceDays());
      assertThat(execute.settings().get("sweep.layout")).as(platform).isEqualTo(plan.settings().get("sweep.layout"));
    }
    // The order in which each platform runs them: Databricks' task graph, the cluster's step queue.
    JsonNode tasks = read("databricks-job.json").get("tasks");
    assertThat(tasks.get(0).has("depends_on")).as("the execute runs first").isFalse();
    assertThat(strings(tasks.get(1).path("depends_on").findValues("task_key")))
        .containsExactly(tasks.get(0).get("task_key").asText());
    assertThat(tasks.get(1).path("run_if").asText()).as("the plan runs after a failed execute too")
        .isEqualTo("ALL_DONE");
    for (JsonNode step : read("emr-step.json")) {
      assertThat(step.get("ActionOnFailure").asText()).as("the next step runs after a failed one")
          .isEqualTo("CONTINUE");
    }
  }

  /** The recommended grace: a week, as Delta's VACUUM requires at least (the default stays the script's 0). */
  @Test
  void everyShippedJobWaitsAWeekAfterARecordIsMarked() throws Exception {
    for (Job job : shippedJobs()) {
      assertThat(job.options().export().graceDays()).as(job.where()).isGreaterThanOrEqualTo(7);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Databricks

  @Test
  void theDatabricksJobRunsDailyAfterTheExportersRunOneAtATimeAndPagesOnFailure() throws Exception {
    JsonNode job = read("databricks-job.json");

    assertThat(job.get("max_concurrent_runs").asInt()).isEqualTo(1);
    JsonNode schedule = job.get("schedule");
    assertThat(schedule.get("timezone_id").asText()).isEqualTo("UTC");
    String[] cron = schedule.get("quartz_cron_expression").asText().split(" ");
    assertThat(cron).hasSizeBetween(6, 7);
    assertThat(cron[3]).as("every day").isEqualTo("*");
    assertThat(cron[4]).as("every month").isEqualTo("*");
    assertThat(cron[5]).as("any day of the week").isEqualTo("?");
    assertThat(Integer.parseInt(cron[2])).as("hour, after the exporter's 03:00 UTC run").isBetween(4, 23);
    assertThat(schedule.get("pause_status").asText()).as("shipped paused: the checklist unpauses it")
        .isEqualTo("PAUSED");
    assertThat(strings(job.path("email_notifications").path("on_failure"))).isNotEmpty()
        .allSatisfy(address -> assertThat(address).contains("@"));
    assertThat(job.path("webhook_notifications").path("on_failure").isArray()).isTrue();
  }

  /** Each task is sized for its run: the bounded execute fits its timeout at its rate ceiling, both fit a day. */
  @Test
  void theDatabricksTasksAutoscaleAndTheirTimeoutsFitABoundedRunAndADay() throws Exception {
    JsonNode tasks = read("databricks-job.json").get("tasks");
    List<Job> jobs = jobs("databricks");
    long total = 0;

    for (int i = 0; i < tasks.size(); i++) {
      JsonNode task = tasks.get(i);
      JsonNode cluster = task.get("new_cluster");
      assertThat(cluster.has("num_workers")).as(task.get("task_key").asText()).isFalse();
      assertThat(cluster.path("autoscale").path("min_workers").asInt()).isPositive();
      assertThat(cluster.path("autoscale").path("max_workers").asInt())
          .isGreaterThanOrEqualTo(cluster.path("autoscale").path("min_workers").asInt());
      assertThat(task.path("max_retries").asInt()).as("a retry would run the task again").isZero();
      long timeout = task.path("timeout_seconds").asLong();
      assertThat(timeout).as(task.get("task_key").asText()).isPositive();
      if (jobs.get(i).deletes()) {
        assertThat(timeout).as("the execute deletes its bound at its slowest, twice over, within its timeout")
            .isGreaterThanOrEqualTo(2 * secondsToDelete(jobs.get(i).options()));
      }
      total += timeout;
    }
    assertThat(total).as("both tasks end before the next day's run").isLessThan(DAY.toSeconds());
  }

  /**
   * The jar is built for Java 17 and Scala 2.12: Databricks Runtime 16.4 LTS or later runs JDK 17 by
   * default; 15.4 LTS runs JDK 8 unless {@code JNAME=zulu17-ca-amd64}.
   */
  @Test
  void theDatabricksTasksRunOnAJava17RuntimeWithScala212() throws Exception {
    for (JsonNode task : read("databricks-job.json").get("tasks")) {
      JsonNode cluster = task.get("new_cluster");
      String sparkVersion = cluster.path("spark_version").asText();
      Matcher version = Pattern.compile("(\\d+)\\.(\\d+)\\.x-scala(.+)").matcher(sparkVersion);

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
  }

  /**
   * The job uses RDD APIs, which standard (shared) access mode refuses: dedicated (single-user) access
   * mode, for the principal the job runs as.
   */
  @Test
  void theDatabricksTasksRunInDedicatedAccessModeAsTheJobsOwnPrincipal() throws Exception {
    JsonNode job = read("databricks-job.json");
    String runAs = job.path("run_as").has("service_principal_name")
        ? job.path("run_as").path("service_principal_name").asText() : job.path("run_as").path("user_name").asText();

    for (JsonNode task : job.get("tasks")) {
      JsonNode cluster = task.get("new_cluster");
      String mode = cluster.path("data_security_mode").asText();
      // The Clusters API takes SINGLE_USER with any kind; its alias DATA_SECURITY_MODE_DEDICATED only with
      // kind CLASSIC_PREVIEW.
      assertThat(mode.equals("SINGLE_USER")
          || mode.equals("DATA_SECURITY_MODE_DEDICATED") && cluster.path("kind").asText().equals("CLASSIC_PREVIEW"))
          .as("data_security_mode %s", mode).isTrue();
      assertThat(cluster.path("single_user_name").asText()).isNotBlank().isEqualTo(runAs);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // EMR and EMR Serverless

  /** A second YARN attempt would run the command again: each step runs in cluster mode with one attempt. */
  @Test
  void theEmrStepsRunInYarnClusterModeWithOneAttempt() throws Exception {
    for (JsonNode step : read("emr-step.json")) {
      List<String> args = strings(step.get("Args"));
      assertThat(args.get(0)).isEqualTo("spark-submit");
      List<String> submitOptions = args.subList(0, indexOfJobJar(args));

      assertThat(pairs(submitOptions, "--deploy-mode")).as(step.get("Name").asText()).containsExactly("cluster");
      assertThat(pairs(submitOptions, "--conf")).as(step.get("Name").asText())
          .contains("spark.yarn.maxAppAttempts=1");
    }
    assertThat(Launcher.detect(Map.of(), Map.of("spark.master", "yarn", "spark.submit.deployMode", "cluster")))
        .isEqualTo(Launcher.YARN_CLUSTER);
  }

  /** EMR Serverless does not run on YARN: its own retry policy keeps a failed batch run from running again. */
  @Test
  void theEmrServerlessJobRunsAreOneBatchAttemptWithATimeout() throws Exception {
    for (String file : List.of("emr-serverless-execute-run.json", "emr-serverless-plan-run.json")) {
      JsonNode run = read(file);

      assertThat(run.path("mode").asText()).as(file).isEqualTo("BATCH");
      assertThat(run.path("retryPolicy").path("maxAttempts").asInt()).as(file).isEqualTo(1);
      assertThat(run.path("executionTimeoutMinutes").asLong()).as(file).isPositive();
      assertThat(run.path("jobDriver").path("sparkSubmit").path("entryPoint").asText()).as(file)
          .endsWith("/statesweep.jar");
    }
    // The application they run on, and the EMR on EC2 cluster the steps run on: EMR 7 (Java 17, Spark 3.5), and on
    // EC2 Delta Lake enabled, which puts the jars the steps' --jars name on the cluster.
    JsonNode application = read("emr-serverless-application.json");
    assertThat(application.path("releaseLabel").asText()).startsWith("emr-7.");
    assertThat(application.path("type").asText()).isEqualTo("SPARK");
    assertThat(read("emr-configurations.json").findValues("Classification")).extracting(JsonNode::asText)
        .contains("delta-defaults");
    assertThat(read("emr-configurations.json").get(0).path("Properties").path("delta.enabled").asText())
        .isEqualTo("true");
    Job execute = jobs("emr-serverless").get(0);
    assertThat(read("emr-serverless-execute-run.json").path("executionTimeoutMinutes").asLong() * 60)
        .as("the execute deletes its bound at its slowest, twice over, within its timeout")
        .isGreaterThanOrEqualTo(2 * secondsToDelete(execute.options()));
  }

  // ---------------------------------------------------------------------------------------------------------
  // (c) The job policy: what the jobs touch, and nothing wider

  @Test
  void theJobPolicyGrantsEveryLocationTheJobsNameWhatItNeedsAndNothingWider() throws Exception {
    Grants needed = new Grants();
    for (Job job : shippedJobs()) {
      needed.addAll(needs(job));
    }
    JsonNode policy = read("iam-policy.json");
    Grants granted = s3Grants(policy, sid -> !isOptional(sid));

    assertThat(needed.actions).isNotEmpty();
    assertThat(granted.actions).as("S3 actions by resource").isEqualTo(needed.actions);
    assertThat(granted.prefixes).as("ListBucket prefixes by bucket").isEqualTo(needed.prefixes);
    assertThat(granted.versionPrefixes).as("ListBucketVersions prefixes by bucket").isEqualTo(needed.versionPrefixes);
    for (JsonNode statement : policy.get("Statement")) {
      assertThat(statement.get("Effect").asText()).isEqualTo("Allow");
      assertThat(statement.has("NotAction") || statement.has("NotResource")).isFalse();
      assertThat(strings(statement.get("Action"))).as(statement.path("Sid").asText())
          .allSatisfy(action -> assertThat(action).doesNotContain("*").matches("(s3|kms|logs):[A-Za-z]+"));
    }
  }

  /** What the grants mean for requests the jobs send, and for requests they never send. */
  @Test
  void theJobPolicyAllowsTheJobsRequestsAndRefusesTheirNeighbours() throws Exception {
    JsonNode policy = read("iam-policy.json");
    RunOptions options = jobs("emr").get(0).options();
    String bucket = "arn:aws:s3:::" + options.export().bucket();
    String prefix = options.export().prefix().value();
    String lock = RunLock.keyFor(prefix);
    String lockFolder = lockFolder(prefix);
    String warehouse = "arn:aws:s3:::" + options.export().warehouse().replaceFirst("^s3a://", "");

    assertThat(allows(policy, "s3:DeleteObject", bucket + "/" + prefix + "projects/p-1/state.json")).isTrue();
    assertThat(allows(policy, "s3:PutObject", bucket + "/" + lock)).isTrue();
    assertThat(allows(policy, "s3:PutObject", bucket + "/" + lockFolder + "journal/r/a/p0/t0-w0-intent.json"))
        .isTrue();
    assertThat(allows(policy, "s3:ListBucket", bucket, Map.of("s3:prefix", prefix + "projects/"))).isTrue();
    assertThat(allows(policy, "s3:ListBucket", bucket, Map.of("s3:prefix", lockFolder + "journal/"))).isTrue();
    assertThat(allows(policy, "s3:PutObject", warehouse + "/runs/_delta_log/00000000000000000000.json")).isTrue();
    // Never the export's keys, nor anything else in its bucket.
    assertThat(allows(policy, "s3:PutObject", bucket + "/" + prefix + "projects/p-1/state.json")).isFalse();
    assertThat(allows(policy, "s3:DeleteObject", bucket + "/" + prefix.replace("/", "") + "-other/x")).isFalse();
    assertThat(allows(policy, "s3:GetObject", bucket + "/_cogram/export.json")).isFalse();
    assertThat(allows(policy, "s3:ListBucket", bucket, Map.of("s3:prefix", ""))).isFalse();
    assertThat(allows(policy, "s3:ListBucket", bucket, Map.of())).isFalse();
    assertThat(allows(policy, "s3:DeleteBucket", bucket)).isFalse();
    assertThat(allows(policy, "s3:PutBucketPolicy", bucket)).isFalse();
    // On a versioned bucket (conf/deploy/README.md, "The policies"): one key's versions, a version of an export key,
    // never beyond.
    String key = prefix + "projects/p-1/meetings/m-1/notes.pdf";
    assertThat(allows(policy, "s3:ListBucketVersions", bucket, Map.of("s3:prefix", key))).isTrue();
    assertThat(allows(policy, "s3:DeleteObjectVersion", bucket + "/" + key)).isTrue();
    assertThat(allows(policy, "s3:GetObjectVersion", bucket + "/" + key)).isTrue();
    assertThat(allows(policy, "s3:ListBucketVersions", bucket, Map.of("s3:prefix", ""))).isFalse();
    assertThat(allows(policy, "s3:ListBucketVersions", bucket, Map.of())).isFalse();
    assertThat(allows(policy, "s3:ListBucketVersions", bucket, Map.of("s3:prefix", "_cogram/export.json"))).isFalse();
    assertThat(allows(policy, "s3:DeleteObjectVersion", bucket + "/" + lock)).isFalse();
    assertThat(allows(policy, "s3:DeleteObjectVersion", bucket + "/_cogram/export.json")).isFalse();
    assertThat(allows(policy, "s3:GetObjectVersion", bucket + "/_cogram/export.json")).isFalse();
    assertThat(allows(policy, "s3:PutBucketVersioning", bucket)).isFalse();
  }

  /**
   * The inventory statement is optional (no shipped job lists from an inventory): it covers the S3 Inventory
   * reports of the export's bucket (their folder is {@code <destination prefix>/<source bucket>/<config>/}), and
   * exactly what a plan with {@code --listing inventory} of such a report needs.
   */
  @Test
  void theOptionalInventoryStatementsCoverExactlyAReportOfTheExportsBucket() throws Exception {
    JsonNode policy = read("iam-policy.json");
    Grants optional = s3Grants(policy, DeployDefinitionsTest::isOptional);
    Job plan = jobs("emr").get(1);
    String bucket = plan.options().export().bucket();

    List<String> objects = optional.actions.keySet().stream().filter(resource -> resource.contains("/")).toList();
    assertThat(objects).hasSize(1);
    Matcher folder = Pattern.compile("arn:aws:s3:::([^/]+)/(.+/)\\*").matcher(objects.get(0));
    assertThat(folder.matches()).as(objects.get(0)).isTrue();
    assertThat("/" + folder.group(2)).as("the reports of the export's bucket").contains("/" + bucket + "/");
    assertThat(folder.group(1)).isNotEqualTo(bucket);
    String manifest = "s3://" + folder.group(1) + "/" + folder.group(2) + "2026-11-28T01-00Z/manifest.json";
    Job withInventory = plan.withArgs(List.of("--listing", "inventory", "--inventory", manifest));

    Grants more = needs(withInventory);
    more.removeAll(needs(plan));
    assertThat(optional.actions).isEqualTo(more.actions);
    assertThat(optional.prefixes).isEqualTo(more.prefixes);
    String manifestArn = "arn:aws:s3:::" + folder.group(1) + "/" + folder.group(2) + "2026-11-28T01-00Z/manifest.json";
    assertThat(allows(policy, "s3:GetObject", manifestArn)).isTrue();
    assertThat(allows(policy, "s3:GetObject", "arn:aws:s3:::" + folder.group(1) + "/other-bucket/daily/x"))
        .isFalse();
  }

  /**
   * KMS only through S3 in the job's region, only on named keys, and only for the objects the S3 grants name:
   * data keys on the export's bucket for statesweep's own folder (the lock, the probes, the ledger) or the
   * bucket's S3 Bucket Key, never for the export's objects, which statesweep only reads and deletes.
   */
  @Test
  void theJobPolicyUsesKmsOnlyThroughS3ForWhatItReadsAndWrites() throws Exception {
    JsonNode policy = read("iam-policy.json");
    RunOptions options = jobs("emr").get(0).options();
    String bucket = "arn:aws:s3:::" + options.export().bucket();
    String prefix = options.export().prefix().value();
    String lockFolder = lockFolder(prefix);
    String warehouse = "arn:aws:s3:::" + options.export().warehouse().replaceFirst("^s3a://", "");
    Grants named = new Grants();
    shippedJobs().forEach(job -> named.addAll(needs(job)));
    Set<String> namedArns = new TreeSet<>(named.actions.keySet());
    List<JsonNode> kms = statements(policy).stream()
        .filter(s -> strings(s.get("Action")).stream().anyMatch(a -> a.startsWith("kms:"))).toList();

    assertThat(kms).isNotEmpty();
    for (JsonNode statement : kms) {
      String sid = statement.path("Sid").asText();
      assertThat(strings(statement.get("Action"))).as(sid).isSubsetOf("kms:Decrypt", "kms:GenerateDataKey");
      String namedKey = "arn:aws:kms:" + options.export().s3().region() + ":\\d{12}:key/[0-9a-f-]+";
      assertThat(strings(statement.get("Resource"))).as(sid).allSatisfy(key -> assertThat(key).matches(namedKey));
      assertThat(statement.path("Condition").path("StringEquals").path("kms:ViaService").asText()).as(sid)
          .isEqualTo("s3." + options.export().s3().region() + ".amazonaws.com");
      assertThat(strings(statement.path("Condition").path("StringLike").path("kms:EncryptionContext:aws:s3:arn")))
          .as(sid).isNotEmpty().isSubsetOf(namedArns);
    }
    Map<String, String> viaS3Only = Map.of("kms:ViaService", "s3." + options.export().s3().region() + ".amazonaws.com");
    String exportKey = strings(kms.stream().filter(s -> s.toString().contains(bucket + "/" + prefix + "*"))
        .findFirst().orElseThrow().get("Resource")).get(0);
    assertThat(allowsKms(policy, "kms:Decrypt", exportKey, bucket + "/" + prefix + "projects/p/state.json")).isTrue();
    assertThat(allowsKms(policy, "kms:GenerateDataKey", exportKey, bucket + "/" + lockFolder + "lock")).isTrue();
    assertThat(allowsKms(policy, "kms:GenerateDataKey", exportKey, bucket)).as("an S3 Bucket Key").isTrue();
    assertThat(allowsKms(policy, "kms:GenerateDataKey", exportKey, bucket + "/" + prefix + "projects/p/state.json"))
        .as("data keys for the export's objects").isFalse();
    assertThat(allows(policy, "kms:Decrypt", exportKey, viaS3Only)).as("without an encryption context")
        .isFalse();
    String warehouseKey = strings(kms.stream().filter(s -> s.toString().contains(warehouse + "/*"))
        .findFirst().orElseThrow().get("Resource")).get(0);
    assertThat(allowsKms(policy, "kms:GenerateDataKey", warehouseKey, warehouse + "/runs/part-0.parquet")).isTrue();
    assertThat(allowsKms(policy, "kms:Decrypt", warehouseKey, warehouse + "/runs/part-0.parquet")).isTrue();
    assertThat(allows(policy, "kms:Decrypt", warehouseKey, Map.of("kms:ViaService", "sqs.eu-west-1.amazonaws.com",
        "kms:EncryptionContext:aws:s3:arn", warehouse + "/runs/part-0.parquet"))).as("through another service")
        .isFalse();
  }

  /** The EMR Serverless runs log their driver to CloudWatch Logs: the policy writes that log group only. */
  @Test
  void theJobPolicyWritesOnlyTheLogGroupTheJobRunsName() throws Exception {
    JsonNode policy = read("iam-policy.json");
    Set<String> groups = new TreeSet<>();
    shippedJobs().stream().map(Job::logGroup).filter(java.util.Objects::nonNull).forEach(groups::add);
    String role = read("emr-serverless-execute-run.json").get("executionRoleArn").asText();
    String account = role.split(":")[4];
    String region = jobs("emr-serverless").get(0).options().export().s3().region();

    assertThat(groups).hasSize(1);
    String group = "arn:aws:logs:" + region + ":" + account + ":log-group:" + groups.iterator().next() + ":*";
    for (JsonNode statement : statements(policy)) {
      for (String action : strings(statement.get("Action"))) {
        if (action.startsWith("logs:")) {
          assertThat(strings(statement.get("Resource"))).as(action).containsExactly(
              action.equals("logs:DescribeLogGroups") ? "arn:aws:logs:" + region + ":" + account + ":log-group:*"
                  : group);
        }
      }
    }
    for (String action : List.of("logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams")) {
      assertThat(allows(policy, action, group.replace(":*", ":log-stream:execute/x"))).as(action).isTrue();
      assertThat(allows(policy, action, "arn:aws:logs:" + region + ":" + account + ":log-group:other:log-stream:x"))
          .as(action).isFalse();
    }
  }

  /** The reviewer reads every table, writes only the approvals table, and never reaches the export bucket. */
  @Test
  void theReviewerPolicyReadsTheWarehouseWritesOnlyApprovalsAndNeverTheExport() throws Exception {
    JsonNode policy = read("iam-policy-reviewer.json");
    RunOptions options = jobs("emr").get(0).options();
    String warehousePath = options.export().warehouse().replaceFirst("^s3a://", "");
    String warehouse = "arn:aws:s3:::" + warehousePath;
    String warehouseBucket = "arn:aws:s3:::" + warehousePath.substring(0, warehousePath.indexOf('/'));
    String folder = warehousePath.substring(warehousePath.indexOf('/') + 1) + "/";
    Set<String> readOnly = Set.of("s3:GetObject", "s3:ListBucket", "kms:Decrypt");

    for (JsonNode statement : statements(policy)) {
      String sid = statement.path("Sid").asText();
      assertThat(statement.get("Effect").asText()).as(sid).isEqualTo("Allow");
      assertThat(statement.has("NotAction") || statement.has("NotResource")).as(sid).isFalse();
      assertThat(statement.toString()).as("%s names the export bucket", sid)
          .doesNotContain(":::" + options.export().bucket()).doesNotContain("arn:aws:s3:::*");
      assertThat(strings(statement.get("Action"))).as(sid).allSatisfy(a -> assertThat(a).doesNotContain("*"));
      List<String> writes = strings(statement.get("Action")).stream().filter(a -> !readOnly.contains(a)).toList();
      if (!writes.isEmpty()) {
        List<String> where = writes.stream().allMatch(a -> a.startsWith("kms:"))
            ? strings(statement.path("Condition").path("StringLike").path("kms:EncryptionContext:aws:s3:arn"))
            : strings(statement.get("Resource"));
        assertThat(where).as("%s writes %s", sid, writes).isNotEmpty().allSatisfy(resource ->
            assertThat(resource.equals(warehouseBucket) && writes.stream().allMatch(a -> a.startsWith("kms:"))
                || resource.startsWith(warehouse + "/approvals/")).as(resource).isTrue());
      }
    }
    for (String table : List.of("runs", "deletion_plan", "plan_summary", "state_files", "executions", "approvals")) {
      String log = warehouse + "/" + table + "/_delta_log/00000000000000000000.json";
      assertThat(allows(policy, "s3:GetObject", log)).as(table).isTrue();
      assertThat(allows(policy, "s3:ListBucket", warehouseBucket, Map.of("s3:prefix", folder + table + "/_delta_log/")))
          .as(table).isTrue();
      assertThat(allows(policy, "s3:PutObject", log)).as(table).isEqualTo(table.equals("approvals"));
      assertThat(allows(policy, "s3:DeleteObject", log)).as(table).isEqualTo(table.equals("approvals"));
    }
    String exportKey = "arn:aws:s3:::" + options.export().bucket() + "/" + options.export().prefix().value() + "projects/p/state.json";
    for (String action : List.of("s3:GetObject", "s3:DeleteObject", "s3:PutObject")) {
      assertThat(allows(policy, action, exportKey)).as(action).isFalse();
    }
    assertThat(allows(policy, "s3:ListBucket", "arn:aws:s3:::" + options.export().bucket(),
        Map.of("s3:prefix", options.export().prefix().value()))).isFalse();
  }

  // ---------------------------------------------------------------------------------------------------------
  // (d) The schedules

  @Test
  void theSchedulesRunDailyAfterTheExportersRunAndStartTheShippedJobs() throws Exception {
    List<String> files = List.of("schedule-emr-steps.json", "schedule-emr-serverless-execute.json",
        "schedule-emr-serverless-plan.json");
    Set<String> roles = new TreeSet<>();

    for (String file : files) {
      JsonNode schedule = read(file);
      LocalTime at = dailyAt(schedule);
      assertThat(at).as("%s: after the exporter's 03:00 UTC run", file).isAfterOrEqualTo(LocalTime.of(4, 0));
      assertThat(schedule.get("State").asText()).as("%s: shipped disabled, the checklist enables it", file)
          .isEqualTo("DISABLED");
      roles.add(schedule.get("Target").get("RoleArn").asText());
      assertThat(schedule.get("Target").path("RetryPolicy").path("MaximumEventAgeInSeconds").asLong()).as(file)
          .isBetween(60L, 3600L);
    }
    assertThat(roles).as("one role for the schedules").hasSize(1);

    JsonNode emr = read("schedule-emr-steps.json").get("Target");
    assertThat(emr.get("Arn").asText()).isEqualTo(EMR_ADD_STEPS);
    JsonNode input = JSON.readTree(emr.get("Input").asText());
    assertThat(input.get("JobFlowId").asText()).matches("j-[A-Z0-9]+");
    List<JsonNode> expected = new ArrayList<>();
    for (JsonNode step : read("emr-step.json")) {
      ObjectNode api = JSON.createObjectNode();
      api.put("Name", step.get("Name").asText());
      api.put("ActionOnFailure", step.get("ActionOnFailure").asText());
      api.putObject("HadoopJarStep").put("Jar", step.get("Jar").asText()).set("Args", step.get("Args"));
      expected.add(api);
    }
    assertThat(list(input.get("Steps"))).as("the steps of emr-step.json, as AddJobFlowSteps takes them")
        .isEqualTo(expected);

    for (String kind : List.of("execute", "plan")) {
      JsonNode target = read("schedule-emr-serverless-" + kind + ".json").get("Target");
      assertThat(target.get("Arn").asText()).isEqualTo(SERVERLESS_START);
      ObjectNode request = (ObjectNode) JSON.readTree(target.get("Input").asText());
      assertThat(request.remove("clientToken")).as("StartJobRun requires a client token").isNotNull();
      assertThat(request).as("emr-serverless-%s-run.json, as StartJobRun takes it", kind)
          .isEqualTo(read("emr-serverless-" + kind + "-run.json"));
    }
  }

  /**
   * The EMR Serverless plan starts once the execute has ended (its latest start, its timeout, and the run lock's
   * expiry should it be killed), and ends before the next day's execute: otherwise one of them meets the other's
   * lock and exits 3.
   */
  @Test
  void theEmrServerlessPlanStartsAfterTheExecuteEndsAndEndsBeforeTheNextOne() throws Exception {
    JsonNode execute = read("schedule-emr-serverless-execute.json");
    JsonNode plan = read("schedule-emr-serverless-plan.json");
    Duration executeStart = Duration.ofSeconds(dailyAt(execute).toSecondOfDay());
    Duration planStart = Duration.ofSeconds(dailyAt(plan).toSecondOfDay());
    Job executeJob = jobs("emr-serverless").get(0);

    Duration executeEnd = executeStart.plus(latestStart(execute))
        .plusMinutes(read("emr-serverless-execute-run.json").get("executionTimeoutMinutes").asLong())
        .plus(executeJob.options().export().lockTtl());
    assertThat(executeEnd).as("the execute's latest end, its lock expired").isLessThanOrEqualTo(planStart);
    Duration planEnd = planStart.plus(latestStart(plan))
        .plusMinutes(read("emr-serverless-plan-run.json").get("executionTimeoutMinutes").asLong());
    assertThat(planEnd).as("the plan's latest end").isLessThanOrEqualTo(executeStart.plus(DAY));
  }

  /** The schedules' role may start the scheduled jobs and nothing else; only EventBridge Scheduler assumes it. */
  @Test
  void theSchedulersRoleMayStartExactlyTheScheduledJobs() throws Exception {
    Map<String, Set<String>> needed = new TreeMap<>();
    String region = jobs("emr").get(0).options().export().s3().region();
    JsonNode emr = JSON.readTree(read("schedule-emr-steps.json").get("Target").get("Input").asText());
    String account = read("schedule-emr-steps.json").get("Target").get("RoleArn").asText().split(":")[4];
    needed.computeIfAbsent("elasticmapreduce:AddJobFlowSteps", a -> new TreeSet<>())
        .add("arn:aws:elasticmapreduce:" + region + ":" + account + ":cluster/" + emr.get("JobFlowId").asText());
    for (String kind : List.of("execute", "plan")) {
      JsonNode run = JSON.readTree(read("schedule-emr-serverless-" + kind + ".json").get("Target").get("Input")
          .asText());
      needed.computeIfAbsent("emr-serverless:StartJobRun", a -> new TreeSet<>()).add("arn:aws:emr-serverless:"
          + region + ":" + account + ":/applications/" + run.get("applicationId").asText());
      needed.computeIfAbsent("iam:PassRole", a -> new TreeSet<>()).add(run.get("executionRoleArn").asText());
    }
    // What a schedule could not start goes to its dead-letter queue, which has an alarm of its own.
    JsonNode alarm = read("alarms/schedules-dead-letter.json");
    for (String schedule : List.of("schedule-emr-steps.json", "schedule-emr-serverless-execute.json",
        "schedule-emr-serverless-plan.json")) {
      String queue = read(schedule).get("Target").get("DeadLetterConfig").get("Arn").asText();
      needed.computeIfAbsent("sqs:SendMessage", a -> new TreeSet<>()).add(queue);
      assertThat(queue).as(schedule).endsWith(":" + alarm.get("Dimensions").get(0).get("Value").asText());
    }
    assertThat(alarm.get("AlarmActions").get(0).asText()).as("the dead-letter alarm pages the topic")
        .isEqualTo(read("sns-topic.json").get("Name").asText().transform(name -> "arn:aws:sns:" + region + ":"
            + account + ":" + name));
    JsonNode policy = read("iam-policy-scheduler.json");
    Map<String, Set<String>> granted = new TreeMap<>();
    for (JsonNode statement : statements(policy)) {
      assertThat(statement.get("Effect").asText()).isEqualTo("Allow");
      for (String action : strings(statement.get("Action"))) {
        granted.computeIfAbsent(action, a -> new TreeSet<>()).addAll(strings(statement.get("Resource")));
        if (action.equals("iam:PassRole")) {
          assertThat(statement.path("Condition").path("StringEquals").path("iam:PassedToService").asText())
              .isEqualTo("emr-serverless.amazonaws.com");
        }
      }
    }

    assertThat(granted).isEqualTo(needed);
    JsonNode trust = read("iam-trust-policy-scheduler.json").get("Statement").get(0);
    assertThat(trust.get("Principal").get("Service").asText()).isEqualTo("scheduler.amazonaws.com");
    assertThat(trust.get("Action").asText()).isEqualTo("sts:AssumeRole");
    assertThat(trust.path("Condition").path("StringEquals").path("aws:SourceAccount").asText()).isEqualTo(account);
  }

  // ---------------------------------------------------------------------------------------------------------
  // (e) Failures page someone

  @Test
  void theEventBridgeRulesMatchTheShippedJobsFailuresAndPageTheTopic() throws Exception {
    JsonNode stepRule = read("eventbridge-rule-emr-step-failed.json");
    JsonNode stepPattern = JSON.readTree(stepRule.get("EventPattern").asText());
    for (JsonNode step : read("emr-step.json")) {
      String name = step.get("Name").asText();
      assertThat(matches(stepPattern, stepEvent(name, "FAILED"))).as(name).isTrue();
      assertThat(matches(stepPattern, stepEvent(name, "COMPLETED"))).as(name).isFalse();
      assertThat(matches(stepPattern, stepEvent(name, "RUNNING"))).as(name).isFalse();
    }
    assertThat(matches(stepPattern, stepEvent("nightly-etl", "FAILED"))).as("another team's step").isFalse();

    JsonNode runRule = read("eventbridge-rule-emr-serverless-failed.json");
    JsonNode runPattern = JSON.readTree(runRule.get("EventPattern").asText());
    String application = read("emr-serverless-execute-run.json").get("applicationId").asText();
    assertThat(read("emr-serverless-plan-run.json").get("applicationId").asText()).isEqualTo(application);
    assertThat(matches(runPattern, jobRunEvent(application, "FAILED"))).isTrue();
    assertThat(matches(runPattern, jobRunEvent(application, "CANCELLED"))).as("its timeout cancels it").isTrue();
    assertThat(matches(runPattern, jobRunEvent(application, "SUCCESS"))).isFalse();
    assertThat(matches(runPattern, jobRunEvent(application, "RUNNING"))).isFalse();
    assertThat(matches(runPattern, jobRunEvent("00other0application", "FAILED"))).isFalse();

    for (JsonNode rule : List.of(stepRule, runRule)) {
      String name = rule.get("Name").asText();
      assertThat(rule.get("State").asText()).as(name).isEqualTo("ENABLED");
      JsonNode targets = read("eventbridge-targets-" + name.replaceFirst("^statesweep-", "") + ".json");
      assertThat(targets.get("Rule").asText()).isEqualTo(name);
      assertThat(list(targets.get("Targets"))).as(name).isNotEmpty()
          .allSatisfy(target -> assertThat(target.get("Arn").asText()).startsWith("arn:aws:sns:"));
    }
  }

  /**
   * Each alert line of a run is counted by a metric filter of its own and every filter counts one; lines of a run
   * that went well are counted by none. The lines are the product's own (LogLine, RunSummary), and the patterns
   * are read with CloudWatch Logs' rules for terms: each quoted term must occur, a {@code -} term must not.
   */
  @Test
  void theMetricFiltersCountEveryAlertLineAndNoQuietOne() throws Exception {
    Map<String, String> filters = new TreeMap<>();
    Set<String> groups = new TreeSet<>();
    try (Stream<Path> files = Files.list(DEPLOY.resolve("metric-filters"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        JsonNode filter = JSON.readTree(file.toFile());
        JsonNode metric = filter.get("metricTransformations").get(0);
        assertThat(metric.get("metricValue").asText()).as(file.toString()).isEqualTo("1");
        assertThat(filters.put(metric.get("metricName").asText(), filter.get("filterPattern").asText()))
            .as("one filter per metric").isNull();
        groups.add(filter.get("logGroupName").asText());
      }
    }
    Set<String> jobGroups = new TreeSet<>();
    shippedJobs().stream().map(Job::logGroup).filter(java.util.Objects::nonNull).forEach(jobGroups::add);
    assertThat(groups).as("the log group the job runs write").isEqualTo(jobGroups);

    String state = "cogram/projects/p-0001/emails/e-1/state.json";
    String file = "cogram/projects/p-0001/emails/e-1/body.eml";
    RunSummary clean = new RunSummary(false, true, 14, 4, 6, 10, 1, 4, 2, 0,
        new LinkedHashMap<>(Map.of("bad_state", "1")));
    Map<String, String> alerts = new LinkedHashMap<>();
    alerts.put(logLine("kept", state, "refused to delete " + file + ": it is outside the record's folder"), "refused");
    alerts.put(logLine("kept", state, "the record is coming back: " + file + " (2026-11-28T02:00:00Z) is newer"
        + " than its state file (2026-11-27T02:00:00Z)"), "coming back");
    alerts.put(logLine("cameBack", state, file), "came back");
    alerts.put(logLine("missing", file, state), "missing");
    alerts.put(new RunSummary(false, true, 14, 4, 6, 10, 1, 4, 2, 3, Map.of("bad_state", "0")).line(), "errors");
    alerts.put(new RunSummary(true, true, 14, 4, 6, 10, 1, 4, 2, 10, Map.of()).line(), "errors");
    alerts.put(RunSummary.stopped(false, "lock_held", 0).line(), "incomplete");
    alerts.put(new RunSummary(false, false, 14, 0, 0, 14, 0, 0, 0, 0, Map.of("run_lock", "lost")).line(),
        "incomplete");
    // Counted each day; its alarm pages only after three days in a row (alarms/no-approved-plan.json).
    alerts.put(new RunSummary(false, true, 0, 0, 0, 0, 0, 0, 0, 0, Map.of(ExecuteResult.NOTHING_APPROVED_PAIR, "none"))
        .line(), "no approved plan");
    List<String> quiet = List.of(clean.line(), clean.with("missing_files", "0").line(),
        new RunSummary(false, true, 14, 4, 6, 10, 1, 4, 2, 0, Map.of()).line(),
        logLine("wouldDelete", file), logLine("kept", state, "bad state file: not JSON"),
        logLine("bound", state, "stopped at the bound (--max-deletes 1000000): 3 records (40 keys, 4096 bytes) are"
            + " left for the next run, from " + state));

    Set<String> used = new TreeSet<>();
    for (Map.Entry<String, String> alert : alerts.entrySet()) {
      List<String> matched = filters.entrySet().stream().filter(f -> termsMatch(f.getValue(), alert.getKey()))
          .map(Map.Entry::getKey).toList();
      assertThat(matched).as("the %s line: %s", alert.getValue(), alert.getKey()).hasSize(1);
      used.addAll(matched);
    }
    assertThat(used).as("every filter counts an alert line").isEqualTo(filters.keySet());
    Set<String> alarmed = new TreeSet<>();
    try (Stream<Path> files = Files.list(DEPLOY.resolve("alarms"))) {
      for (Path alarmFile : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        JsonNode alarm = JSON.readTree(alarmFile.toFile());
        if (alarm.get("Namespace").asText().equals("statesweep")) {
          alarmed.add(alarm.get("MetricName").asText());
          assertThat(alarm.get("AlarmActions").get(0).asText()).as(alarmFile + " pages the topic").endsWith(":"
              + JSON.readTree(DEPLOY.resolve("sns-topic.json").toFile()).get("Name").asText());
        }
      }
    }
    assertThat(alarmed).as("an alarm on every filter's metric").isEqualTo(filters.keySet());
    for (String line : quiet) {
      assertThat(filters.values()).as(line).noneMatch(pattern -> termsMatch(pattern, line));
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // The shipped jobs

  private static List<Job> shippedJobs() throws IOException {
    List<Job> jobs = new ArrayList<>();
    for (String platform : List.of("databricks", "emr", "emr-serverless")) {
      jobs.addAll(jobs(platform));
    }
    return jobs;
  }

  private static List<Job> jobs(String platform) throws IOException {
    List<Job> jobs = new ArrayList<>();
    switch (platform) {
      case "databricks" -> {
        for (JsonNode task : read("databricks-job.json").get("tasks")) {
          JsonNode jar = task.get("spark_jar_task");
          Map<String, String> environment = new TreeMap<>();
          task.path("new_cluster").path("spark_env_vars").fields()
              .forEachRemaining(e -> environment.put(e.getKey(), e.getValue().asText()));
          jobs.add(new Job("databricks-job.json task " + task.get("task_key").asText(), platform,
              jar.get("main_class_name").asText(), strings(jar.get("parameters")), environment,
              task.get("libraries").findValue("jar").asText(), null, null));
        }
      }
      case "emr" -> {
        for (JsonNode step : read("emr-step.json")) {
          List<String> args = strings(step.get("Args"));
          int jar = indexOfJobJar(args);
          List<String> submit = args.subList(0, jar);
          jobs.add(new Job("emr-step.json step " + step.get("Name").asText(), platform,
              submit.get(submit.indexOf("--class") + 1), args.subList(jar + 1, args.size()),
              environment(pairs(submit, "--conf"), "spark.yarn.appMasterEnv."), args.get(jar), null, null));
        }
      }
      case "emr-serverless" -> {
        for (String file : List.of("emr-serverless-execute-run.json", "emr-serverless-plan-run.json")) {
          JsonNode run = read(file);
          JsonNode submit = run.get("jobDriver").get("sparkSubmit");
          List<String> parameters = Arrays.asList(submit.get("sparkSubmitParameters").asText().trim().split("\\s+"));
          JsonNode monitoring = run.path("configurationOverrides").path("monitoringConfiguration");
          JsonNode cloudWatch = monitoring.path("cloudWatchLoggingConfiguration");
          jobs.add(new Job(file, platform, parameters.get(parameters.indexOf("--class") + 1),
              strings(submit.get("entryPointArguments")),
              environment(pairs(parameters, "--conf"), "spark.emr-serverless.driverEnv."),
              submit.get("entryPoint").asText(),
              monitoring.path("s3MonitoringConfiguration").path("logUri").asText(null),
              cloudWatch.path("enabled").asBoolean(false) ? cloudWatch.path("logGroupName").asText() : null));
        }
      }
      default -> throw new IllegalArgumentException(platform);
    }
    return jobs;
  }

  /** The driver's environment variables among spark-submit's {@code --conf} values, by their key's prefix. */
  private static Map<String, String> environment(List<String> confs, String prefix) {
    Map<String, String> environment = new TreeMap<>();
    for (String conf : confs) {
      if (conf.startsWith(prefix) && conf.contains("=")) {
        environment.put(conf.substring(prefix.length(), conf.indexOf('=')), conf.substring(conf.indexOf('=') + 1));
      }
    }
    return environment;
  }

  /**
   * Seconds a run needs to delete its bound at its slowest: at its rate ceiling, or, paced, on a bucket of one
   * partition, at the exporter's margin below S3's documented rate, after 30 seconds of climbing to it.
   */
  private static long secondsToDelete(RunOptions options) {
    var deletes = options.execute().deletes();
    long rate = deletes.maxDeletesPerSecond();
    long climb = 0;
    if (deletes.pacing() != null) {
      long paced = (long) Math.floor(deletes.pacing().partitionKeysPerSecond() * (1 - deletes.pacing().margin()));
      rate = rate == 0 ? paced : Math.min(rate, paced);
      climb = 30;
    }
    assertThat(rate).as("a run that deletes has a ceiling or is paced").isPositive();
    return climb + (deletes.maxDeletes() + rate - 1) / rate;
  }

  // ---------------------------------------------------------------------------------------------------------
  // What the jobs touch, and what the policies grant

  /** S3 actions by resource ARN, and ListBucket's {@code s3:prefix} patterns by bucket ARN. */
  private static final class Grants {
    final Map<String, Set<String>> actions = new TreeMap<>();
    final Map<String, Set<String>> prefixes = new TreeMap<>();
    /** ListBucketVersions, as {@link #prefixes} for ListBucket. */
    final Map<String, Set<String>> versionPrefixes = new TreeMap<>();

    void allow(String resource, String... actions) {
      this.actions.computeIfAbsent(resource, r -> new TreeSet<>()).addAll(List.of(actions));
    }

    /** Objects under {@code folder} (ending with /) of {@code bucket}, listed with that prefix. */
    void folder(String bucket, String folder, boolean list, String... actions) {
      assertThat(folder).endsWith("/");
      allow("arn:aws:s3:::" + bucket + "/" + folder + "*", actions);
      if (list) {
        allow("arn:aws:s3:::" + bucket, "s3:ListBucket");
        prefixes.computeIfAbsent("arn:aws:s3:::" + bucket, b -> new TreeSet<>()).add(folder + "*");
      }
    }

    /**
     * The versions of keys under {@code folder} of {@code bucket}: listed one key at a time (ListObjectVersions with
     * the key as its prefix), and {@code actions} on those keys' versions.
     */
    void versions(String bucket, String folder, String... actions) {
      assertThat(folder).endsWith("/");
      if (actions.length > 0) {
        allow("arn:aws:s3:::" + bucket + "/" + folder + "*", actions);
      }
      allow("arn:aws:s3:::" + bucket, "s3:ListBucketVersions");
      versionPrefixes.computeIfAbsent("arn:aws:s3:::" + bucket, b -> new TreeSet<>()).add(folder + "*");
    }

    void addAll(Grants other) {
      other.actions.forEach((resource, actions) -> allow(resource, actions.toArray(String[]::new)));
      other.prefixes.forEach((bucket, patterns) -> prefixes.computeIfAbsent(bucket, b -> new TreeSet<>())
          .addAll(patterns));
      other.versionPrefixes.forEach((bucket, patterns) -> versionPrefixes.computeIfAbsent(bucket,
          b -> new TreeSet<>()).addAll(patterns));
    }

    void removeAll(Grants other) {
      other.actions.forEach((resource, actions) -> {
        Set<String> left = this.actions.get(resource);
        if (left != null) {
          left.removeAll(actions);
          if (left.isEmpty()) {
            this.actions.remove(resource);
          }
        }
      });
      other.prefixes.forEach((bucket, patterns) -> {
        Set<String> left = prefixes.get(bucket);
        if (left != null) {
          left.removeAll(patterns);
          if (left.isEmpty()) {
            prefixes.remove(bucket);
          }
        }
      });
    }
  }

  /**
   * What one job needs of S3: its jar (the folder of its versions); the export's prefix (read, and delete for a job that deletes), listed; the
   * run lock's folder beside it (the lock, the probes, the execute's ledger), listed; the bucket's versioning; the
   * warehouse, read, written and listed; the platform's log folder, written; an inventory's report folder, read and
   * listed.
   */
  private static Grants needs(Job job) {
    Grants needs = new Grants();
    // The folder Publish writes every version into: a job of the next version needs no other policy.
    String[] jar = bucketAndKey(job.jar());
    String versionFolder = jar[1].substring(0, jar[1].lastIndexOf('/'));
    needs.folder(jar[0], versionFolder.substring(0, versionFolder.lastIndexOf('/') + 1), false, "s3:GetObject");

    RunOptions options = job.options();
    String prefix = options.export().prefix().value();
    needs.folder(options.export().bucket(), prefix, true, job.deletes() ? new String[] {"s3:GetObject", "s3:DeleteObject"}
        : new String[] {"s3:GetObject"});
    needs.folder(options.export().bucket(), lockFolder(prefix), true, "s3:PutObject",
        "s3:GetObject", "s3:DeleteObject");
    needs.allow("arn:aws:s3:::" + options.export().bucket(), "s3:GetBucketVersioning");
    // On a versioned bucket: a plan looks up what hides a missing file; an execute removes its own delete markers
    // of a record that came back, and a restore (run with the execute's role) reads and brings back versions.
    needs.versions(options.export().bucket(), prefix, job.deletes()
        ? new String[] {"s3:DeleteObjectVersion", "s3:GetObjectVersion"} : new String[0]);

    String[] warehouse = bucketAndKey(options.export().warehouse());
    needs.folder(warehouse[0], warehouse[1].replaceFirst("/?$", "/"), true, "s3:GetObject", "s3:PutObject",
        "s3:DeleteObject");
    if (job.logUri() != null) {
      String[] logs = bucketAndKey(job.logUri());
      needs.folder(logs[0], logs[1].replaceFirst("/?$", "/"), true, "s3:PutObject");
    }
    if (options.plan().inventory() != null) {
      // <destination prefix>/<source bucket>/<config>/<date>/manifest.json; the data files under <config>/data/.
      String[] manifest = bucketAndKey(options.plan().inventory().uri());
      String config = manifest[1].replaceFirst("[^/]+/[^/]+$", "");
      needs.folder(manifest[0], config, true, "s3:GetObject");
    }
    return needs;
  }

  private static String[] bucketAndKey(String uri) {
    Matcher matcher = Pattern.compile("s3a?://([^/]+)/(.+)").matcher(uri);
    assertThat(matcher.matches()).as(uri).isTrue();
    return new String[] {matcher.group(1), matcher.group(2)};
  }

  private static boolean isOptional(String sid) {
    return sid.startsWith("OptionalListingInventory");
  }

  /** The S3 grants of the policy's statements whose Sid passes {@code which}. */
  private static Grants s3Grants(JsonNode policy, java.util.function.Predicate<String> which) {
    Grants grants = new Grants();
    for (JsonNode statement : statements(policy)) {
      if (!which.test(statement.path("Sid").asText())) {
        continue;
      }
      List<String> actions = strings(statement.get("Action")).stream().filter(a -> a.startsWith("s3:")).toList();
      for (String action : actions) {
        for (String resource : strings(statement.get("Resource"))) {
          grants.allow(resource, action);
        }
      }
      for (String listing : List.of("s3:ListBucket", "s3:ListBucketVersions")) {
        if (!actions.contains(listing)) {
          continue;
        }
        JsonNode condition = statement.path("Condition");
        assertThat(condition.size()).as("%s: %s with an s3:prefix condition only",
            statement.path("Sid").asText(), listing).isEqualTo(1);
        List<String> patterns = strings(condition.path("StringLike").path("s3:prefix"));
        assertThat(patterns).as("%s: %s without an s3:prefix condition", statement.path("Sid").asText(), listing)
            .isNotEmpty();
        for (String bucket : strings(statement.get("Resource"))) {
          (listing.equals("s3:ListBucket") ? grants.prefixes : grants.versionPrefixes)
              .computeIfAbsent(bucket, b -> new TreeSet<>()).addAll(patterns);
        }
      }
    }
    return grants;
  }

  private static List<JsonNode> statements(JsonNode policy) {
    return list(policy.get("Statement"));
  }

  private static boolean allows(JsonNode policy, String action, String resource) {
    return allows(policy, action, resource, Map.of());
  }

  private static boolean allowsKms(JsonNode policy, String action, String key, String s3Arn) {
    String region = key.split(":")[3];
    return allows(policy, action, key, Map.of("kms:ViaService", "s3." + region + ".amazonaws.com",
        "kms:EncryptionContext:aws:s3:arn", s3Arn));
  }

  /**
   * Whether the policy allows {@code action} on {@code resource} with the request's {@code context}: IAM's rules
   * for what these policies use (Allow statements; Action and Resource with {@code *} and {@code ?}; the
   * StringEquals and StringLike conditions, a key the request lacks failing its condition). Anything else in a
   * statement fails the test, so no grant goes unread.
   */
  private static boolean allows(JsonNode policy, String action, String resource, Map<String, String> context) {
    for (JsonNode statement : statements(policy)) {
      Set<String> keys = new TreeSet<>();
      statement.fieldNames().forEachRemaining(keys::add);
      assertThat(keys).isSubsetOf("Sid", "Effect", "Action", "Resource", "Condition");
      assertThat(statement.get("Effect").asText()).isEqualTo("Allow");
      boolean actionMatches = strings(statement.get("Action")).stream()
          .anyMatch(pattern -> wildcard(pattern.toLowerCase(java.util.Locale.ROOT))
              .matcher(action.toLowerCase(java.util.Locale.ROOT)).matches());
      boolean resourceMatches = strings(statement.get("Resource")).stream()
          .anyMatch(pattern -> wildcard(pattern).matcher(resource).matches());
      if (actionMatches && resourceMatches && conditionsHold(statement.path("Condition"), context)) {
        return true;
      }
    }
    return false;
  }

  private static boolean conditionsHold(JsonNode conditions, Map<String, String> context) {
    for (Iterator<Map.Entry<String, JsonNode>> operators = conditions.fields(); operators.hasNext(); ) {
      Map.Entry<String, JsonNode> operator = operators.next();
      assertThat(operator.getKey()).isIn("StringEquals", "StringLike");
      for (Iterator<Map.Entry<String, JsonNode>> keys = operator.getValue().fields(); keys.hasNext(); ) {
        Map.Entry<String, JsonNode> key = keys.next();
        String value = context.get(key.getKey());
        if (value == null) {
          return false;
        }
        boolean like = operator.getKey().equals("StringLike");
        if (strings(key.getValue()).stream()
            .noneMatch(pattern -> like ? wildcard(pattern).matcher(value).matches() : pattern.equals(value))) {
          return false;
        }
      }
    }
    return true;
  }

  private static Pattern wildcard(String pattern) {
    StringBuilder regex = new StringBuilder();
    for (char c : pattern.toCharArray()) {
      regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Schedules, events and log lines

  /** The time of day of a daily EventBridge Scheduler cron expression in UTC, with no flexible window. */
  private static LocalTime dailyAt(JsonNode schedule) {
    String name = schedule.get("Name").asText();
    assertThat(schedule.path("ScheduleExpressionTimezone").asText("UTC")).as(name).isEqualTo("UTC");
    assertThat(schedule.path("FlexibleTimeWindow").path("Mode").asText()).as(name).isEqualTo("OFF");
    Matcher cron = Pattern.compile("cron\\((\\S+) (\\S+) (\\S+) (\\S+) (\\S+) (\\S+)\\)")
        .matcher(schedule.get("ScheduleExpression").asText());
    assertThat(cron.matches()).as(name).isTrue();
    assertThat(cron.group(1)).as("%s: minute", name).matches("\\d{1,2}");
    assertThat(cron.group(2)).as("%s: hour", name).matches("\\d{1,2}");
    assertThat(List.of(cron.group(3), cron.group(5))).as("%s: every day", name)
        .isIn(List.of("*", "?"), List.of("?", "*"));
    assertThat(cron.group(4)).as("%s: every month", name).isEqualTo("*");
    assertThat(cron.group(6)).as("%s: every year", name).isEqualTo("*");
    return LocalTime.of(Integer.parseInt(cron.group(2)), Integer.parseInt(cron.group(1)));
  }

  /** How late after its time the scheduler may still start the target (its retries' window). */
  private static Duration latestStart(JsonNode schedule) {
    JsonNode retry = schedule.get("Target").path("RetryPolicy");
    return retry.path("MaximumRetryAttempts").asInt(185) == 0 ? Duration.ZERO
        : Duration.ofSeconds(retry.path("MaximumEventAgeInSeconds").asLong(86_400));
  }

  private static JsonNode stepEvent(String name, String state) throws IOException {
    return JSON.readTree("{\"source\":\"aws.emr\",\"detail-type\":\"EMR Step Status Change\",\"detail\":"
        + "{\"severity\":\"ERROR\",\"actionOnFailure\":\"CONTINUE\",\"stepId\":\"s-1\",\"clusterId\":\"j-1\","
        + "\"state\":" + JSON.writeValueAsString(state) + ",\"name\":" + JSON.writeValueAsString(name) + "}}");
  }

  private static JsonNode jobRunEvent(String application, String state) throws IOException {
    return JSON.readTree("{\"source\":\"aws.emr-serverless\",\"detail-type\":\"EMR Serverless Job Run State Change\","
        + "\"detail\":{\"jobRunId\":\"00f1\",\"applicationId\":" + JSON.writeValueAsString(application)
        + ",\"state\":" + JSON.writeValueAsString(state) + ",\"previousState\":\"RUNNING\"}}");
  }

  /**
   * Whether an EventBridge event pattern matches the event, for what these patterns use: every field of the
   * pattern must match, a list by one of its values (a string exactly, or {@code {"prefix": ...}}), an object
   * field by field.
   */
  private static boolean matches(JsonNode pattern, JsonNode event) {
    for (Iterator<Map.Entry<String, JsonNode>> fields = pattern.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      JsonNode value = event.get(field.getKey());
      if (value == null) {
        return false;
      }
      if (field.getValue().isObject()) {
        if (!matches(field.getValue(), value)) {
          return false;
        }
        continue;
      }
      assertThat(field.getValue().isArray()).as(field.getKey()).isTrue();
      boolean any = false;
      for (JsonNode option : field.getValue()) {
        if (option.isTextual()) {
          any |= option.asText().equals(value.asText());
        } else {
          assertThat(option.fieldNames().next()).as("a pattern this test reads").isEqualTo("prefix");
          any |= value.asText().startsWith(option.get("prefix").asText());
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a CloudWatch Logs filter pattern of terms matches a log line: each term (a word, or a quoted phrase)
   * must occur in the line, case-sensitively; a term after {@code -} must not. JSON, space-delimited, regular
   * expression and {@code ?} patterns fail the test: none of the shipped ones is.
   */
  private static boolean termsMatch(String pattern, String line) {
    Matcher term = Pattern.compile("\\s*(-?)(?:\"((?:[^\"\\\\]|\\\\.)*)\"|([^\\s\"]+))").matcher(pattern);
    int at = 0;
    boolean matches = true;
    while (at < pattern.length() && term.find(at) && term.start() == at) {
      String text = term.group(2) != null ? term.group(2).replace("\\\"", "\"") : term.group(3);
      assertThat(text).as(pattern).doesNotStartWith("{").doesNotStartWith("[").doesNotStartWith("%")
          .doesNotStartWith("?");
      boolean found = line.contains(text);
      matches &= term.group(1).isEmpty() == found;
      at = term.end();
    }
    assertThat(pattern.substring(at).trim()).as("a pattern this test reads: %s", pattern).isEmpty();
    return matches;
  }

  /** A line as the product prints it: {@link LogLine}'s own factory ({@code missing}, {@code kept}, ...). */
  private static String logLine(String kind, String... values) throws Exception {
    Class<?>[] types = new Class<?>[values.length];
    Arrays.fill(types, String.class);
    Method factory = LogLine.class.getDeclaredMethod(kind, types);
    factory.setAccessible(true);
    return ((LogLine) factory.invoke(null, (Object[]) values)).text();
  }

  // ---------------------------------------------------------------------------------------------------------

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

  private static List<String> strings(JsonNode node) {
    List<String> values = new ArrayList<>();
    if (node == null || node.isMissingNode() || node.isNull()) {
      return values;
    }
    if (node.isArray()) {
      node.forEach(value -> values.add(value.asText()));
    } else {
      values.add(node.asText());
    }
    return values;
  }

  private static List<String> strings(List<JsonNode> nodes) {
    return nodes.stream().map(JsonNode::asText).toList();
  }

  private static List<JsonNode> list(JsonNode node) {
    List<JsonNode> values = new ArrayList<>();
    node.forEach(values::add);
    return values;
  }

  private static JsonNode read(String file) throws IOException {
    return JSON.readTree(DEPLOY.resolve(file).toFile());
  }

  /** statesweep's own folder beside the export prefix: the run lock's, where the probes and the ledger go too. */
  private static String lockFolder(String prefix) {
    String lock = RunLock.keyFor(prefix);
    return lock.substring(0, lock.lastIndexOf('/') + 1);
  }
}
