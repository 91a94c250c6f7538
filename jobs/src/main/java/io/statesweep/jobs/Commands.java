package io.statesweep.jobs;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.config.Command;
import io.statesweep.config.Setting;
import io.statesweep.config.Settings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * The command tree, made with picocli from the settings table: {@code plan}, {@code run}, {@code execute},
 * {@code approve} and {@code help}, each with the options of the settings its action uses
 * ({@link Command#settings()}), each option's help naming its default, its environment variable
 * and its config-file key. picocli only collects the flags that were given: it holds no defaults, so the
 * precedence flag &gt; environment &gt; config file &gt; default stays with {@link Settings#resolve}. An option
 * that the command does not use is an error.
 */
final class Commands {
  static final String CONFIG_FILE = "--config-file";
  static final String EXECUTE = "--execute";
  static final String RUN_ID = "--run-id";
  static final String LATEST_APPROVED = "--latest-approved";
  static final String BY = "--by";
  static final String NOTE = "--note";
  static final String DIGEST = "--digest";
  static final String RECORD = "--record";
  static final String HELP = "help";

  private static final int WIDTH = 140;

  private Commands() {}

  /**
   * A parsed command line: the action and the flags given (by flag name, {@code --execute} as
   * {@code --dry-run false}), or a request for help ({@code command} null: the list of commands).
   */
  record Invocation(Command command, Map<String, String> flags, String configFile, String runId,
      boolean latestApproved, String by, String note, String digest, String record, boolean help) {
    Invocation {
      flags = Map.copyOf(flags);
    }

    static Invocation helpFor(Command command) {
      return new Invocation(command, Map.of(), null, null, false, null, null, null, null, true);
    }
  }

  /** The command named {@code name}, or null. */
  static Command command(String name) {
    for (Command command : Command.values()) {
      if (command.label().equals(name)) {
        return command;
      }
    }
    return null;
  }

  /**
   * Parses {@code args}: the command, then its options.
   *
   * @throws BadSettingsException for an unknown command or option, an option without its value or given
   *     twice, and spark-submit's {@code --conf}
   */
  static Invocation parse(String[] args) {
    for (String arg : args) {
      if (arg.equals("--conf") || arg.startsWith("--conf=")) {
        throw new BadSettingsException("Option --conf is spark-submit's flag (it goes before the jar);"
            + " statesweep's settings file is " + CONFIG_FILE + " FILE");
      }
    }
    if (args.length == 0) {
      return Invocation.helpFor(null);
    }
    if (!args[0].startsWith("-") && !args[0].equals(HELP) && command(args[0]) == null) {
      throw new BadSettingsException("Unknown command '" + args[0] + "'.");
    }
    CommandLine root = tree();
    ParseResult parsed;
    try {
      parsed = root.parseArgs(args);
    } catch (CommandLine.OverwrittenOptionException e) {
      throw new BadSettingsException("Option " + name(e.getOverwritten()) + " is given twice", e);
    } catch (CommandLine.MissingParameterException e) {
      throw new BadSettingsException("Option " + name(e.getMissing().get(0)) + " needs a value", e);
    } catch (CommandLine.UnmatchedArgumentException e) {
      throw unmatched(e);
    } catch (CommandLine.ParameterException e) {
      throw new BadSettingsException(e.getMessage(), e);
    }
    if (!parsed.hasSubcommand()) {
      return Invocation.helpFor(null);
    }
    ParseResult sub = parsed.subcommand();
    String name = sub.commandSpec().name();
    if (name.equals(HELP)) {
      String topic = sub.matchedPositionals().isEmpty() ? null : sub.matchedPositionals().get(0).getValue();
      Command command = topic == null ? null : command(topic);
      if (topic != null && command == null) {
        throw new BadSettingsException("Unknown command '" + topic + "'.");
      }
      return Invocation.helpFor(command);
    }
    Command command = command(name);
    if (sub.isUsageHelpRequested()) {
      return Invocation.helpFor(command);
    }
    Map<String, String> flags = new LinkedHashMap<>();
    String configFile = null;
    String runId = null;
    boolean latestApproved = false;
    String by = null;
    String note = null;
    String digest = null;
    String record = null;
    for (OptionSpec option : sub.matchedOptions()) {
      String flag = option.longestName();
      String value = option.getValue() == null ? null : option.getValue().toString();
      switch (flag) {
        case CONFIG_FILE -> configFile = value;
        case RUN_ID -> runId = value;
        case LATEST_APPROVED -> latestApproved = true;
        case BY -> by = value;
        case NOTE -> note = value;
        case DIGEST -> digest = value;
        case RECORD -> record = value;
        case EXECUTE -> put(flags, Settings.DRY_RUN.flag(), "false");
        default -> put(flags, flag, value);
      }
    }
    if (latestApproved && runId != null) {
      throw new BadSettingsException("Give " + RUN_ID + " or " + LATEST_APPROVED + ", not both: " + RUN_ID
          + " executes the plan you name, " + LATEST_APPROVED + " the newest approved plan of the bucket and prefix");
    }
    return new Invocation(command, flags, configFile, runId, latestApproved, by, note, digest, record, false);
  }

  /**
   * {@code --execute} is {@code --dry-run false}: the two together are one setting given twice (picocli refuses
   * any other option given twice).
   */
  private static void put(Map<String, String> flags, String flag, String value) {
    if (flags.containsKey(flag)) {
      throw new BadSettingsException("Option " + flag + " is given twice (" + EXECUTE + " is " + flag + " false)");
    }
    flags.put(flag, value);
  }

  private static String name(CommandLine.Model.ArgSpec spec) {
    return spec instanceof OptionSpec option ? option.longestName() : spec.paramLabel();
  }

  private static BadSettingsException unmatched(CommandLine.UnmatchedArgumentException e) {
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    String command = spec.name();
    String first = e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0);
    if (!first.startsWith("-")) {
      return new BadSettingsException("Unexpected argument '" + first + "': options start with --; see " + command
          + " --help", e);
    }
    String flag = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
    boolean elsewhere = Settings.ALL.stream().anyMatch(setting -> setting.flag().equals(flag))
        || Set.of(EXECUTE, RUN_ID, LATEST_APPROVED, BY, NOTE, DIGEST, RECORD).contains(flag);
    List<String> known = new ArrayList<>();
    spec.options().stream().filter(option -> !option.usageHelp()).forEach(option -> known.add(option.longestName()));
    return new BadSettingsException("Unknown option: '" + flag + "'" + (elsewhere ? " (" + command
        + " does not use it)" : "") + "; the options of " + command + ": " + String.join(", ", known), e);
  }

  /** The text of {@code statesweep --help} ({@code command} null) or of {@code statesweep <command> --help}. */
  static String usage(Command command) {
    CommandLine root = tree();
    CommandLine target = command == null ? root : root.getSubcommands().get(command.label());
    return target.getUsageMessage(Help.Ansi.OFF);
  }

  /** The whole tree, made afresh for each parse: picocli keeps the values it parsed in the specs. */
  static CommandLine tree() {
    CommandSpec root = CommandSpec.create().name("statesweep");
    root.interpolateVariables(false);
    root.usageMessage()
        .customSynopsis("usage: statesweep <command> [options]%n")
        .synopsisHeading("")
        .commandListHeading("%ncommands:%n")
        .footer("%n'<command> --help' lists the command's options.",
            "%nExit codes: 0 a complete run without errors; 1 a run with errors or that did not complete; 2 bad settings"
                + " (or a run that deletes without the permissions of the run lock); 3 another run holds the export's"
                + " run lock; 4 a run that lost files that --fail-on names. restore: 2 also for a refused restore (no"
                + " versioning, no such run).")
        .width(WIDTH);
    root.addOption(helpOption());
    for (Command command : Command.values()) {
      root.addSubcommand(command.label(), subcommand(command));
    }
    CommandSpec help = CommandSpec.create().name(HELP);
    help.interpolateVariables(false);
    help.usageMessage().description("this text, or '" + HELP + " <command>': the command's options").width(WIDTH)
        .customSynopsis("usage: statesweep help [command]%n").synopsisHeading("");
    help.addPositional(PositionalParamSpec.builder().paramLabel("COMMAND").arity("0..1").type(String.class)
        .description("the command to explain").build());
    root.addSubcommand(HELP, help);
    CommandLine commandLine = new CommandLine(root);
    commandLine.setExpandAtFiles(false);
    commandLine.setAbbreviatedOptionsAllowed(false);
    commandLine.setCaseInsensitiveEnumValuesAllowed(false);
    return commandLine;
  }

  private static CommandSpec subcommand(Command command) {
    CommandSpec spec = CommandSpec.create().name(command.label());
    spec.interpolateVariables(false);
    spec.usageMessage()
        .customSynopsis("usage: statesweep " + command.label() + " [options]")
        .synopsisHeading("")
        .descriptionHeading("%n")
        .description(describe(command))
        .optionListHeading("%nOptions (a flag wins over its environment variable, which wins over --config-file FILE,"
            + " which wins over the default):%n")
        .footer("%nCredentials come only from the AWS SDK's default provider chain (environment, profile, role).")
        .sortOptions(false)
        .longOptionsMaxWidth(30)
        .width(WIDTH);
    switch (command) {
      case EXECUTE -> {
        spec.addOption(option(RUN_ID, "ID", "the run_id of the plan to execute (table runs); this or "
            + LATEST_APPROVED));
        spec.addOption(OptionSpec.builder(LATEST_APPROVED).arity("0").type(boolean.class)
            .description(escape("execute the newest approved complete plan of --bucket and --prefix, made within"
                + " --max-plan-age and not executed completely yet; with none, delete nothing and exit 0 saying why"
                + " (the scheduled job)"))
            .build());
      }
      case APPROVE -> {
        spec.addOption(option(RUN_ID, "ID", "the run_id of the plan you reviewed (table runs); required"));
        spec.addOption(option(BY, "NAME", "who approves the plan, a name or an email (required)"));
        spec.addOption(option(NOTE, "TEXT", "why, or what you looked at (optional)"));
        spec.addOption(option(DIGEST, "SHA", "approve only if the plan's rows still have this digest (the plan_digest"
            + " you reviewed, such as the review notebook shows); optional"));
      }
      case RESTORE -> {
        spec.addOption(option(RUN_ID, "ID", "the run_id of the execute to undo (its summary line; table executions);"
            + " required"));
        spec.addOption(option(RECORD, "KEY", "restore only the record of this state file (its full key, such as"
            + " cogram/projects/p-1/state.json); optional"));
      }
      default -> { }
    }
    for (Setting<?> setting : command.settings()) {
      OptionSpec.Builder builder = OptionSpec.builder(setting.flag()).type(String.class)
          .description(escape(setting.help()), escape("default: " + defaultText(setting) + "; env "
              + setting.environment() + "; config-file key " + setting.key()));
      if (setting.isSwitch()) {
        builder.arity("0..1").paramLabel("true|false").fallbackValue("true");
      } else {
        builder.arity("1").paramLabel("V");
      }
      spec.addOption(builder.build());
      if (setting.equals(Settings.DRY_RUN)) {
        spec.addOption(OptionSpec.builder(EXECUTE).arity("0").type(boolean.class)
            .description("same as --dry-run false").build());
      }
    }
    spec.addOption(option(CONFIG_FILE, "FILE", "a properties file of sweep.* keys (a local path, s3://, s3a://,"
        + " dbfs:/ or file:)"));
    spec.addOption(helpOption());
    return spec;
  }

  private static String[] describe(Command command) {
    return switch (command) {
      case PLAN -> new String[] {"list the export, read every state file, plan each record, write the dry-run report",
          "", "Lists the export, reads every state file, plans each record and writes the dry-run"
          + " report (Delta tables state_files, deletion_plan, runs). Deletes nothing."};
      case RUN -> new String[] {"the scheduled job: plan, then with --execute delete what the plan says", "", "The scheduled job: plan, then with --execute (or dry_run=false) delete what the plan"
          + " says, each record verified right before its keys go. Without --execute it is plan."};
      case EXECUTE -> new String[] {"execute a plan written earlier and approved (--run-id or --latest-approved),"
          + " exactly as planned", "",
          "Executes a plan written earlier and approved, exactly as planned: give --run-id ID (or --latest-approved"
          + " for the newest approved plan) and the plan's --bucket and --prefix. It never deletes a key that is not in that plan, and can be run"
          + " again to finish an attempt that stopped."};
      case APPROVE -> new String[] {"record that you reviewed a plan (--run-id, --by) so that execute may run it", "",
          "Records that you reviewed the plan of --run-id ID and approve its execution (table"
          + " approvals: who, when, --note, what the plan deletes and the digest of its rows). execute --run-id"
          + " refuses a plan that nobody approved. Give the plan's --warehouse."};
      case RESTORE -> new String[] {"undo a run on a versioned bucket: remove the delete markers it wrote (--run-id;"
          + " a dry run unless --dry-run false)", "",
          "Undoes the deletes of run --run-id ID on a bucket with S3 Versioning: for each key the run deleted whose"
          + " latest version is still the delete marker the run wrote (table executions), removes that marker, so the"
          + " version it hid is current again; each record's files first, its state file last. A key written or"
          + " deleted again since is named and left alone. A dry run (the default) says what it would restore;"
          + " --dry-run false (or --execute) restores and records every key in table restorations. Refused on a"
          + " bucket without versioning. Give the run's --bucket, --prefix and --warehouse."};
    };
  }

  private static OptionSpec option(String name, String label, String description) {
    return OptionSpec.builder(name).arity("1").paramLabel(label).type(String.class).description(escape(description))
        .build();
  }

  private static OptionSpec helpOption() {
    return OptionSpec.builder("-h", "--help").usageHelp(true).description("this help").build();
  }

  private static String defaultText(Setting<?> setting) {
    return setting.defaultValue() == null ? "(none)" : setting.defaultValue().isEmpty() ? "(empty)"
        : setting.defaultValue();
  }

  /** picocli formats descriptions ({@code %n} is a line break): a literal {@code %} is {@code %%}. */
  private static String escape(String text) {
    requireNonNull(text, "text is null");
    return text.replace("%", "%%");
  }

  /** The names of the commands, for messages. */
  static List<String> names() {
    return Arrays.stream(Command.values()).map(Command::label).toList();
  }
}
