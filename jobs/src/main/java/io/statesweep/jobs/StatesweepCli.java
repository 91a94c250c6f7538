package io.statesweep.jobs;

import io.statesweep.config.FileSource;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Setting;
import io.statesweep.config.Settings;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.RunLock;
import io.statesweep.spark.ExecuteResult;
import io.statesweep.spark.HadoopFiles;
import io.statesweep.spark.LockOutcome;
import io.statesweep.spark.PlanResult;
import io.statesweep.spark.RunResult;
import io.statesweep.spark.SparkExecuteAction;
import io.statesweep.spark.SparkApproveAction;
import io.statesweep.spark.SparkPlanAction;
import io.statesweep.spark.SparkRunAction;
import io.statesweep.spark.Tables;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The command line: {@code plan} (a dry run that writes the Delta report), {@code run} (plan, then
 * with {@code --execute} delete), {@code execute --run-id} (a reviewed plan) and {@code demo} (the
 * embedded default: a local S3 server with a generated archive, then {@code plan}). Exit codes: 0 a
 * complete run without errors, 1 a run with errors or that did not complete, 2 bad settings (or a run that
 * deletes without the permissions of the run lock), 3 another run holds the export's run lock.
 *
 * <p>Every run of {@code plan}, {@code run} and {@code execute} ends with its summary line, whatever stops
 * it (spec section 4): one that stops before it counts anything prints {@link RunSummary#stopped}.
 */
public final class StatesweepCli {
  static final int OK = 0;
  static final int RUN_FAILED = 1;
  static final int BAD_SETTINGS = 2;
  static final int LOCKED = 3;
  private static final String RUN_ID = "--run-id";
  private static final String BY = "--by";
  private static final String NOTE = "--note";

  private StatesweepCli() {}

  /**
   * Runs a command and ends the way the launcher reads an end ({@link Launcher}): a normal return on
   * success; on failure the exit code under {@code java -cp} and spark-submit's client mode, a
   * {@link StatesweepFailure} (exit code and summary line) in YARN cluster mode and on Databricks.
   */
  public static void main(String[] args) {
    Launcher launcher = Launcher.detect(System.getenv(), Launcher.sparkProperties(System.getProperties()));
    boolean sessionCreatedHere = SparkSession.getDefaultSession().isEmpty();
    Launcher.SummaryWatch watch = new Launcher.SummaryWatch(System.out, Charset.defaultCharset());
    PrintStream out = new PrintStream(watch, true, Charset.defaultCharset());
    int code = run(args, System.getenv(), out, System.err);
    out.flush();
    launcher.end(args.length == 0 ? "help" : args[0], code, watch.lastSummaryLine(), sessionCreatedHere,
        Launcher.Platform.JVM);
  }

  /** Runs a command in this JVM; the Spark session it used stays open for the caller. */
  static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "help" : args[0];
    Ending ending = new Ending(command, args, environment, out);
    try {
      switch (command) {
        case "plan" -> {
          CommandLine commandLine = CommandLine.parse(args);
          if (commandLine.help()) {
            out.print(help("plan", "Lists the export, reads every state file, plans each record and writes the"
                + " dry-run report (Delta tables state_files, deletion_plan, runs). Deletes nothing."));
            return OK;
          }
          Settings settings = settings(commandLine.flags(), environment, commandLine.configFile());
          ending.settings(settings);
          return plan(options(settings), settings, ending, err);
        }
        case "run" -> {
          CommandLine commandLine = CommandLine.parse(args);
          if (commandLine.help()) {
            out.print(help("run", "The scheduled job: plan, then with --execute (or dry_run=false) delete what the"
                + " plan says, each record verified right before its keys go. Without --execute it is plan."));
            return OK;
          }
          Settings settings = settings(commandLine.flags(), environment, commandLine.configFile());
          ending.settings(settings);
          return run(options(settings), ending, err);
        }
        case "execute" -> {
          CommandLine commandLine = CommandLine.parse(args, java.util.Set.of(RUN_ID));
          if (commandLine.help()) {
            out.print(help("execute", "Executes a plan written earlier (after review), exactly as planned: give"
                + " --run-id ID and the plan's --bucket and --prefix. It never deletes a key that is not in that"
                + " plan, and can be run again to finish an attempt that stopped."));
            return OK;
          }
          Map<String, String> flags = new java.util.LinkedHashMap<>(commandLine.flags());
          String runId = flags.remove(RUN_ID);
          if (runId == null || runId.isBlank()) {
            throw new IllegalArgumentException("Missing --run-id: the run_id of the plan to execute (table runs)");
          }
          Settings settings = settings(flags, environment, commandLine.configFile());
          Settings.Value dryRun = settings.value(Settings.DRY_RUN);
          if (!dryRun.source().equals("default") && settings.bool(Settings.DRY_RUN)) {
            throw new IllegalArgumentException("The execute command deletes, but dry_run is true (from "
                + dryRun.source() + "): unset it, or use plan for a dry run");
          }
          return execute(options(settings), runId, ending, err);
        }
        case "approve" -> {
          CommandLine commandLine = CommandLine.parse(args, java.util.Set.of(RUN_ID, BY, NOTE));
          if (commandLine.help()) {
            out.print(help("approve", "Records that you reviewed the plan of --run-id ID and approve its execution"
                + " (table approvals: who, when, --note, and what the plan deletes). execute --run-id refuses a"
                + " plan that nobody approved. Options: --run-id ID, --by NAME (required), --note TEXT, and the"
                + " plan's --warehouse."));
            return OK;
          }
          Map<String, String> flags = new java.util.LinkedHashMap<>(commandLine.flags());
          String runId = flags.remove(RUN_ID);
          String by = flags.remove(BY);
          String note = flags.remove(NOTE);
          if (runId == null || runId.isBlank()) {
            throw new IllegalArgumentException("Missing --run-id: the run_id of the plan you reviewed (table runs)");
          }
          Settings settings = settings(flags, environment, commandLine.configFile());
          return approve(settings, runId, by, note, out);
        }
        case "help", "--help", "-h" -> {
          out.print(usage());
          return OK;
        }
        default -> {
          err.println("Unknown command '" + command + "'.");
          err.print(usage());
          return BAD_SETTINGS;
        }
      }
    } catch (IllegalArgumentException e) {
      err.println("statesweep: " + e.getMessage());
      ending.stopped("bad_settings", 0);
      return BAD_SETTINGS;
    } catch (RunLock.HeldException e) {
      err.println("statesweep: " + e.getMessage());
      ending.stopped("lock_held", 0);
      return LOCKED;
    } catch (RunLock.DeniedException e) {
      // Only a run that deletes gets here: a dry run goes on without the lock.
      err.println("statesweep: " + e.getMessage() + ". A run that deletes needs the lock: nothing was deleted");
      ending.stopped("lock_denied", 1);
      return BAD_SETTINGS;
    } catch (RunLock.UnavailableException e) {
      err.println("statesweep: " + e.getMessage());
      ending.stopped("lock_unavailable", 1);
      return RUN_FAILED;
    } catch (Exception e) {
      err.println("statesweep: " + e);
      ending.stopped("failed", 1);
      return RUN_FAILED;
    }
  }

  /**
   * Flags, then environment, then the {@code --config-file}, read through Hadoop's FileSystem (s3://, s3a://,
   * dbfs:/, file: or a local path). What reaches the file (an S3-compatible endpoint) comes from the flags
   * and the environment only: the file cannot say where it is itself.
   */
  static Settings settings(Map<String, String> flags, Map<String, String> environment, String configFile) {
    if (configFile == null) {
      return Settings.resolve(flags, environment, null);
    }
    Settings reach = Settings.resolve(flags, environment, null);
    return Settings.resolve(flags, environment, configFile, hadoopFiles(reach));
  }

  /** The run's options; a {@code --layout} file is read through Hadoop's FileSystem, as the settings reach it. */
  static RunOptions options(Settings settings) {
    return RunOptions.from(settings, hadoopFiles(settings));
  }

  /** Hadoop's FileSystem, made on the first read (a built-in layout reads nothing). */
  private static FileSource hadoopFiles(Settings settings) {
    return (location, maxBytes) -> HadoopFiles.beforeTheRun(RunOptions.s3(settings)).read(location, maxBytes);
  }

  /**
   * Where a run's lines go, and the guarantee that its last one is a summary line: a run that stops
   * before its own summary gets {@link RunSummary#stopped}, with {@code dry_run} from what could be read.
   */
  static final class Ending {
    private static final java.util.Set<String> RUNS = java.util.Set.of("plan", "run", "execute");

    private final String command;
    private final String[] args;
    private final Map<String, String> environment;
    private final PrintStream out;
    private Settings settings;
    private boolean summaryPrinted;

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
      out.println(summary.line());
      summaryPrinted = true;
    }

    /** The summary of a run stopped before it counted anything; nothing for a command that is no run. */
    void stopped(String reason, long errors) {
      if (!summaryPrinted && RUNS.contains(command)) {
        summary(RunSummary.stopped(dryRun(), reason, errors));
      }
    }

    /**
     * Whether the stopped run was a dry run, as far as its settings could be read: plan always is,
     * execute never; run as its resolved settings say, else its flags, else its environment, else true.
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
   * it (to {@code err}), or the loss (to {@code out}, before the run's other lines).
   */
  private static void print(LockOutcome runLock, PrintStream out, PrintStream err) {
    String line = runLock.line();
    if (line != null) {
      (runLock.status() == LockOutcome.Status.NONE ? err : out).println("statesweep: " + line);
    }
  }

  /** The scheduled job: {@link SparkRunAction} plans, then with --execute deletes, under one run lock. */
  static int run(RunOptions options, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    SparkSession spark = SparkSessions.forPlan("statesweep run", options);
    RunResult result = new SparkRunAction(spark, options).execute();
    if (result.execution() == null) {
      print(result.plan(), ending, err);
      return result.exitCode() == 0 ? OK : RUN_FAILED;
    }
    // Deleting: the plan's refused, coming-back and skipped lines stay; its would-delete lines do not.
    result.plan().logLines().stream().filter(line -> !line.startsWith("would delete ")).forEach(out::println);
    print(result.execution(), ending, err);
    return result.exitCode() == 0 ? OK : RUN_FAILED;
  }

  static int approve(Settings settings, String runId, String by, String note, PrintStream out) {
    String warehouse = settings.string(Settings.WAREHOUSE).trim();
    SparkSession spark = SparkSessions.forTables("statesweep approve", warehouse, RunOptions.s3(settings), false);
    SparkApproveAction.Approval approval = new SparkApproveAction(spark, new Tables(warehouse)).approve(runId, by, note);
    out.println(approval.line());
    out.println("execute it with: statesweep execute --run-id " + runId + " (and the plan's --bucket, --prefix and"
        + " --warehouse)");
    return OK;
  }

  static int execute(RunOptions options, String runId, Ending ending, PrintStream err) {
    SparkSession spark = SparkSessions.forPlan("statesweep execute", options);
    ExecuteResult result = new SparkExecuteAction(spark, options, runId).execute();
    print(result, ending, err);
    return result.exitCode() == 0 ? OK : RUN_FAILED;
  }

  static void print(ExecuteResult result, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    print(result.runLock(), out, err);
    result.logLines().forEach(out::println);
    if (result.failure() != null) {
      out.println("run " + result.runId() + " attempt " + result.attemptId() + " did not complete: "
          + result.failure() + " (execute --run-id " + result.runId() + " again finishes the rest)");
    }
    out.println("conditional deletes: " + result.conditionalDeletes());
    out.println("tables: executions=" + result.tables().executions() + " runs=" + result.tables().runs());
    out.println("metrics: " + result.metricsJson());
    ending.summary(result.summary());
  }

  /** A plan outside a command line's run (the demo). */
  static int plan(RunOptions options, Settings settings, PrintStream out, PrintStream err) {
    return plan(options, settings, new Ending("plan", new String[] {"plan"}, Map.of(), out), err);
  }

  static int plan(RunOptions options, Settings settings, Ending ending, PrintStream err) {
    if (!options.dryRun()) {
      Settings.Value value = settings.value(Settings.DRY_RUN);
      throw new IllegalArgumentException("The plan command never deletes, but dry_run is false (from "
          + value.source() + "): use run --execute to delete, or execute --run-id for a reviewed plan");
    }
    SparkSession spark = SparkSessions.forPlan("statesweep plan", options);
    PlanResult result = new SparkPlanAction(spark, options).execute();
    print(result, ending, err);
    return result.exitCode() == 0 ? OK : RUN_FAILED;
  }

  /**
   * The plan's lines and summary; a plan without the run lock says so in a last pair, {@code run_lock=none},
   * and one that lost it, {@code run_lock=lost}.
   */
  static void print(PlanResult result, Ending ending, PrintStream err) {
    PrintStream out = ending.out();
    print(result.runLock(), out, err);
    result.logLines().forEach(out::println);
    RunSummary summary = result.summary();
    long wouldDelete = summary.recordsDeleted() + summary.childKeysDeleted();
    long printed = result.logLines().stream().filter(line -> line.startsWith("would delete ")).count();
    if (printed < wouldDelete) {
      out.println("(" + (wouldDelete - printed) + " more 'would delete' keys: see table deletion_plan, run_id "
          + result.runId() + ", or pass --log-lines all)");
    }
    if (result.failure() != null) {
      out.println("run " + result.runId() + " did not complete: " + result.failure());
    }
    out.println("tables: state_files=" + result.tables().stateFiles() + " deletion_plan="
        + result.tables().deletionPlan() + " runs=" + result.tables().runs());
    out.println("metrics: " + result.metricsJson());
    ending.summary(summary);
  }

  static String usage() {
    return """
        usage: statesweep <command> [options]

        commands:
          plan     list the export, read every state file, plan each record, write the dry-run report
          run      the scheduled job: plan, then with --execute delete what the plan says
          approve  record that you reviewed a plan (--run-id, --by) so that execute may run it
          execute  execute a plan written earlier and approved (--run-id), exactly as planned
          help     this text

        '<command> --help' lists the command's options.
        """;
  }

  static String help(String command, String what) {
    StringBuilder text = new StringBuilder("usage: statesweep " + command + " [options]\n\n" + what + "\n\n");
    text.append("Options (a flag wins over its environment variable, which wins over --config-file FILE, which wins"
        + " over the default):\n");
    for (Setting setting : Settings.ALL) {
      text.append(String.format("  %-22s %s%n", setting.flag() + (setting.flag().equals("--dry-run") ? "" : " V"),
          setting.help()));
      text.append(String.format("  %-22s default: %s; env %s; config-file key %s%n", "",
          setting.defaultValue() == null ? "(none)" : setting.defaultValue().isEmpty() ? "(empty)" : setting.defaultValue(),
          setting.environment(), setting.key()));
    }
    text.append(String.format("  %-22s %s%n", "--execute", "same as --dry-run false"));
    text.append(String.format("  %-22s %s%n", "--config-file FILE", "a properties file of sweep.* keys"));
    text.append("\nCredentials come only from the AWS SDK's default provider chain (environment, profile, role).\n");
    return text.toString();
  }
}
