package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandLineTest {

  @Test
  void parsesFlagsWithSpacesOrEqualsAndSwitches() {
    CommandLine commandLine = CommandLine.parse(new String[] {"plan", "--bucket", "b", "--prefix=cogram/",
        "--allow-bucket-root", "--conf", "x.properties"});

    assertThat(commandLine.command()).isEqualTo("plan");
    assertThat(commandLine.flags()).containsExactlyInAnyOrderEntriesOf(
        Map.of("--bucket", "b", "--prefix", "cogram/", "--allow-bucket-root", "true"));
    assertThat(commandLine.confFile()).isEqualTo("x.properties");
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
        .contains("--grace-days V", "default: 0; env COGRAM_CLEANUP_GRACE_DAYS; conf sweep.grace-days")
        .contains("--workers V", "default: 16; env COGRAM_CLEANUP_WORKERS")
        .contains("--execute");
  }
}
