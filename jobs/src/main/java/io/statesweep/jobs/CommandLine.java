package io.statesweep.jobs;

import static java.util.Objects.requireNonNull;

import io.statesweep.config.Setting;
import io.statesweep.config.Settings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed command line: the command, its flag values ({@code --name value} or {@code --name=value}),
 * the switches that take no value, and the settings file ({@code --config-file FILE}). Unknown flags are
 * errors that list the known ones; {@code --conf} is refused, as it is spark-submit's flag.
 *
 * <p>Only the demo and the delete benchmark still parse with it: the commands use picocli ({@link Commands}).
 * It goes when they leave the product for test scope.
 */
record CommandLine(String command, Map<String, String> flags, String configFile, boolean help) {

  static final String CONFIG_FILE = "--config-file";

  /** Switches: flags that stand alone. {@code --execute} is {@code --dry-run false}. */
  private static final Set<String> SWITCHES = Set.of("--execute", "--allow-bucket-root", "--path-style", "--dry-run",
      "--skip-approval");

  private static final Set<String> BOOLEANS = Set.of("true", "false", "1", "0");

  CommandLine {
    requireNonNull(command, "command is null");
    flags = Map.copyOf(flags);
  }

  static CommandLine parse(String[] args) {
    return parse(args, Set.of());
  }

  /** Parses with {@code extraFlags}: options of the command itself, such as the demo's {@code --records}. */
  static CommandLine parse(String[] args, Set<String> extraFlags) {
    if (args.length == 0) {
      return new CommandLine("help", Map.of(), null, true);
    }
    String command = args[0];
    if (command.equals("--help") || command.equals("-h") || command.equals("help")) {
      return new CommandLine("help", Map.of(), null, true);
    }
    Map<String, String> flags = new LinkedHashMap<>();
    String configFile = null;
    boolean help = false;
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        help = true;
        continue;
      }
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("Unexpected argument '" + arg + "': options start with --; see "
            + command + " --help");
      }
      String name = arg;
      String value = null;
      int equals = arg.indexOf('=');
      if (equals > 0) {
        name = arg.substring(0, equals);
        value = arg.substring(equals + 1);
      }
      if (name.equals("--conf")) {
        throw new IllegalArgumentException("Option --conf is spark-submit's flag (it goes before the jar);"
            + " statesweep's settings file is " + CONFIG_FILE + " FILE");
      }
      if (value == null && name.equals("--dry-run") && i + 1 < args.length && !args[i + 1].startsWith("--")) {
        value = args[++i];
      } else if (value == null && SWITCHES.contains(name) && !name.equals("--execute") && i + 1 < args.length
          && BOOLEANS.contains(args[i + 1])) {
        // A switch may be followed by its value, as --help shows: --skip-approval true.
        value = args[++i];
      } else if (value == null && SWITCHES.contains(name)) {
        value = "true";
      } else if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("Option " + name + " needs a value");
        }
        value = args[++i];
      }
      if (name.equals(CONFIG_FILE)) {
        if (configFile != null) {
          throw new IllegalArgumentException("Option " + CONFIG_FILE + " is given twice");
        }
        configFile = value;
        continue;
      }
      if (name.equals("--execute")) {
        name = Settings.DRY_RUN.flag();
        value = switch (value) {
          case "true" -> "false";
          case "false" -> "true";
          default -> throw new IllegalArgumentException("Option --execute takes no value");
        };
      }
      if (!knownFlags().contains(name) && !extraFlags.contains(name)) {
        throw new IllegalArgumentException("Unknown option " + name + "; known options: " + String.join(", ",
            knownFlags()));
      }
      if (flags.containsKey(name)) {
        throw new IllegalArgumentException("Option " + name + " is given twice");
      }
      flags.put(name, value);
    }
    return new CommandLine(command, flags, configFile, help);
  }

  private static List<String> knownFlags() {
    List<String> known = new ArrayList<>();
    for (Setting setting : Settings.ALL) {
      known.add(setting.flag());
    }
    known.add("--execute");
    known.add(CONFIG_FILE);
    return known;
  }
}
