package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The entry point as a Databricks JAR task runs it: in a driver JVM ({@code DATABRICKS_RUNTIME_VERSION}
 * set) whose session exists before {@code main} is called and is used after it. Databricks' rules: no
 * {@code System.exit}, the session never stopped, a failure thrown (with the exit code and the summary
 * line, for the run's output).
 *
 * <p>{@code StatesweepCli.main} runs in a separate JVM with {@code DATABRICKS_RUNTIME_VERSION} set and a session made
 * with {@code getOrCreate()}, three times (a plan on S3Proxy, a missing bucket, {@code --dry-run false}): it returns
 * after the success, throws {@code StatesweepFailure} with the exit code and summary line after each failure, never
 * exits the JVM, and the same session still answers a query after each call.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class DatabricksEntryPointTest {

  @Test
  void mainReturnsOnSuccessThrowsOnFailureAndLeavesTheDriversSessionUsable(LocalS3Server server,
      @TempDir Path directory) throws Exception {
    String bucket = server.createBucket("databricks-driver");
    SampleArchive.generate(S3ObjectStore.open(server.s3Settings(), bucket), "cogram/", 60, 3L,
        Instant.now());
    Path log = directory.resolve("driver.log");
    List<String> command = ChildJvm.command("1g");
    command.addAll(List.of("-Dspark.master=local[2]", "-Dspark.app.name=databricks-driver",
        "-Dspark.driver.host=127.0.0.1", "-Dspark.driver.bindAddress=127.0.0.1", "-Dspark.ui.enabled=false",
        "-Dspark.sql.shuffle.partitions=4",
        "-Dspark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension",
        "-Dspark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "-Daws.accessKeyId=" + server.accessKey(), "-Daws.secretAccessKey=" + server.secretKey(),
        "-Daws.region=" + LocalS3Server.REGION,
        "-cp", System.getProperty("java.class.path"), DatabricksDriver.class.getName(),
        bucket, server.endpoint(), directory.resolve("warehouse").toString()));
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("DATABRICKS_RUNTIME_VERSION", "16.4");
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");

    Process process = builder.start();
    boolean finished = process.waitFor(10, TimeUnit.MINUTES);
    if (!finished) {
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    List<String> driver = output.lines().filter(line -> line.startsWith("driver: ")).toList();

    assertThat(finished).as(output).isTrue();
    assertThat(driver).as(output).hasSize(8);
    assertThat(driver.get(0)).isEqualTo("driver: session started, count=3");
    assertThat(driver.get(1)).isEqualTo("driver: success returned");
    assertThat(driver.get(2)).isEqualTo("driver: after success stopped=false same_session=true count=7");
    String planSummary = output.lines().filter(line -> line.startsWith("summary: ")).findFirst().orElseThrow();
    assertThat(planSummary).startsWith("summary: dry_run=true complete=true ");
    String lockUnavailable = "summary: dry_run=true complete=false state_files_scanned=0 records_deleted=0"
        + " child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=1"
        + " stopped=lock_unavailable";
    assertThat(driver.get(3)).isEqualTo("driver: missing-bucket threw StatesweepFailure exit_code=1 summary_line="
        + lockUnavailable + " message=statesweep plan failed with exit code 1 (a run with errors or that did not"
        + " complete); " + lockUnavailable);
    assertThat(driver.get(4)).isEqualTo("driver: after missing-bucket stopped=false same_session=true count=7");
    String badSettings = "summary: dry_run=true complete=false state_files_scanned=0 records_deleted=0"
        + " child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0"
        + " stopped=bad_settings";
    assertThat(driver.get(5)).isEqualTo("driver: bad-settings threw StatesweepFailure exit_code=2 summary_line="
        + badSettings + " message=statesweep plan failed with exit code 2 (bad settings, or a run that deletes"
        + " without a run lock it can hold); " + badSettings);
    assertThat(driver.get(6)).isEqualTo("driver: after bad-settings stopped=false same_session=true count=7");
    assertThat(driver.get(7)).isEqualTo("driver: done");
    assertThat(process.exitValue()).as(output).isZero();
  }
}
