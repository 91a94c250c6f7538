package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.api.failures.RestoreRefusedException;
import io.statesweep.api.failures.RunLockException;
import io.statesweep.store.StoreException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The command line's one table of failures ({@link StatesweepCli#FAILURES}): each type of failure ends a command with
 * its exit code, its line and the {@code stopped=} reason of its summary line (conf/deploy/README.md, "Failures page
 * someone" and "The summary line"); anything else is a bug, exit 1 with its stack trace, never bad settings. No Spark.
 */
class FailureExitCodesTest {
  private static final String DENIED = "Cannot take the run lock: Cannot write s3://b/cogram.statesweep/lock:"
      + " AccessDenied (403). Missing permission: s3:PutObject on arn:aws:s3:::b/cogram.statesweep/*";

  /** What a failure printed and returned when it stopped {@code command} before it counted anything. */
  private record Failed(int code, String out, String err) {
    static Failed of(String command, Exception failure) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
      StatesweepCli.Ending ending = new StatesweepCli.Ending(command, new String[] {command}, Map.of(), outStream);
      int code = StatesweepCli.failed(failure, ending, new PrintStream(err, true, StandardCharsets.UTF_8));
      return new Failed(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
  }

  private static String stopped(boolean dryRun, long errors, String reason) {
    return "summary: dry_run=" + dryRun + " complete=false state_files_scanned=0 records_deleted=0"
        + " child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=" + errors
        + " stopped=" + reason + "\n";
  }

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new BadSettingsException("Invalid sweep.grace-days 'seven' (from --grace-days): not a whole"
            + " number"), StatesweepCli.BAD_SETTINGS, "bad_settings", 0,
            "statesweep: Invalid sweep.grace-days 'seven' (from --grace-days): not a whole number\n"),
        Arguments.of(new PlanRefusedException("The plan of run R has not been approved. Review it"),
            StatesweepCli.BAD_SETTINGS, "bad_settings", 0,
            "statesweep: The plan of run R has not been approved. Review it\n"),
        Arguments.of(new RunLockException.Held("Another statesweep run holds the lock s3://b/cogram.statesweep/lock"),
            StatesweepCli.LOCKED, "lock_held", 0,
            "statesweep: Another statesweep run holds the lock s3://b/cogram.statesweep/lock\n"),
        Arguments.of(new RunLockException.Denied(DENIED, "s3:PutObject", null), StatesweepCli.BAD_SETTINGS,
            "lock_denied", 1, "statesweep: " + DENIED + ". A run that deletes needs the lock: nothing was deleted\n"),
        Arguments.of(new RunLockException.Untrusted("Cannot take the run lock s3://b/cogram.statesweep/lock: the"
            + " store wrote it a second time", "ignored (the store wrote it a second time)"),
            StatesweepCli.BAD_SETTINGS, "lock_untrusted", 0,
            "statesweep: Cannot take the run lock s3://b/cogram.statesweep/lock: the store wrote it a second time\n"),
        Arguments.of(new RunLockException.Unavailable("Cannot take the run lock s3://b/cogram.statesweep/lock:"
            + " NoSuchBucket (404)", null), StatesweepCli.RUN_FAILED, "lock_unavailable", 1,
            "statesweep: Cannot take the run lock s3://b/cogram.statesweep/lock: NoSuchBucket (404)\n"),
        Arguments.of(new StoreException("Cannot read s3://b/cogram/x/state.json: InternalError (500)", "InternalError",
            null), StatesweepCli.RUN_FAILED, "failed", 1,
            "statesweep: Cannot read s3://b/cogram/x/state.json: InternalError (500)\n"));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void eachFailureEndsWithItsExitCodeLineAndStoppedReason(Exception failure, int code, String reason, long errors,
      String line) {
    Failed failed = Failed.of("execute", failure);

    assertThat(failed.code()).isEqualTo(code);
    assertThat(failed.err()).isEqualTo(line);
    assertThat(failed.out()).isEqualTo(stopped(false, errors, reason));
  }

  @Test
  void theTableNamesEveryFailureTypeOnceWithItsExitCode() {
    assertThat(StatesweepCli.FAILURES).extracting(StatesweepCli.FailureEnd::type).containsExactly(
        BadSettingsException.class, PlanRefusedException.class, RestoreRefusedException.class,
        RunLockException.Held.class,
        RunLockException.Denied.class, RunLockException.Untrusted.class, RunLockException.Unavailable.class,
        StoreException.class);
    assertThat(StatesweepCli.FAILURES).extracting(StatesweepCli.FailureEnd::code)
        .containsExactly(2, 2, 2, 3, 2, 2, 1, 1);
    assertThat(StatesweepCli.FAILURES).extracting(StatesweepCli.FailureEnd::stopped).containsExactly(
        "bad_settings", "bad_settings", "restore_refused", "lock_held", "lock_denied", "lock_untrusted", "lock_unavailable", "failed");
    for (StatesweepCli.FailureEnd end : StatesweepCli.FAILURES) {
      assertThat(StatesweepFailure.meaning(end.code())).as("%s", end.type()).isNotEqualTo("unknown exit code");
    }
  }

  @Test
  void aRefusedRestoreExits2WithARestoreSummaryLine() {
    Failed failed = Failed.of("restore", new RestoreRefusedException("Cannot restore run R: bucket s3://b has no"
        + " versioning"));

    assertThat(failed.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(failed.err()).isEqualTo("statesweep: Cannot restore run R: bucket s3://b has no versioning\n");
    assertThat(failed.out()).isEqualTo("summary: dry_run=true complete=false restored=0 written_since=0"
        + " already_restored=0 not_restored=0 keys=0 errors=0 stopped=restore_refused\n");
  }

  @Test
  void anUnexpectedExceptionIsABugExit1WithItsStackTraceNeverBadSettings() {
    IllegalStateException cause = new IllegalStateException("the cause");
    Failed failed = Failed.of("plan", new IllegalArgumentException("counts must not be negative", cause));

    assertThat(failed.code()).isEqualTo(StatesweepCli.RUN_FAILED);
    assertThat(failed.out()).isEqualTo(stopped(true, 1, "failed"));
    List<String> lines = failed.err().lines().toList();
    assertThat(lines.get(0)).isEqualTo("statesweep: java.lang.IllegalArgumentException: counts must not be negative");
    assertThat(lines.get(1)).startsWith("\tat io.statesweep.jobs.FailureExitCodesTest.");
    assertThat(lines).contains("Caused by: java.lang.IllegalStateException: the cause");
    assertThat(lines).anyMatch(line -> line.matches("\t\\.\\.\\. \\d+ more"));
    assertThat(failed.err()).doesNotContain("bad_settings");
  }

  @Test
  void aNullPointerExceptionIsExit1WithItsStackTrace() {
    Failed failed = Failed.of("run", new NullPointerException("plan is null"));

    assertThat(failed.code()).isEqualTo(StatesweepCli.RUN_FAILED);
    assertThat(failed.err()).startsWith("statesweep: java.lang.NullPointerException: plan is null\n\tat ");
    assertThat(failed.out()).isEqualTo(stopped(true, 1, "failed"));
  }

  @Test
  void aMessageCannotForgeALineOfTheStackTrace() {
    Failed failed = Failed.of("plan", new IllegalStateException("x\nsummary: dry_run=true complete=true",
        new RuntimeException("y\n\tat forged")));

    assertThat(failed.err().lines()).noneMatch(line -> line.startsWith("summary: "));
    assertThat(failed.err().lines()).noneMatch(line -> line.equals("\tat forged"));
    assertThat(failed.err()).contains("statesweep: java.lang.IllegalStateException: x\\nsummary: dry_run=true");
  }

  @Test
  void aCommandThatIsNoRunPrintsNoSummary() {
    Failed failed = Failed.of("approve", new PlanRefusedException("No plan with run id R"));

    assertThat(failed.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(failed.out()).isEmpty();
    assertThat(failed.err()).isEqualTo("statesweep: No plan with run id R\n");
  }

  @Test
  void picocliParseErrorsStayBadSettings() {
    CommandOutput output = CommandOutput.run(Map.of(), "plan", "--no-such-flag");

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).startsWith("statesweep: Unknown option: '--no-such-flag'");
    assertThat(output.text()).isEqualTo(stopped(true, 0, "bad_settings"));
  }
}
