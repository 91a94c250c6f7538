package io.statesweep.api;

import io.statesweep.config.Settings;
import java.util.Map;

/**
 * An action's settings and its one {@link #execute()}. What was set on the action wins over the environment variable,
 * which wins over the config file, which wins over the default (jobs/README.md, "Settings"); a setting the action does
 * not use is refused.
 *
 * @param <A> the action itself, for the fluent setters
 * @param <R> what it returns
 */
public interface Action<A extends Action<A, R>, R> {
  /**
   * Sets a setting by its conf key ({@code sweep.grace-days}) or flag ({@code --grace-days}); a null value unsets it.
   * {@code --config-file} is {@link #configFile}.
   *
   * @throws IllegalArgumentException for a setting that this action does not use
   */
  A option(String name, String value);

  /** {@link #option} for each entry. */
  A options(Map<String, String> options);

  /** The settings file: Java properties of {@code sweep.*} keys, at a path Hadoop's FileSystem reads; null for none. */
  A configFile(String location);

  /** The environment variables to read ({@code COGRAM_CLEANUP_*}, {@code STATESWEEP_*}); the process's by default. */
  A environment(Map<String, String> variables);

  /** Where the Delta tables are: a local path or {@code s3a://bucket/path}; null to unset. */
  A warehouse(String warehouse);

  /** The schema the tables are registered in ({@code main.statesweep}); null to unset. */
  A catalogSchema(String schema);

  /**
   * The settings {@link #execute()} uses, resolved, each with where its value came from.
   *
   * @throws IllegalArgumentException when the config file cannot be read or holds an unknown key
   */
  Settings settings();

  /** Runs the action. */
  R execute();
}
