package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.store.FileSource;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Resolves settings from, in this order of precedence: command-line flags, environment variables
 * ({@code COGRAM_CLEANUP_*} as in the reference script, {@code STATESWEEP_*} for the rest), a config
 * file ({@code --config-file}, Java properties with dotted keys such as {@code sweep.grace-days}; a local path,
 * or {@code s3://}, {@code s3a://}, {@code dbfs:/}, {@code file:} through a {@link FileSource}), and the
 * defaults. Each resolved value remembers where it came from, so a bad value's message names it.
 */
public final class Settings {

  public static final Setting BUCKET = new Setting("sweep.bucket", "--bucket", "COGRAM_CLEANUP_BUCKET", null,
      "the bucket of the export (required)", List.of("bucket"));
  public static final Setting PREFIX = new Setting("sweep.prefix", "--prefix", "COGRAM_CLEANUP_PREFIX", "",
      "the export's prefix, such as cogram/; empty is the bucket root and needs --allow-bucket-root",
      List.of("prefix"));
  public static final Setting DRY_RUN = new Setting("sweep.dry-run", "--dry-run", "COGRAM_CLEANUP_DRY_RUN", "true",
      "true, false, 1 or 0; --execute is --dry-run false", List.of("dry_run"));
  public static final Setting GRACE_DAYS = new Setting("sweep.grace-days", "--grace-days",
      "COGRAM_CLEANUP_GRACE_DAYS", "0", "days to wait after a record is marked or expires", List.of("grace_days"));
  public static final Setting KIND_GRACE_DAYS = new Setting("sweep.grace-days.by-kind", "--kind-grace-days",
      "STATESWEEP_KIND_GRACE_DAYS", "",
      "grace days by kind folder, overriding --grace-days: such as drawings=90,emails=7", List.of());
  public static final Setting REGION = new Setting("sweep.region", "--region", "COGRAM_CLEANUP_REGION", null,
      "the bucket's region (default: the AWS SDK's default region)", List.of("region"));
  public static final Setting WORKERS = new Setting("sweep.workers", "--workers", "COGRAM_CLEANUP_WORKERS", "16",
      "state files read at a time in each Spark task (1-1024)", List.of("workers"));
  public static final Setting ENDPOINT = new Setting("sweep.endpoint", "--endpoint", "STATESWEEP_ENDPOINT", null,
      "an S3-compatible endpoint URI instead of AWS", List.of());
  public static final Setting PATH_STYLE = new Setting("sweep.path-style", "--path-style", "STATESWEEP_PATH_STYLE",
      null, "path-style addressing (default: true with --endpoint, false on AWS)", List.of());
  public static final Setting WAREHOUSE = new Setting("sweep.warehouse", "--warehouse", "STATESWEEP_WAREHOUSE",
      "statesweep-warehouse", "where the Delta tables go: a local path or s3a://bucket/path", List.of());
  public static final Setting LAYOUT = new Setting("sweep.layout", "--layout", "STATESWEEP_LAYOUT", "cogram",
      "a layout file (a local path, s3://, s3a://, dbfs:/ or file:) or the name of a built-in layout", List.of());
  public static final Setting ALLOW_BUCKET_ROOT = new Setting("sweep.allow-bucket-root", "--allow-bucket-root",
      "STATESWEEP_ALLOW_BUCKET_ROOT", "false", "allow an empty prefix: the whole bucket is the export", List.of());
  public static final Setting LOG_LINES = new Setting("sweep.log.lines", "--log-lines", "STATESWEEP_LOG_LINES", "100",
      "how many 'would delete' lines to print, 'all' for every one (refused, coming back, kept and skipped lines"
          + " are always printed in full)",
      List.of());
  public static final Setting MAX_STATE_BYTES = new Setting("sweep.state.max-bytes", "--max-state-bytes",
      "STATESWEEP_MAX_STATE_BYTES", "16777216", "a larger state file is a bad state file", List.of());

  public static final Setting BATCH_SIZE = new Setting("sweep.delete.batch-size", "--batch-size",
      "STATESWEEP_BATCH_SIZE", "1000", "keys per DeleteObjects request (1-1000)", List.of());
  public static final Setting CONDITIONAL_DELETES = new Setting("sweep.delete.conditional", "--conditional-deletes",
      "STATESWEEP_CONDITIONAL_DELETES", "auto",
      "auto, on or off: delete each key only if its ETag is still the one verified (auto probes the store once)",
      List.of());
  public static final Setting MAX_DELETES_PER_SECOND = new Setting("sweep.delete.max-keys-per-second",
      "--max-deletes-per-second", "STATESWEEP_MAX_DELETES_PER_SECOND", "0",
      "a ceiling on deleted keys per second for the whole job; 0 for none", List.of());

  public static final Setting PAGES_PER_TASK = new Setting("sweep.list.pages-per-task", "--pages-per-task",
      "STATESWEEP_PAGES_PER_TASK", "100",
      "listing pages (1,000 keys each) one task lists before it hands the rest to new tasks", List.of());

  public static final Setting REUSE_STATE_FILES = new Setting("sweep.state.reuse", "--reuse-state-files",
      "STATESWEEP_REUSE_STATE_FILES", "true",
      "take a state file's parsed document from the last complete plan when its ETag is unchanged (no GET)",
      List.of());

  public static final Setting LISTING = new Setting("sweep.listing", "--listing", "STATESWEEP_LISTING", "list",
      "list (ListObjectsV2 over the prefix) or inventory (an S3 Inventory report, see --inventory)", List.of());
  public static final Setting INVENTORY = new Setting("sweep.inventory", "--inventory", "STATESWEEP_INVENTORY", null,
      "the manifest.json of an S3 Inventory report of the bucket (s3://, s3a://, dbfs:/, file:/ or an absolute"
          + " path), with --listing inventory",
      List.of());

  public static final Setting SKIP_APPROVAL = new Setting("sweep.execute.skip-approval", "--skip-approval",
      "STATESWEEP_SKIP_APPROVAL", "false",
      "execute --run-id a plan that nobody approved (see the approve command)", List.of());
  public static final Setting MAX_PLAN_AGE = new Setting("sweep.execute.max-plan-age", "--max-plan-age",
      "STATESWEEP_MAX_PLAN_AGE", "24h",
      "refuse to execute a plan older than this (such as 90m, 24h, 2d): the bucket moves on", List.of());

  public static final Setting LOCK_TTL = new Setting("sweep.lock.ttl", "--lock-ttl", "STATESWEEP_LOCK_TTL", "10m",
      "how long the run lock lasts unless renewed (renewed every third of it); a dead run's lock is taken over"
          + " after it", List.of());

  public static final Setting UNSAFE_LOCK = new Setting("sweep.lock.unsafe",
      "--unsafe-lock-without-conditional-writes", "STATESWEEP_UNSAFE_LOCK", "false",
      "delete on a store that ignores PutObject If-None-Match: * (the run lock's probe finds it), although the lock"
          + " then cannot keep out a run that starts at the same moment; without it such a store is refused",
      List.of());

  public static final Setting PROGRESS_SECONDS = new Setting("sweep.log.progress-seconds", "--progress-seconds",
      "STATESWEEP_PROGRESS_SECONDS", "30", "seconds between progress lines on the driver; 0 for none", List.of());

  public static final Setting CATALOG_SCHEMA = new Setting("sweep.catalog-schema", "--catalog-schema",
      "STATESWEEP_CATALOG_SCHEMA", null,
      "register every Delta table by name in this schema (main.statesweep on Unity Catalog, statesweep on a Hive"
          + " metastore or Glue) the first time it is written; the tables stay at --warehouse",
      List.of());

  public static final Setting PRICES = new Setting("sweep.cost.prices", "--prices", "STATESWEEP_PRICES", "aws",
      "the price table for a run's cost: the built-in list prices (aws) or a prices file (a local path, s3://,"
          + " s3a://, dbfs:/ or file:)",
      List.of());

  public static final Setting MAX_DELETES = new Setting("sweep.bound.max-deletes", "--max-deletes",
      "STATESWEEP_MAX_DELETES", "0",
      "at most this many keys deleted per run, whole records in key order (the next run goes on); 0 for no bound",
      List.of());
  public static final Setting MAX_BYTES = new Setting("sweep.bound.max-bytes", "--max-bytes", "STATESWEEP_MAX_BYTES",
      "0", "at most this many bytes deleted per run, such as 500G or 2T (K, M, G, T: powers of 1024), whole records;"
          + " 0 for no bound", List.of());

  public static final Setting SCOPE_PREFIXES = new Setting("sweep.scope.prefixes", "--scope-prefix",
      "STATESWEEP_SCOPE_PREFIX", "",
      "plan only the records whose state files are under these folders of the export, comma-separated, such as"
          + " projects/p-0001/,workflows/ (relative to --prefix)", List.of());
  public static final Setting SCOPE_PROJECTS = new Setting("sweep.scope.projects", "--projects",
      "STATESWEEP_PROJECTS", "", "plan only the records of these projects, comma-separated project ids", List.of());
  public static final Setting SCOPE_KINDS = new Setting("sweep.scope.kinds", "--kinds", "STATESWEEP_KINDS", "",
      "plan only the records of these kind folders, comma-separated, such as emails,drawings", List.of());

  public static final Setting FAIL_ON = new Setting("sweep.fail-on", "--fail-on", "STATESWEEP_FAIL_ON", "none",
      "fail the run (exit code 4) when it loses files: came_back (a record came back during its deletion), missing"
          + " (a live record lists a file the bucket lacks), both comma-separated, all, or none", List.of());

  public static final List<Setting> ALL = List.of(BUCKET, PREFIX, DRY_RUN, GRACE_DAYS, KIND_GRACE_DAYS, REGION, WORKERS, ENDPOINT,
      PATH_STYLE, WAREHOUSE, LAYOUT, ALLOW_BUCKET_ROOT, LOG_LINES, MAX_STATE_BYTES, BATCH_SIZE, CONDITIONAL_DELETES,
      MAX_DELETES_PER_SECOND, PAGES_PER_TASK, REUSE_STATE_FILES, LISTING, INVENTORY, SKIP_APPROVAL, MAX_PLAN_AGE, LOCK_TTL, UNSAFE_LOCK,
      PROGRESS_SECONDS, CATALOG_SCHEMA, PRICES, FAIL_ON, MAX_DELETES, MAX_BYTES, SCOPE_PREFIXES, SCOPE_PROJECTS, SCOPE_KINDS);

  /** A resolved value and where it came from, such as {@code --grace-days} or {@code COGRAM_CLEANUP_GRACE_DAYS}. */
  public record Value(String value, String source) {}

  private final Map<Setting, Value> values;

  private Settings(Map<Setting, Value> values) {
    this.values = values;
  }

  /** The largest {@code --config-file} read: a properties file of a few dozen keys. */
  public static final int MAX_CONFIG_FILE_BYTES = 1024 * 1024;

  /**
   * Resolves every setting, with a local config file.
   *
   * @param flags flag values by flag name ({@code --bucket}), already parsed from the command line
   * @param environment the process environment
   * @param configFile the settings file ({@code --config-file}), or null
   */
  public static Settings resolve(Map<String, String> flags, Map<String, String> environment, Path configFile) {
    return resolve(flags, environment, configFile == null ? null : configFile.toString(), FileSource.LOCAL);
  }

  /**
   * Resolves every setting, with a config file read by {@code files} (such as {@code s3a://bucket/statesweep.properties}
   * through Hadoop's FileSystem).
   *
   * @param configFile where the settings file ({@code --config-file}) is, or null
   */
  public static Settings resolve(Map<String, String> flags, Map<String, String> environment, String configFile,
      FileSource files) {
    requireNonNull(files, "files is null");
    if (configFile == null) {
      return resolveText(flags, environment, null, null);
    }
    byte[] bytes;
    try {
      bytes = files.read(configFile, MAX_CONFIG_FILE_BYTES);
    } catch (IOException e) {
      throw new BadSettingsException("Cannot read --config-file " + configFile + ": " + FileSource.reason(e), e);
    }
    return resolveText(flags, environment, configFile, new String(bytes, StandardCharsets.UTF_8));
  }

  /**
   * Resolves every setting, with the text of a config file (Java properties, read as UTF-8).
   *
   * @param configFile where the text was read, for messages and the source of each value; null for none
   * @param configText the config file's text, or null for none
   */
  public static Settings resolveText(Map<String, String> flags, Map<String, String> environment, String configFile,
      String configText) {
    requireNonNull(flags, "flags is null");
    requireNonNull(environment, "environment is null");
    Map<String, String> conf = configText == null ? Map.of() : readConf(configFile, configText);
    Map<Setting, Value> values = new LinkedHashMap<>();
    for (Setting setting : ALL) {
      Value value = null;
      if (flags.containsKey(setting.flag())) {
        value = new Value(flags.get(setting.flag()), setting.flag());
      } else if (setting.environment() != null && environment.get(setting.environment()) != null) {
        value = new Value(environment.get(setting.environment()), setting.environment());
      } else if (conf.containsKey(setting.key())) {
        value = new Value(conf.get(setting.key()), configFile + ": " + setting.key());
      } else {
        for (String alias : setting.confAliases()) {
          if (conf.containsKey(alias)) {
            value = new Value(conf.get(alias), configFile + ": " + alias);
          }
        }
      }
      if (value == null && setting.defaultValue() != null) {
        value = new Value(setting.defaultValue(), "default");
      }
      if (value != null) {
        values.put(setting, value);
      }
    }
    return new Settings(values);
  }

  private static Map<String, String> readConf(String configFile, String text) {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(text));
    } catch (IOException | IllegalArgumentException e) {
      throw new BadSettingsException("Cannot read --config-file " + configFile + ": " + e.getMessage(), e);
    }
    Map<String, String> conf = new LinkedHashMap<>();
    List<String> unknown = new ArrayList<>();
    for (String name : properties.stringPropertyNames()) {
      boolean known = ALL.stream().anyMatch(s -> s.key().equals(name) || s.confAliases().contains(name));
      if (!known) {
        unknown.add(name);
      }
      conf.put(name, properties.getProperty(name).trim());
    }
    if (!unknown.isEmpty()) {
      unknown.sort(null);
      throw new BadSettingsException("Unknown key " + String.join(", ", unknown) + " in --config-file " + configFile
          + "; known keys: " + String.join(", ", ALL.stream().map(Setting::key).toList()));
    }
    return conf;
  }

  public Value value(Setting setting) {
    return values.get(setting);
  }

  public String string(Setting setting) {
    Value value = values.get(setting);
    return value == null ? null : value.value();
  }

  /** The required setting's value, or an error that says every way to give it. */
  public String required(Setting setting) {
    String value = string(setting);
    if (value == null || value.isBlank()) {
      throw new BadSettingsException("Missing " + setting.key().substring("sweep.".length()) + ": give "
          + setting.flag() + ", set " + setting.environment() + ", or put " + setting.key() + " in the --config-file");
    }
    return value.trim();
  }

  /** true/false/1/0 only, as the reference script accepts for dry_run; anything else names its source. */
  public boolean bool(Setting setting) {
    Value value = values.get(setting);
    String text = value.value().trim();
    return switch (text) {
      case "true", "1" -> true;
      case "false", "0" -> false;
      default -> throw new BadSettingsException("Invalid " + setting.key() + " '" + value.value() + "' (from "
          + value.source() + "): use true, false, 1 or 0");
    };
  }

  public int integer(Setting setting, int min, int max) {
    Value value = values.get(setting);
    int parsed;
    try {
      parsed = Integer.parseInt(value.value().trim());
    } catch (NumberFormatException e) {
      throw new BadSettingsException("Invalid " + setting.key() + " '" + value.value() + "' (from "
          + value.source() + "): not a whole number", e);
    }
    if (parsed < min || parsed > max) {
      throw new BadSettingsException("Invalid " + setting.key() + " '" + value.value() + "' (from "
          + value.source() + "): must be from " + min + " to " + max);
    }
    return parsed;
  }

  /** Every resolved value by conf key, for the run's record. */
  public Map<String, String> asMap() {
    Map<String, String> map = new LinkedHashMap<>();
    values.forEach((setting, value) -> map.put(setting.key(), value.value()));
    return map;
  }
}
