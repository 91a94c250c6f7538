package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One setting, declared once: its conf key, its flag, the environment variable that also sets it, the
 * reference script's names for it in a config file, its default, how its text becomes a value of type {@code T}
 * (with the exact message of a bad one, naming where the value came from), the range of good values, whether
 * its flag may stand alone as a switch, the commands that take it, and what it means. The command line's
 * options and their help, each command's list of settings ({@link Command#settings()}) and the validation of
 * each command's options ({@link PlanOptions}, {@link ExecuteOptions}, {@link RunOptions}) are derived from these
 * declarations; the table of all of them is {@link Settings#ALL}.
 *
 * <p>Declared with a builder that {@link Builder#help} ends: {@code Setting.integer("sweep.workers", 1, 1024)
 * .flag("--workers").environment("COGRAM_CLEANUP_WORKERS").defaultValue("16").takenBy(EXPORT).help("...")}.
 * Settings are compared by identity: each is one constant of {@link Settings}.
 *
 * @param <T> the type of the setting's value
 */
public final class Setting<T> {

  /** In a setting's help, where its range goes; without it the range follows the help in parentheses. */
  public static final String RANGE = "{range}";

  /**
   * Turns a setting's resolved value into its type, or throws a {@link BadSettingsException} that names the
   * setting, the value and where it came from ({@link Setting#invalid}).
   *
   * @param <T> the type of the value
   */
  @FunctionalInterface
  public interface Parser<T> {
    /**
     * The value of {@code value}, the resolved text of {@code setting}; {@code value} is null when the setting
     * has no default and was not given.
     */
    T parse(Setting<T> setting, Settings.Value value);
  }

  private final String key;
  private final String flag;
  private final String environment;
  private final List<String> confAliases;
  private final String defaultValue;
  private final Parser<T> parser;
  private final String range;
  private final boolean isSwitch;
  private final Set<Command> commands;
  private final String description;

  private Setting(Builder<T> builder, String description) {
    this.key = requireNonNull(builder.key, "key is null");
    this.flag = requireNonNull(builder.flag, "flag of " + key + " is null");
    this.environment = requireNonNull(builder.environment, "environment of " + key + " is null");
    this.confAliases = List.copyOf(builder.confAliases);
    this.defaultValue = builder.defaultValue;
    this.parser = requireNonNull(builder.parser, "parser is null");
    this.range = builder.range;
    this.isSwitch = builder.isSwitch;
    if (builder.commands.isEmpty()) {
      throw new IllegalArgumentException("no command takes " + key);
    }
    this.commands = Set.copyOf(builder.commands);
    this.description = requireNonNull(description, "help of " + key + " is null");
  }

  /** The key in a config file, such as {@code sweep.grace-days}. */
  public String key() {
    return key;
  }

  /** The command line's flag, such as {@code --grace-days}; also a name {@code option(..)} takes. */
  public String flag() {
    return flag;
  }

  /** The environment variable, such as {@code COGRAM_CLEANUP_GRACE_DAYS}. */
  public String environment() {
    return environment;
  }

  /** Other keys a config file may give it by: the reference script's names, such as {@code grace_days}. */
  public List<String> confAliases() {
    return confAliases;
  }

  /** The default as text, as a flag would give it; null for none (the setting then has no value). */
  public String defaultValue() {
    return defaultValue;
  }

  /** The good values in words, such as {@code 1-1024} or {@code auto, on or off}; null where the help says it. */
  public String range() {
    return range;
  }

  /** Whether the flag may stand alone, meaning {@code true}: {@code --allow-bucket-root}. */
  public boolean isSwitch() {
    return isSwitch;
  }

  /** The commands that take the setting. */
  public Set<Command> commands() {
    return commands;
  }

  /** Whether {@code command} takes the setting. */
  public boolean takenBy(Command command) {
    return commands.contains(command);
  }

  /** What the setting means, with its range. */
  public String help() {
    if (range == null) {
      return description;
    }
    return description.contains(RANGE) ? description.replace(RANGE, range) : description + " (" + range + ")";
  }

  /** The value of the resolved {@code value} (null when the setting has none), checked against the range. */
  public T parse(Settings.Value value) {
    return parser.parse(this, value);
  }

  /** The failure of a bad value: {@code Invalid sweep.workers 'x' (from --workers): <why>}. */
  public BadSettingsException invalid(Settings.Value value, String why) {
    return new BadSettingsException("Invalid " + key + " '" + value.value() + "' (from " + value.source() + "): "
        + why);
  }

  /** The failure of a required setting without a value: it says every way to give it. */
  public BadSettingsException missing() {
    return new BadSettingsException("Missing " + key.substring("sweep.".length()) + ": give " + flag + ", set "
        + environment + ", or put " + key + " in the --config-file");
  }

  @Override
  public String toString() {
    return key;
  }

  /** A setting whose value is its text as given (not trimmed), or null when it has none. */
  public static Builder<String> text(String key) {
    return new Builder<>(key, (setting, value) -> value == null ? null : value.value());
  }

  /** A comma-separated list, each entry trimmed, empty entries dropped; empty when the setting has no value. */
  public static Builder<List<String>> list(String key) {
    return new Builder<>(key, (setting, value) -> {
      List<String> entries = new ArrayList<>();
      if (value != null) {
        for (String entry : value.value().split(",")) {
          if (!entry.isBlank()) {
            entries.add(entry.trim());
          }
        }
      }
      return List.copyOf(entries);
    });
  }

  /** {@code true}, {@code false}, {@code 1} or {@code 0} only, as the reference script takes dry_run; null for none. */
  public static Builder<Boolean> bool(String key) {
    return new Builder<>(key, Setting::bool);
  }

  /** A whole number from {@code min} to {@code max}; its range is {@code min-max}. */
  public static Builder<Integer> integer(String key, int min, int max) {
    return new Builder<>(key, (Parser<Integer>) (setting, value) -> integer(setting, value, min, max))
        .range(min + "-" + max);
  }

  /** One of {@code choices}' names (trimmed, any case); its range lists them: {@code auto, on or off}. */
  public static <E> Builder<E> choice(String key, Map<String, E> choices) {
    Map<String, E> copy = new LinkedHashMap<>(choices);
    String names = words(copy.keySet());
    return new Builder<>(key, (Parser<E>) (setting, value) -> {
      E chosen = copy.get(value.value().trim().toLowerCase(Locale.ROOT));
      if (chosen == null) {
        throw setting.invalid(value, "use " + names);
      }
      return chosen;
    }).range(names);
  }

  /** A value {@code parser} reads. */
  public static <T> Builder<T> parsed(String key, Parser<T> parser) {
    return new Builder<>(key, parser);
  }

  /** The parser of {@link #bool}: null for no value. */
  static <S> Boolean bool(Setting<S> setting, Settings.Value value) {
    if (value == null) {
      return null;
    }
    return switch (value.value().trim()) {
      case "true", "1" -> true;
      case "false", "0" -> false;
      default -> throw setting.invalid(value, "use true, false, 1 or 0");
    };
  }

  /** The parser of {@link #integer}. */
  static <S> int integer(Setting<S> setting, Settings.Value value, int min, int max) {
    int parsed;
    try {
      parsed = Integer.parseInt(value.value().trim());
    } catch (NumberFormatException e) {
      throw new BadSettingsException("Invalid " + setting.key() + " '" + value.value() + "' (from "
          + value.source() + "): not a whole number", e);
    }
    if (parsed < min || parsed > max) {
      throw setting.invalid(value, "must be from " + min + " to " + max);
    }
    return parsed;
  }

  /** {@code a, b or c}. */
  private static String words(Collection<String> names) {
    List<String> list = List.copyOf(names);
    if (list.size() == 1) {
      return list.get(0);
    }
    return String.join(", ", list.subList(0, list.size() - 1)) + " or " + list.get(list.size() - 1);
  }

  /**
   * The declaration of a setting; {@link #help} ends it.
   *
   * @param <T> the type of the setting's value
   */
  public static final class Builder<T> {
    private final String key;
    private final Parser<T> parser;
    private String flag;
    private String environment;
    private List<String> confAliases = List.of();
    private String defaultValue;
    private String range;
    private boolean isSwitch;
    private Set<Command> commands = EnumSet.noneOf(Command.class);

    private Builder(String key, Parser<T> parser) {
      this.key = requireNonNull(key, "key is null");
      this.parser = requireNonNull(parser, "parser is null");
    }

    /** The flag, such as {@code --grace-days}. */
    public Builder<T> flag(String name) {
      this.flag = name;
      return this;
    }

    /** The environment variable. */
    public Builder<T> environment(String name) {
      this.environment = name;
      return this;
    }

    /** Other names of the key in a config file. */
    public Builder<T> aliases(String... names) {
      this.confAliases = List.of(names);
      return this;
    }

    /** The default, as text a flag would give. */
    public Builder<T> defaultValue(String text) {
      this.defaultValue = text;
      return this;
    }

    /** The good values in words, for the help. */
    public Builder<T> range(String words) {
      this.range = words;
      return this;
    }

    /** The flag may stand alone, meaning {@code true}. */
    public Builder<T> asSwitch() {
      this.isSwitch = true;
      return this;
    }

    /** The commands that take the setting. */
    public Builder<T> takenBy(Set<Command> takers) {
      this.commands = EnumSet.copyOf(takers);
      return this;
    }

    /** What the setting means ({@link Setting#RANGE} where its range goes, if not at the end): the setting. */
    public Setting<T> help(String description) {
      return new Setting<>(this, description);
    }
  }
}
