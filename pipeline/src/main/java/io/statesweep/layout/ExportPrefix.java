package io.statesweep.layout;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import java.io.Serializable;

/**
 * The export's prefix in the bucket: empty (the bucket root) or a folder ending with a slash, such as
 * {@code cogram/}. {@link #of(String)} adds the missing trailing slash.
 */
public record ExportPrefix(String value) implements Serializable {

  public ExportPrefix {
    requireNonNull(value, "value is null");
    if (!value.isEmpty()) {
      if (!value.endsWith("/")) {
        throw new BadSettingsException("prefix must end with '/': " + value);
      }
      String problem = value.endsWith("//") ? "the key has an empty segment"
          : Keys.shapeProblem(value.substring(0, value.length() - 1));
      if (problem != null) {
        throw new BadSettingsException("Invalid prefix '" + value + "': " + problem.replace("the key", "it"));
      }
    }
  }

  /** Normalises a user's prefix: {@code cogram} and {@code cogram/} are the same prefix. */
  public static ExportPrefix of(String prefix) {
    requireNonNull(prefix, "prefix is null");
    if (prefix.isEmpty() || prefix.endsWith("/")) {
      return new ExportPrefix(prefix);
    }
    return new ExportPrefix(prefix + "/");
  }

  public boolean isBucketRoot() {
    return value.isEmpty();
  }

  public boolean contains(String key) {
    return key.startsWith(value);
  }

  /** The key relative to this prefix; the key must be inside it. */
  public String relative(String key) {
    if (!contains(key)) {
      throw new IllegalArgumentException("key " + key + " is outside the prefix " + value);
    }
    return key.substring(value.length());
  }

  @Override
  public String toString() {
    return value;
  }
}
