package io.statesweep.jobs;

import io.statesweep.config.PlanOptions;
import io.statesweep.config.Setting;
import io.statesweep.config.Settings;
import io.statesweep.plan.RunSummary;
import io.statesweep.spark.PlanResult;
import io.statesweep.spark.SparkPlanAction;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The command line: {@code plan} (a dry run that writes the Delta report) and {@code demo} (the
 * embedded default: a local S3 server with a generated archive, then {@code plan}). Exit codes: 0 a
 * complete run without errors, 1 a run with errors or that did not complete, 2 bad settings.
 */
public final class StatesweepCli {
  static final int OK = 0;
  static final int RUN_FAILED = 1;
  static final int BAD_SETTINGS = 2;

  private StatesweepCli() {}

  public static void main(String[] args) {
    int code = run(args, System.getenv(), System.out, System.err);
    if (SparkSession.getDefaultSession().isDefined()) {
      SparkSession.getDefaultSession().get().stop();
    }
    System.exit(code);
  }

  /** Runs a command in this JVM; the Spark session it used stays open for the caller. */
  static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "help" : args[0];
    try {
      switch (command) {
        case "plan" -> {
          CommandLine commandLine = CommandLine.parse(args);
          if (commandLine.help()) {
            out.print(help("plan", "Lists the export, reads every state file, plans each record and writes the"
                + " dry-run report (Delta tables state_files, deletion_plan, runs). Deletes nothing."));
            return OK;
          }
          Settings settings = Settings.resolve(commandLine.flags(), environment,
              commandLine.confFile() == null ? null : Path.of(commandLine.confFile()));
          return plan(PlanOptions.from(settings), settings, out);
        }
        case "demo" -> {
          return Demo.run(args, environment, out, err);
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
      return BAD_SETTINGS;
    }
  }

  static int plan(PlanOptions options, Settings settings, PrintStream out) {
    if (!options.dryRun()) {
      Settings.Value value = settings.value(Settings.DRY_RUN);
      throw new IllegalArgumentException("The plan command never deletes, but dry_run is false (from "
          + value.source() + "). Deleting is not part of this build yet: use --dry-run or unset it.");
    }
    SparkSession spark = SparkSessions.forPlan("statesweep plan", options);
    PlanResult result = new SparkPlanAction(spark, options).execute();
    print(result, options, out);
    return result.summary().exitCode() == 0 ? OK : RUN_FAILED;
  }

  static void print(PlanResult result, PlanOptions options, PrintStream out) {
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
    out.println(summary.line());
  }

  static String usage() {
    return """
        usage: statesweep <command> [options]

        commands:
          plan   list the export, read every state file, plan each record, write the dry-run report
          demo   start a local S3 server with a generated archive and run plan on it
          help   this text

        '<command> --help' lists the command's options.
        """;
  }

  static String help(String command, String what) {
    StringBuilder text = new StringBuilder("usage: statesweep " + command + " [options]\n\n" + what + "\n\n");
    text.append("Options (a flag wins over its environment variable, which wins over --conf FILE, which wins over"
        + " the default):\n");
    for (Setting setting : Settings.ALL) {
      text.append(String.format("  %-22s %s%n", setting.flag() + (setting.flag().equals("--dry-run") ? "" : " V"),
          setting.help()));
      text.append(String.format("  %-22s default: %s; env %s; conf %s%n", "",
          setting.defaultValue() == null ? "(none)" : setting.defaultValue().isEmpty() ? "(empty)" : setting.defaultValue(),
          setting.environment(), setting.key()));
    }
    text.append(String.format("  %-22s %s%n", "--execute", "same as --dry-run false"));
    text.append(String.format("  %-22s %s%n", "--conf FILE", "a properties file of sweep.* keys"));
    text.append("\nCredentials come only from the AWS SDK's default provider chain (environment, profile, role).\n");
    return text.toString();
  }
}
