package io.statesweep.testing;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of a test's run, as the command line would give them: an archive (endpoint, bucket, prefix), a
 * warehouse, no {@code would delete} lines unless asked, and any other flag. Resolved by the product's own
 * {@link Settings} and {@link RunOptions#from}, so every value is checked as a user's would be.
 */
public final class TestOptions {
  private final Map<String, String> flags = new LinkedHashMap<>();
  private Map<String, String> environment = Map.of();

  private TestOptions() {}

  /** A run of the archive at {@code endpoint}, {@code bucket}, {@code prefix} into {@code warehouse}. */
  public static TestOptions of(String endpoint, String bucket, String prefix, Object warehouse) {
    TestOptions options = new TestOptions();
    options.flags.put("--bucket", bucket);
    options.flags.put("--prefix", prefix);
    options.flags.put("--endpoint", endpoint);
    options.flags.put("--warehouse", warehouse.toString());
    options.flags.put("--log-lines", "0");
    return options;
  }

  /** One more flag, or another value of one given before. */
  public TestOptions with(String flag, String value) {
    flags.put(flag, value);
    return this;
  }

  /** More flags; each replaces the value of one given before. */
  public TestOptions with(Map<String, String> more) {
    flags.putAll(more);
    return this;
  }

  /** No value for {@code flag}: the setting takes its default (or the environment's value). */
  public TestOptions without(String flag) {
    flags.remove(flag);
    return this;
  }

  /** The environment variables the settings see (none by default). */
  public TestOptions environment(Map<String, String> variables) {
    environment = Map.copyOf(variables);
    return this;
  }

  /** The flags so far. */
  public Map<String, String> flags() {
    return new LinkedHashMap<>(flags);
  }

  public RunOptions options() {
    return RunOptions.from(Settings.resolve(flags, environment, null));
  }
}
