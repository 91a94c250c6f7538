package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One setting: its conf key, its flag, the environment variable that also sets it, its default and
 * what it means. The table of all of them is {@link Settings#ALL}.
 */
public record Setting(String key, String flag, String environment, String defaultValue, String help,
    List<String> confAliases) {
  public Setting {
    requireNonNull(key, "key is null");
    requireNonNull(flag, "flag is null");
    requireNonNull(help, "help is null");
    confAliases = List.copyOf(confAliases);
  }
}
