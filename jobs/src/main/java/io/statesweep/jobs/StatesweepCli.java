package io.statesweep.jobs;

import io.statesweep.api.Action;
import io.statesweep.api.Approval;
import io.statesweep.api.ApproveAction;
import io.statesweep.api.ExecuteAction;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LockOutcome;
import io.statesweep.api.LogLine;
import io.statesweep.api.PlanAction;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RestoreAction;
import io.statesweep.api.RestoreResult;
import io.statesweep.api.RunAction;
import io.statesweep.api.RunResult;
import io.statesweep.config.Settings;
import io.statesweep.plan.LineText;
import io.statesweep.plan.RunSummary;
import io.statesweep.store.StoreException;
import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.api.failures.RestoreRefusedException;
import io.statesweep.api.failures.RunLockException;
import io.statesweep.spark.Statesweep;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;

/**
 * The command line: {@code plan} (a dry run that writes the Delta report), {@code run} (plan, then
 * with {@code --execute} delete), {@code approve --run-id} (record a review), {@code execute --run-id} (a
 * reviewed plan), {@code restore --run-id} (undo a run on a versioned bucket). Its options and help come from picocli ({@link Commands}); each command is a thin caller of
 * the action API ({@link Statesweep}), with a Spark session made from the resolved settings. Exit codes: 0 a
 * complete run without errors, 1 a run with errors or that did not complete, 2 bad settings or a refused plan (or a
 * run that deletes without a run lock it can hold: the lock's permissions are missing, or the store ignores its
 * conditional write), 3 another run holds the export's run lock, 4 a run that lost files that {@code --fail-on}
 * names (it completed without errors otherwise). A failure's exit code comes from its type ({@link #FAILURES}); any
 * other exception is a bug: exit 1, its stack trace printed.
 *
 * <p>Every run of {@code plan}, {@code run}, {@code execute} and {@code restore} ends with its summary line, whatever stops
 * it (pipeline/README.md, "The summary line"): one that stops before it counts anything prints {@link
 * RunSummary#stopped}.
 */
public final class StatesweepCli {
  static final int OK = 0;
  static final int RUN_FAILED = 1;
  static final int BAD_SETTINGS = 2;
  static final int LOCKED = 3;
  static final int LOST_FILES = RunSummary.LOST_FILES;

  private StatesweepCli() {}

  /**
   * Runs a command and ends the way the launcher reads an end ({@link Launcher}): a normal return on
   * success; on failure the exit code under {@code java -cp} and spark-submit's client mode, a
   * {@link StatesweepFailure} (exit code and summary line) in YARN cluster mode and on Databricks.
   */
  public static void main(String[] args) {
    Launcher launcher = Launcher.detect(System.getenv(), Launcher.sparkProperties(System.getProperties()));
    boolean sessionCreatedHere = SparkSession.getDefaultSession().isEmpty();
    // UTF-8 whatever the platform's charset: a key with a letter the charset lacks would print as '?' otherwise.
    PrintStream out = new PrintStream(System.out, true, java.nio.charset.StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(System.err, true, java.nio.charset.StandardCharsets.UTF_8);
    Ended ended = execute(args, System.getenv(), out, err);
    out.flush();
    err.flush();
    launcher.end(args.length == 0 ? "help" : args[0], ended.code(), ended.summaryLine(), sessionCreatedHere,
        Launcher.Platform.JVM);
  }

  /**
   * How a command ended: its exit code, and the summary line it printed last (null for a command that is no run,
   * such as approve or help), which a launcher that reads exceptions puts in its failure.
   */
  record Ended(int code, String summaryLine) {}

  /** Runs a command in this JVM; the Spark session it used stays open for the caller. */
  static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
    return execute(args, environment, out, err).code();
  }

  /** Runs a command in this JVM and says how it ended; the Spark session it used stays open for the caller. */
  static Ended execute(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "help" : args[0];
    Ending ending = new Ending(command, args, environment, out);
    int code = dispatch(args, environment, ending, err);
    return new Ended(code, ending.summaryLine());
  }

  private static int dispatch(String[] args, Map<String, String> environment, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    String command = args.length == 0 ? "help" : args[0];
    try {
      if (!command.startsWith("-") && !command.equals(Commands.HELP) && Commands.command(command) == null) {
        err.println("Unknown command '" + LineText.escape(command) + "'.");
        err.print(Commands.usage(null));
        return BAD_SETTINGS;
      }
      Commands.Invocation invocation = Commands.parse(args);
      if (invocation.help()) {
        out.print(Commands.usage(invocation.command()));
        return OK;
      }
      Statesweep statesweep = Statesweep.withSessions(
          (action, settings) -> SparkSessions.forSettings("statesweep " + action.label(), settings));
      return switch (invocation.command()) {
        case PLAN -> {
          PlanAction plan = configure(statesweep.plan(), invocation, environment).lines(printer(out));
          ending.settings(plan.settings());
          PlanResult result = plan.execute();
          print(result, ending, err);
          yield ended(result.exitCode(), result.summary(), err);
        }
        case RUN -> {
          RunAction run = configure(statesweep.run(), invocation, environment).lines(printer(out));
          ending.settings(run.settings());
          yield print(run.execute(), ending, err);
        }
        case EXECUTE -> {
          ExecuteAction execute = configure(invocation.latestApproved() ? statesweep.executeLatestApproved()
              : statesweep.execute(invocation.runId()), invocation, environment).lines(printer(out));
          ExecuteResult result = execute.execute();
          print(result, ending, err);
          yield ended(result.exitCode(), result.summary(), err);
        }
        case APPROVE -> {
          ApproveAction approve = configure(statesweep.approve(invocation.runId()), invocation,
              environment).by(invocation.by()).note(invocation.note()).digest(invocation.digest());
          Approval approval = approve.execute();
          out.println(approval.line());
          out.println("execute it with: statesweep execute --run-id " + LineText.escape(approval.runId())
              + " (and the plan's --bucket, --prefix and --warehouse)");
          yield OK;
        }
        case RESTORE -> {
          RestoreAction restore = configure(statesweep.restore(invocation.runId()), invocation, environment)
              .record(invocation.record()).lines(printer(out));
          ending.settings(restore.settings());
          RestoreResult result = restore.execute();
          print(result, ending, err);
          yield result.exitCode();
        }
      };
    } catch (Exception e) {
      return failed(e, ending, err);
    }
  }

  /**
   * How a failure of a kind ends a command: its exit code, the {@code stopped=} reason and {@code errors} of the
   * summary line of a run stopped by it (pipeline/README.md, "The summary line"), and the line to stderr after
   * {@code statesweep: }.
   *
   * @param type the failure, and its subclasses
   */
  record FailureEnd(Class<? extends Exception> type, int code, String stopped, long errors,
      Function<Exception, String> line) {}

  /**
   * The failures that end a command, each with its exit code (conf/deploy/README.md, "Failures page someone"); the
   * first whose type the failure is wins. Any other exception is a bug: {@link #UNEXPECTED}.
   */
  static final List<FailureEnd> FAILURES = List.of(
      new FailureEnd(BadSettingsException.class, BAD_SETTINGS, "bad_settings", 0, Exception::getMessage),
      // A refused plan keeps the exit code and stopped reason it always had.
      new FailureEnd(PlanRefusedException.class, BAD_SETTINGS, "bad_settings", 0, Exception::getMessage),
      // Refused before anything was changed, as a refused plan is: exit 2, with a reason of its own.
      new FailureEnd(RestoreRefusedException.class, BAD_SETTINGS, "restore_refused", 0, Exception::getMessage),
      new FailureEnd(RunLockException.Held.class, LOCKED, "lock_held", 0, Exception::getMessage),
      // Only a run that deletes gets here: a dry run goes on without the lock.
      new FailureEnd(RunLockException.Denied.class, BAD_SETTINGS, "lock_denied", 1,
          e -> e.getMessage() + ". A run that deletes needs the lock: nothing was deleted"),
      // Only a run that deletes gets here: a dry run goes on without the lock.
      new FailureEnd(RunLockException.Untrusted.class, BAD_SETTINGS, "lock_untrusted", 0, Exception::getMessage),
      new FailureEnd(RunLockException.Unavailable.class, RUN_FAILED, "lock_unavailable", 1, Exception::getMessage),
      // The message names the request, the key and the store's answer.
      new FailureEnd(StoreException.class, RUN_FAILED, "failed", 1, Exception::getMessage));

  /** Any other failure: a bug, never bad settings; its line is followed by its stack trace. */
  static final FailureEnd UNEXPECTED = new FailureEnd(Exception.class, RUN_FAILED, "failed", 1, Exception::toString);

  /** The end of {@code failure}'s kind ({@link #FAILURES}), or {@link #UNEXPECTED}. */
  static FailureEnd end(Exception failure) {
    return FAILURES.stream().filter(end -> end.type().isInstance(failure)).findFirst().orElse(UNEXPECTED);
  }

  /** Ends a command that failed: its line (and for {@link #UNEXPECTED} its stack trace), the summary, the code. */
  static int failed(Exception failure, Ending ending, PrintStream err) {
    FailureEnd end = end(failure);
    err.println("statesweep: " + LineText.escape(end.line().apply(failure)));
    if (end == UNEXPECTED) {
      stackTrace(failure).forEach(err::println);
    }
    ending.stopped(end.stopped(), end.errors());
    return end.code();
  }

  /**
   * {@code failure}'s frames and causes as {@link Throwable#printStackTrace()} prints them after its first line, each
   * exception's own line escaped as every printed line is ({@link LineText#escape}): a message cannot forge a line.
   */
  static List<String> stackTrace(Throwable failure) {
    List<String> lines = new java.util.ArrayList<>();
    java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    seen.add(failure);
    frames(failure, new StackTraceElement[0], lines);
    Throwable enclosing = failure;
    for (Throwable cause = failure.getCause(); cause != null && seen.add(cause); cause = cause.getCause()) {
      lines.add("Caused by: " + LineText.escape(cause.toString()));
      frames(cause, enclosing.getStackTrace(), lines);
      enclosing = cause;
    }
    return lines;
  }

  /** The frames of {@code failure} not in common with {@code enclosing}'s last ones, then {@code ... n more}. */
  private static void frames(Throwable failure, StackTraceElement[] enclosing, List<String> lines) {
    StackTraceElement[] trace = failure.getStackTrace();
    int last = trace.length - 1;
    int enclosingLast = enclosing.length - 1;
    while (last >= 0 && enclosingLast >= 0 && trace[last].equals(enclosing[enclosingLast])) {
      last--;
      enclosingLast--;
    }
    for (int i = 0; i <= last; i++) {
      lines.add("\tat " + trace[i]);
    }
    if (last < trace.length - 1) {
      lines.add("\t... " + (trace.length - 1 - last) + " more");
    }
  }

  /**
   * Prints each per-key line as the action produces it: the driver holds no list of them. A line's text is one
   * line, its keys escaped ({@link LogLine}).
   */
  private static Consumer<LogLine> printer(PrintStream out) {
    return line -> out.println(line.text());
  }

  /** The action with the command line's flags, its config file and the process environment. */
  static <A extends Action<A, ?>> A configure(A action, Commands.Invocation invocation,
      Map<String, String> environment) {
    return action.environment(environment).options(invocation.flags()).configFile(invocation.configFile());
  }

  /**
   * Where a run's lines go, and the guarantee that its last one is a summary line: a run that stops
   * before its own summary gets {@link RunSummary#stopped}, with {@code dry_run} from what could be read.
   */
  static final class Ending {
    private static final java.util.Set<String> RUNS = java.util.Set.of("plan", "run", "execute", "restore");

    private final String command;
    private final String[] args;
    private final Map<String, String> environment;
    private final PrintStream out;
    private Settings settings;
    private String summaryLine;

    Ending(String command, String[] args, Map<String, String> environment, PrintStream out) {
      this.command = command;
      this.args = args.clone();
      this.environment = environment;
      this.out = out;
    }

    PrintStream out() {
      return out;
    }

    void settings(Settings resolved) {
      this.settings = resolved;
    }

    void summary(RunSummary summary) {
      summary(summary.line());
    }

    void summary(String line) {
      summaryLine = line;
      out.println(summaryLine);
    }

    /** The summary line printed, or null. */
    String summaryLine() {
      return summaryLine;
    }

    /** The summary of a run stopped before it counted anything; nothing for a command that is no run. */
    void stopped(String reason, long errors) {
      if (summaryLine == null && command.equals(RestoreResult.COMMAND)) {
        summary(RestoreResult.stoppedLine(dryRun(), reason, errors));
      } else if (summaryLine == null && RUNS.contains(command)) {
        summary(RunSummary.stopped(dryRun(), reason, errors));
      }
    }

    /**
     * Whether the stopped run was a dry run, as far as its settings could be read: plan always is,
     * execute never; run and restore as their resolved settings say, else their flags, else the environment, else
     * true.
     */
    private boolean dryRun() {
      if (command.equals("plan") || command.equals("execute")) {
        return command.equals("plan");
      }
      if (settings != null) {
        try {
          return settings.bool(Settings.DRY_RUN);
        } catch (IllegalArgumentException e) {
          return true; // a bad dry_run value is no request to delete
        }
      }
      for (int i = 1; i < args.length; i++) {
        if (args[i].equals("--execute")) {
          return false;
        }
        String value = args[i].startsWith("--dry-run=") ? args[i].substring("--dry-run=".length())
            : args[i].equals("--dry-run") ? (i + 1 < args.length && !args[i + 1].startsWith("--") ? args[i + 1] : "true")
            : null;
        if (value != null) {
          return !value.equals("false") && !value.equals("0");
        }
      }
      String fromEnvironment = environment.get(Settings.DRY_RUN.environment());
      return fromEnvironment == null || !(fromEnvironment.equals("false") || fromEnvironment.equals("0"));
    }
  }

  /**
   * The run lock's line, if the run did not hold it to the end: a dry run's warning that it went on without
   * it (to {@code err}), or the loss (to {@code out}, after the run's per-key lines, before its summary).
   */
  private static void print(LockOutcome runLock, PrintStream out, PrintStream err) {
    String line = runLock.line();
    if (line != null) {
      (runLock.status() == LockOutcome.Status.LOST ? out : err).println("statesweep: " + line);
    }
  }

  /**
   * The end of a run: a dry run's is its plan's; one that deleted printed its plan's refused, coming-back,
   * missing and skipped lines, not its would-delete lines, then its execute's, as they came
   * ({@link io.statesweep.spark.SparkRunAction#lines}), and ends as its execute.
   */
  static int print(RunResult result, Ending ending, PrintStream err) {
    if (result.execution() == null) {
      print(result.plan(), ending, err);
    } else {
      print(result.execution(), ending, err);
    }
    return ended(result.exitCode(), result.summary(), err);
  }

  /**
   * The command's exit code from its result's: 0, {@link #LOST_FILES} (with a line to {@code err} that says which
   * losses failed the run) or {@link #RUN_FAILED}.
   */
  private static int ended(int exitCode, RunSummary summary, PrintStream err) {
    if (exitCode == OK) {
      return OK;
    }
    if (exitCode == LOST_FILES) {
      err.println("statesweep: the run lost files (" + LineText.escape(summary.extra().get(RunSummary.FAILED_ON))
          + ", see its summary) and --fail-on makes that a failure: exit code " + LOST_FILES);
      return LOST_FILES;
    }
    return RUN_FAILED;
  }

  /** A restore's end: the lock's line, where its table is, its metrics and its summary line. */
  static void print(RestoreResult result, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    print(result.runLock(), out, err);
    if (result.failure() != null) {
      out.println("restore " + result.restoreId() + " of run " + LineText.escape(result.runId())
          + " did not complete: " + LineText.escape(result.failure()));
    }
    if (result.dryRun()) {
      out.println("(a dry run: nothing was changed; restore with: statesweep restore --run-id "
          + LineText.escape(result.runId()) + (result.record() == null ? "" : " --record "
          + LineText.escape(result.record())) + " --dry-run false)");
    }
    out.println("tables: restorations=" + LineText.escape(result.tables().restorations()) + " executions="
        + LineText.escape(result.tables().executions()));
    out.println("metrics: " + result.metrics().json());
    ending.summary(result.summaryLine());
  }

  static void print(ExecuteResult result, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    print(result.runLock(), out, err);
    if (result.notExecuted() != null) {
      out.println("nothing to execute: " + LineText.escape(result.notExecuted()));
      ending.summary(result.summary());
      return;
    }
    if (result.failure() != null) {
      out.println("run " + result.runId() + " attempt " + result.attemptId() + " did not complete: "
          + LineText.escape(result.failure()) + " (execute --run-id " + result.runId() + " again finishes the rest)");
    }
    out.println("conditional deletes: " + LineText.escape(result.conditionalDeletes()));
    out.println("tables: executions=" + LineText.escape(result.tables().executions()) + " runs="
        + LineText.escape(result.tables().runs()));
    out.println("metrics: " + result.metricsJson());
    ending.summary(result.summary());
  }

  /**
   * The plan's lines and summary; a plan without the run lock says so in a last pair, {@code run_lock=none},
   * and one that lost it, {@code run_lock=lost}.
   */
  static void print(PlanResult result, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    print(result.runLock(), out, err);
    RunSummary summary = result.summary();
    long wouldDelete = summary.recordsDeleted() + summary.childKeysDeleted();
    long printed = result.lineCount(LogLine.Kind.WOULD_DELETE);
    if (printed < wouldDelete) {
      out.println("(" + (wouldDelete - printed) + " more 'would delete' keys: see table deletion_plan, run_id "
          + result.runId() + ", or pass --log-lines all)");
    }
    if (result.failure() != null) {
      out.println("run " + result.runId() + " did not complete: " + LineText.escape(result.failure()));
    }
    out.println("tables: state_files=" + LineText.escape(result.tables().stateFiles()) + " deletion_plan="
        + LineText.escape(result.tables().deletionPlan()) + " runs=" + LineText.escape(result.tables().runs()));
    out.println("metrics: " + result.metricsJson());
    ending.summary(summary);
  }
}
