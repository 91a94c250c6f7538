package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar as it ships (after {@code package}): the AWS SDK relocated inside, Spark, Delta and
 * Hadoop left to the platform; and {@code java -cp statesweep.jar:<the platform's jars>} runs the
 * embedded default end to end, with the platform's own unrelocated AWS SDK beside it (as hadoop-aws
 * brings it on a cluster).
 */
class ShadedJarIT {
  private static final Path JAR = Path.of(System.getProperty("statesweep.jar"));

  @Test
  void theJarCarriesTheRelocatedSdkAndNotThePlatform() throws IOException {
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
    }
  }

  @Test
  void javaCpRunsTheEmbeddedDefault(@TempDir Path workingDirectory) throws Exception {
    List<String> command = java();
    command.addAll(List.of("-cp", JAR + File.pathSeparator + platform(), "io.statesweep.jobs.StatesweepCli", "demo",
        "--records", "120"));

    assertDemoRan(command, workingDirectory);
  }

  /**
   * What {@code spark-submit --master local[2] --class ... statesweep.jar demo} runs: Spark's own
   * launcher class with the platform's jars, the job jar added by Spark as the application.
   */
  @Test
  void sparkSubmitRunsTheJobJar(@TempDir Path workingDirectory) throws Exception {
    List<String> command = java();
    command.addAll(List.of("-cp", platform(), "org.apache.spark.deploy.SparkSubmit", "--master", "local[2]",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension",
        "--conf", "spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "--class", "io.statesweep.jobs.StatesweepCli", JAR.toString(), "demo", "--records", "120"));

    assertDemoRan(command, workingDirectory);
  }

  private static List<String> java() {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx2g"));
    command.addAll(Arrays.asList(System.getProperty("spark.java17.flags").trim().split("\\s+")));
    command.add("-Dstatesweep.s3proxy.jar=" + System.getProperty("statesweep.s3proxy.jar"));
    return command;
  }

  private static String platform() throws IOException {
    return Files.readString(Path.of(System.getProperty("statesweep.provided.classpath"))).strip();
  }

  private static void assertDemoRan(List<String> command, Path workingDirectory) throws Exception {
    Path log = workingDirectory.resolve("demo.log");
    Process process = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();

    boolean finished = process.waitFor(10, TimeUnit.MINUTES);
    if (!finished) {
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);

    assertThat(finished).as(output).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).contains("metrics: {\"metric\":\"statesweep.run\",\"command\":\"plan\"");
    assertThat(output.lines().filter(line -> line.startsWith("summary: ")).findFirst())
        .hasValueSatisfying(line -> assertThat(line).startsWith("summary: dry_run=true complete=true"));
  }
}
