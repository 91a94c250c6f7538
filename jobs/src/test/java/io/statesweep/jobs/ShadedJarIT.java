package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar as it ships (after {@code package}): the AWS SDK relocated inside, Spark, Delta and
 * Hadoop left to the platform, and nothing of the tests (the local S3 server, the sample archive, the demo
 * and the delete benchmark are test code). {@code java -cp statesweep.jar:<the platform's jars>} and
 * spark-submit each run the jar's {@code plan} end to end against a local S3 server that this test starts
 * with a sample archive, with the platform's own unrelocated AWS SDK beside it (as hadoop-aws brings it on
 * a cluster).
 *
 * <p>Failsafe runs it after {@code package}. The jar holds the AWS SDK relocated, no Spark, Delta, Hadoop or Scala
 * classes, and no test code: no {@code io/statesweep/local}, {@code testing}, {@code Demo}, {@code DeleteBenchmark},
 * {@code bench}, S3Proxy. Its {@code plan} runs twice against an S3Proxy server and a sample archive of 120 records
 * that the test starts ({@code --endpoint}, credentials from the environment): with {@code java -cp
 * statesweep.jar:<Spark 3.5, Delta 3.3, Hadoop 3.4 jars>}, and through Spark's own launcher ({@code
 * org.apache.spark.deploy.SparkSubmit --master local[2] --class ... statesweep.jar plan ...}, what {@code
 * spark-submit} runs).
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class ShadedJarIT {
  private static final Path JAR = Path.of(System.getProperty("statesweep.jar"));
  private static final String BUCKET = "shaded-jar";
  private static final String PREFIX = "cogram/";
  private static final int RECORDS = 120;
  private static LocalS3Server server;

  @BeforeAll
  static void archive(LocalS3Server s3) {
    server = s3;
    server.createBucket(BUCKET);
    SampleArchive.generate(S3ObjectStore.open(server.s3Settings(), BUCKET), PREFIX, RECORDS, 5L,
        Instant.now());
  }

  @Test
  void theJarCarriesTheRelocatedSdkAndNotThePlatformNorTheTests() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      List<String> entries = jar.stream().map(entry -> entry.getName()).toList();

      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("io.statesweep.jobs.StatesweepCli");
      assertThat(entries).contains("io/statesweep/jobs/StatesweepCli.class",
          "io/statesweep/shaded/awssdk/services/s3/S3Client.class", "layouts/cogram.json",
          "picocli/CommandLine.class");
      assertThat(entries).noneMatch(name -> name.startsWith("software/amazon/awssdk/"));
      assertThat(entries).noneMatch(name -> name.startsWith("org/apache/spark/") || name.startsWith("io/delta/")
          || name.startsWith("org/apache/hadoop/") || name.startsWith("scala/"));
      assertThat(entries).as("the demo's local S3 server, sample archive and the benchmarks are test code")
          .noneMatch(name -> name.startsWith("io/statesweep/local/") || name.startsWith("io/statesweep/testing/")
              || name.startsWith("io/statesweep/jobs/Demo") || name.startsWith("io/statesweep/jobs/DeleteBenchmark")
              || name.startsWith("io/statesweep/jobs/bench/") || name.startsWith("org/gaul/"));
    }
  }

  @Test
  void javaCpRunsThePlan(@TempDir Path workingDirectory) throws Exception {
    List<String> command = java();
    command.addAll(List.of("-cp", JAR + File.pathSeparator + platform(), "io.statesweep.jobs.StatesweepCli"));
    command.addAll(plan(workingDirectory));

    assertPlanRan(command, workingDirectory);
  }

  /**
   * What {@code spark-submit --master local[2] --class ... statesweep.jar plan ...} runs: Spark's own
   * launcher class with the platform's jars, the job jar added by Spark as the application.
   */
  @Test
  void sparkSubmitRunsTheJobJar(@TempDir Path workingDirectory) throws Exception {
    List<String> command = java();
    command.addAll(List.of("-cp", platform(), "org.apache.spark.deploy.SparkSubmit", "--master", "local[2]",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension",
        "--conf", "spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "--class", "io.statesweep.jobs.StatesweepCli", JAR.toString()));
    command.addAll(plan(workingDirectory));

    assertPlanRan(command, workingDirectory);
  }

  /** The jar's plan of the sample archive on the test's server, as a user points it at an S3-compatible store. */
  private static List<String> plan(Path workingDirectory) {
    return List.of("plan", "--bucket", BUCKET, "--prefix", PREFIX, "--endpoint", server.endpoint(), "--region",
        LocalS3Server.REGION, "--warehouse", workingDirectory.resolve("warehouse").toString(), "--log-lines", "10");
  }

  private static List<String> java() {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx2g"));
    command.addAll(Arrays.asList(System.getProperty("spark.java17.flags").trim().split("\\s+")));
    return command;
  }

  private static String platform() throws IOException {
    return Files.readString(Path.of(System.getProperty("statesweep.provided.classpath"))).strip();
  }

  private static void assertPlanRan(List<String> command, Path workingDirectory) throws Exception {
    Path log = workingDirectory.resolve("plan.log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    // Credentials as a user gives them: the SDK's default chain, here its environment variables.
    builder.environment().putAll(Map.of("AWS_ACCESS_KEY_ID", server.accessKey(), "AWS_SECRET_ACCESS_KEY",
        server.secretKey(), "SPARK_LOCAL_IP", "127.0.0.1"));
    Process process = builder.start();

    boolean finished = process.waitFor(10, TimeUnit.MINUTES);
    if (!finished) {
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);

    assertThat(finished).as(output).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).contains("metrics: {\"metric\":\"statesweep.run\",\"command\":\"plan\"");
    assertThat(output.lines().filter(line -> line.startsWith("summary: ")).findFirst())
        .hasValueSatisfying(line -> assertThat(line)
            .startsWith("summary: dry_run=true complete=true state_files_scanned=" + RECORDS + " ")
            .contains(" errors=0 "));
  }
}
