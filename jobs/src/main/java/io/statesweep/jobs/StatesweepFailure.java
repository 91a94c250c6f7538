package io.statesweep.jobs;

/**
 * A command that ended with a non-zero exit code, thrown from {@code main} where the launcher reads a
 * failure from an exception rather than from the process's exit code (YARN cluster mode, Databricks):
 * its message carries the exit code, what the code means and the run's summary line, so that YARN's
 * diagnostics ({@code User class threw exception: ...}) and Databricks' run output show them.
 *
 * <p>It has no stack trace of its own: the run already printed why it failed (stderr), and the
 * platform's diagnostics are more readable with the one line.
 */
public final class StatesweepFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;
  private final String summaryLine;

  /**
   * @param command the command that failed ({@code plan}, {@code run}, ...)
   * @param exitCode its exit code, not 0
   * @param summaryLine the last line the run printed that starts with {@code summary: }, or null when it printed none
   */
  public StatesweepFailure(String command, int exitCode, String summaryLine) {
    super(message(command, exitCode, summaryLine), null, false, false);
    if (exitCode == 0) {
      throw new IllegalArgumentException("A failure has a non-zero exit code");
    }
    this.exitCode = exitCode;
    this.summaryLine = summaryLine;
  }

  /** The exit code the command returned: 1, 2, 3 or 4 (see {@link StatesweepCli}). */
  public int exitCode() {
    return exitCode;
  }

  /** The run's summary line, or null when the command printed none (a command that is no run). */
  public String summaryLine() {
    return summaryLine;
  }

  static String message(String command, int exitCode, String summaryLine) {
    return "statesweep " + command + " failed with exit code " + exitCode + " (" + meaning(exitCode) + "); "
        + (summaryLine == null ? "no summary line" : summaryLine);
  }

  /**
   * What an exit code means, as the command line's documentation says; every code of the table of failures
   * ({@link StatesweepCli#FAILURES}) has its meaning here (a refused plan is exit 2, as bad settings).
   */
  static String meaning(int exitCode) {
    return switch (exitCode) {
      case StatesweepCli.RUN_FAILED -> "a run with errors or that did not complete";
      case StatesweepCli.BAD_SETTINGS -> "bad settings, or a run that deletes without a run lock it can hold";
      case StatesweepCli.LOCKED -> "another run holds the export's run lock";
      case StatesweepCli.LOST_FILES -> "a run that lost files that --fail-on names";
      default -> "unknown exit code";
    };
  }
}
