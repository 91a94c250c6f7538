package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CommandLineTest {

  @Test
  void parsesFlagsWithSpacesOrEqualsAndSwitches() {
    CommandLine commandLine = CommandLine.parse(new String[] {"plan", "--bucket", "b", "--prefix=cogram/",
        "--allow-bucket-root", "--config-file", "x.properties"});

    assertThat(commandLine.command()).isEqualTo("plan");
    assertThat(commandLine.flags()).containsExactlyInAnyOrderEntriesOf(
        Map.of("--bucket", "b", "--prefix", "cogram/", "--allow-bucket-root", "true"));
    assertThat(commandLine.configFile()).isEqualTo("x.properties");
  }

  @Test
  void aSwitchTakesAFollowingBooleanAsItsValue() {
    CommandLine commandLine = CommandLine.parse(new String[] {"execute", "--run-id", "x", "--skip-approval", "true",
        "--allow-bucket-root", "false", "--path-style"}, java.util.Set.of("--run-id"));

    assertThat(commandLine.flags()).containsEntry("--run-id", "x").containsEntry("--skip-approval", "true")
        .containsEntry("--allow-bucket-root", "false").containsEntry("--path-style", "true");
  }

  @Test
  void executeIsDryRunFalse() {
    assertThat(CommandLine.parse(new String[] {"plan", "--execute"}).flags()).containsEntry("--dry-run", "false");
    assertThat(CommandLine.parse(new String[] {"plan", "--dry-run"}).flags()).containsEntry("--dry-run", "true");
    assertThat(CommandLine.parse(new String[] {"plan", "--dry-run=0"}).flags()).containsEntry("--dry-run", "0");
    assertThat(CommandLine.parse(new String[] {"plan", "--dry-run", "false", "--bucket", "b"}).flags())
        .containsEntry("--dry-run", "false").containsEntry("--bucket", "b");
  }

  @Test
  void unknownOptionsAreErrorsThatListTheKnownOnes() {
    assertThatThrownBy(() -> CommandLine.parse(new String[] {"plan", "--bukcet", "b"}))
        .hasMessageStartingWith("Unknown option --bukcet; known options: --bucket, --prefix");
    assertThatThrownBy(() -> CommandLine.parse(new String[] {"plan", "--bucket"}))
        .hasMessage("Option --bucket needs a value");
    assertThatThrownBy(() -> CommandLine.parse(new String[] {"plan", "--bucket", "a", "--bucket", "b"}))
        .hasMessage("Option --bucket is given twice");
  }

  @Test
  void badSettingsExitWithTwoAndAMessageBeforeAnyRequest() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = StatesweepCli.run(new String[] {"plan", "--bucket", "b", "--prefix", "p"},
        Map.of("COGRAM_CLEANUP_DRY_RUN", "maybe"), new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(code).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
        "statesweep: Invalid sweep.dry-run 'maybe' (from COGRAM_CLEANUP_DRY_RUN): use true, false, 1 or 0\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"plan", "run", "execute", "approve"})
  void refusesSparkSubmitsConfFlagAndNamesTheConfigFileFlag(String command) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = StatesweepCli.run(new String[] {command, "--conf", "sweep.properties", "--bucket", "b",
        "--prefix", "p"}, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(code).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("statesweep: Option --conf is spark-submit's flag"
        + " (it goes before the jar); statesweep's settings file is --config-file FILE\n");
    assertThatThrownBy(() -> CommandLine.parse(new String[] {"plan", "--conf=spark.ui.enabled=false"}))
        .hasMessage("Option --conf is spark-submit's flag (it goes before the jar); statesweep's settings file is"
            + " --config-file FILE");
    assertThatThrownBy(() -> CommandLine.parse(new String[] {"plan", "--conf"}))
        .hasMessageStartingWith("Option --conf is spark-submit's flag");
    assertThatThrownBy(() -> CommandLine.parse(new String[] {"plan", "--config-file", "a", "--config-file", "b"}))
        .hasMessage("Option --config-file is given twice");
  }

  @Test
  void planRefusesToRunWithDryRunFalse() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = StatesweepCli.run(new String[] {"plan", "--bucket", "b", "--prefix", "p", "--execute"}, Map.of(),
        new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(code).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("The plan command never deletes, but dry_run is false"
        + " (from --dry-run)");
  }

  @Test
  void helpListsEveryOptionWithItsDefaultAndEnvironmentVariable() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = StatesweepCli.run(new String[] {"plan", "--help"}, Map.of(),
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err);

    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--grace-days V", "default: 0; env COGRAM_CLEANUP_GRACE_DAYS; config-file key sweep.grace-days")
        .containsPattern("--config-file FILE +a properties file of sweep\\.\\* keys")
        .doesNotContain("--conf ")
        .contains("--workers V", "default: 16; env COGRAM_CLEANUP_WORKERS")
        .contains("--execute");
  }
}
