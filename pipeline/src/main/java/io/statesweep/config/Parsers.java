package io.statesweep.config;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.scan.InventoryManifest;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parsers of the settings that are more than a switch, a number in a range or a choice ({@link Setting}'s own):
 * each reads one value and names the setting, the value and its source when the value is bad.
 */
final class Parsers {
  /** The most {@code would delete} lines a number may ask for ({@code all} asks for every one). */
  static final int MAX_LOG_LINES = 1_000_000;

  private static final Pattern DURATION = Pattern.compile("(\\d{1,6})\\s*([smhd])");
  private static final Pattern BYTES = Pattern.compile("(\\d{1,15})\\s*([KMGT]?)I?B?");

  private Parsers() {}

  /** The value trimmed; null for none. */
  static String trimmed(Setting<String> setting, Settings.Value value) {
    return value == null ? null : value.value().trim();
  }

  /** {@code --bucket}: required, a bucket's name only. */
  static String bucket(Setting<String> setting, Settings.Value value) {
    if (value == null || value.value().isBlank()) {
      throw setting.missing();
    }
    String bucket = value.value().trim();
    if (bucket.contains("/") || bucket.startsWith("s3:")) {
      throw new BadSettingsException("Invalid " + setting.key() + " '" + bucket + "' (from " + value.source()
          + "): give the bucket's name only, the prefix goes in --prefix");
    }
    return bucket;
  }

  /** {@code --prefix}: {@code cogram} and {@code cogram/} are the same; empty is the bucket root. */
  static ExportPrefix prefix(Setting<ExportPrefix> setting, Settings.Value value) {
    try {
      return ExportPrefix.of(value.value().trim());
    } catch (IllegalArgumentException e) {
      throw new BadSettingsException(e.getMessage() + " (from " + value.source() + ")", e);
    }
  }

  /** {@code --endpoint}: a URI with a scheme and a host; null for none. */
  static String endpoint(Setting<String> setting, Settings.Value value) {
    if (value == null) {
      return null;
    }
    String endpoint = value.value();
    try {
      URI uri = URI.create(endpoint);
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new IllegalArgumentException("no scheme or host");
      }
    } catch (IllegalArgumentException e) {
      throw new BadSettingsException("Invalid " + setting.key() + " '" + endpoint + "' (from " + value.source()
          + "): not a URI such as http://127.0.0.1:9000", e);
    }
    return endpoint;
  }

  /** {@code --log-lines}: a number of lines, or {@code all} ({@link PlanOptions#ALL_LINES}). */
  static Integer logLines(Setting<Integer> setting, Settings.Value value) {
    return value.value().trim().equalsIgnoreCase("all") ? PlanOptions.ALL_LINES
        : Setting.integer(setting, value, 0, MAX_LOG_LINES);
  }

  /** {@code --inventory}: the report's {@code manifest.json}; null for none or blank. */
  static InventoryManifest.Location inventory(Setting<InventoryManifest.Location> setting, Settings.Value value) {
    if (value == null || value.value().isBlank()) {
      return null;
    }
    InventoryManifest.Location inventory;
    try {
      inventory = InventoryManifest.Location.parse(value.value());
    } catch (IllegalArgumentException e) {
      throw new BadSettingsException("Invalid " + setting.key() + " '" + value.value() + "' (from " + value.source()
          + "): " + e.getMessage(), e);
    }
    if (!inventory.fileName().equals("manifest.json")) {
      throw setting.invalid(value, "give the report's manifest.json, not its folder or a data file");
    }
    return inventory;
  }

  /** {@code 90m}, {@code 24h} or {@code 2d} (or {@code 30s}, for tests): a whole number and a unit, more than 0. */
  static Duration duration(Setting<Duration> setting, Settings.Value value) {
    Matcher matcher = DURATION.matcher(value.value().trim().toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw setting.invalid(value, "give a number and s, m, h or d, such as " + setting.defaultValue());
    }
    long amount = Long.parseLong(matcher.group(1));
    Duration duration = switch (matcher.group(2)) {
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> Duration.ofDays(amount);
    };
    if (duration.isZero()) {
      throw setting.invalid(value, "must be more than 0");
    }
    return duration;
  }

  /** The run lock's ttl: a {@link #duration} of at least 3 seconds, as it is renewed every third of it. */
  static Duration lockTtl(Setting<Duration> setting, Settings.Value value) {
    Duration ttl = duration(setting, value);
    if (ttl.compareTo(Duration.ofSeconds(3)) < 0) {
      throw setting.invalid(value, "must be at least 3s (the lock is renewed every third of it)");
    }
    return ttl;
  }

  /** {@code --max-bytes}: a whole number of bytes, or one with K, M, G or T (powers of 1024); 0 for none. */
  static Long bytes(Setting<Long> setting, Settings.Value value) {
    Matcher matcher = BYTES.matcher(value.value().trim().toUpperCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw setting.invalid(value, "give a whole number of bytes, or one with K, M, G or T, such as 500G");
    }
    int shift = switch (matcher.group(2)) {
      case "K" -> 10;
      case "M" -> 20;
      case "G" -> 30;
      case "T" -> 40;
      default -> 0;
    };
    long amount = Long.parseLong(matcher.group(1));
    if (amount > (Long.MAX_VALUE >> shift)) {
      throw setting.invalid(value, "too large");
    }
    return amount << shift;
  }
}
