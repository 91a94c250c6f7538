package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Which launcher started the JVM, and what main does at the end of a command under each (fakes, no Spark). */
class LauncherTest {
  private static final String SUMMARY = "summary: dry_run=true complete=false state_files_scanned=0 records_deleted=0"
      + " child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=1"
      + " stopped=lock_unavailable";

  @Test
  void javaCpHasNoSparkMaster() {
    assertThat(Launcher.detect(Map.of(), Map.of())).isEqualTo(Launcher.JAVA);
    assertThat(Launcher.detect(Map.of("DATABRICKS_RUNTIME_VERSION", ""), Map.of("spark.app.name", "x")))
        .isEqualTo(Launcher.JAVA);
  }

  @Test
  void sparkSubmitInClientModeSetsTheMaster() {
    assertThat(Launcher.detect(Map.of(), Map.of("spark.master", "local[2]"))).isEqualTo(Launcher.SPARK_SUBMIT);
    assertThat(Launcher.detect(Map.of(), Map.of("spark.master", "yarn", "spark.submit.deployMode", "client")))
        .isEqualTo(Launcher.SPARK_SUBMIT);
    assertThat(Launcher.detect(Map.of(), Map.of("spark.master", "yarn"))).isEqualTo(Launcher.SPARK_SUBMIT);
    // Standalone cluster mode: the worker's DriverWrapper reads the driver's exit code.
    assertThat(Launcher.detect(Map.of(), Map.of("spark.master", "spark://host:7077",
        "spark.submit.deployMode", "cluster"))).isEqualTo(Launcher.SPARK_SUBMIT);
  }

  @Test
  void yarnClusterModeIsWhatTheApplicationMasterSets() {
    Properties systemProperties = new Properties();
    systemProperties.setProperty("spark.master", "yarn");
    systemProperties.setProperty("spark.submit.deployMode", "cluster");
    systemProperties.setProperty("java.version", "17");

    assertThat(Launcher.sparkProperties(systemProperties))
        .isEqualTo(Map.of("spark.master", "yarn", "spark.submit.deployMode", "cluster"));
    assertThat(Launcher.detect(Map.of(), Launcher.sparkProperties(systemProperties))).isEqualTo(Launcher.YARN_CLUSTER);
  }

  @Test
  void databricksSetsItsRuntimeVersionWhateverTheMaster() {
    assertThat(Launcher.detect(Map.of("DATABRICKS_RUNTIME_VERSION", "16.4"),
        Map.of("spark.master", "spark://10.0.0.1:7077"))).isEqualTo(Launcher.DATABRICKS);
    assertThat(Launcher.detect(Map.of("DATABRICKS_RUNTIME_VERSION", "16.4"), Map.of())).isEqualTo(Launcher.DATABRICKS);
  }

  @Test
  void javaCpAndClientModeStopTheSessionTheyCreatedAndReturnOnSuccess() {
    for (Launcher launcher : List.of(Launcher.JAVA, Launcher.SPARK_SUBMIT)) {
      FakePlatform platform = new FakePlatform();

      launcher.end("plan", 0, SUMMARY, true, platform);

      assertThat(platform.calls).as(launcher.name()).containsExactly("stopSession");
    }
  }

  @Test
  void javaCpAndClientModeExitWithTheCodeAfterStoppingTheSessionTheyCreated() {
    for (int code : new int[] {1, 2, 3}) {
      FakePlatform platform = new FakePlatform();

      Launcher.SPARK_SUBMIT.end("run", code, SUMMARY, true, platform);

      assertThat(platform.calls).containsExactly("stopSession", "exit " + code);
    }
  }

  @Test
  void javaCpAndClientModeLeaveASessionThatWasThereBefore() {
    FakePlatform success = new FakePlatform();
    FakePlatform failure = new FakePlatform();

    Launcher.JAVA.end("plan", 0, SUMMARY, false, success);
    Launcher.JAVA.end("plan", 1, SUMMARY, false, failure);

    assertThat(success.calls).isEmpty();
    assertThat(failure.calls).containsExactly("exit 1");
  }

  @Test
  void yarnClusterModeAndDatabricksReturnOnSuccessAndNeverStopTheSession() {
    for (Launcher launcher : List.of(Launcher.YARN_CLUSTER, Launcher.DATABRICKS)) {
      FakePlatform platform = new FakePlatform();

      launcher.end("run", 0, SUMMARY, true, platform);

      assertThat(platform.calls).as(launcher.name()).isEmpty();
    }
  }

  @Test
  void yarnClusterModeThrowsTheCodeAndSummaryAfterMakingSureTheApplicationMasterRegistered() {
    FakePlatform platform = new FakePlatform();

    assertThatThrownBy(() -> Launcher.YARN_CLUSTER.end("run", 1, SUMMARY, true, platform))
        .isInstanceOfSatisfying(StatesweepFailure.class, failure -> {
          assertThat(failure.exitCode()).isEqualTo(1);
          assertThat(failure.summaryLine()).isEqualTo(SUMMARY);
        })
        .hasMessage("statesweep run failed with exit code 1 (a run with errors or that did not complete); " + SUMMARY);
    assertThat(platform.calls).containsExactly("startSession");
  }

  @Test
  void databricksThrowsTheCodeAndSummaryAndLeavesTheSessionAndTheJvmAlone() {
    FakePlatform platform = new FakePlatform();

    assertThatThrownBy(() -> Launcher.DATABRICKS.end("plan", 2, SUMMARY, false, platform))
        .isInstanceOf(StatesweepFailure.class)
        .hasMessage("statesweep plan failed with exit code 2 (bad settings, or a run that deletes without a run"
            + " lock it can hold); " + SUMMARY);
    assertThatThrownBy(() -> Launcher.DATABRICKS.end("run", 3, SUMMARY, false, platform))
        .hasMessage("statesweep run failed with exit code 3 (another run holds the export's run lock); " + SUMMARY);
    assertThatThrownBy(() -> Launcher.DATABRICKS.end("plan", 4, SUMMARY, false, platform))
        .hasMessage("statesweep plan failed with exit code 4 (a run that lost files that --fail-on names); " + SUMMARY);
    assertThatThrownBy(() -> Launcher.DATABRICKS.end("approve", 2, null, false, platform))
        .hasMessageEndingWith("; no summary line");
    assertThat(platform.calls).isEmpty();
  }

  /** Records what the launcher asked of the JVM; exit returns (the real one does not). */
  private static final class FakePlatform implements Launcher.Platform {
    final List<String> calls = new ArrayList<>();

    @Override
    public void stopSession() {
      calls.add("stopSession");
    }

    @Override
    public void startSession() {
      calls.add("startSession");
    }

    @Override
    public void exit(int code) {
      calls.add("exit " + code);
    }
  }
}
