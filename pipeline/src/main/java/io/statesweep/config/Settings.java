package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.execute.ConditionalMode;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.plan.FailOn;
import io.statesweep.plan.Grace;
import io.statesweep.scan.InventoryManifest;
import io.statesweep.store.FileSource;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Resolves settings from, in this order of precedence: command-line flags, environment variables
 * ({@code COGRAM_CLEANUP_*} as in the reference script, {@code STATESWEEP_*} for the rest), a config
 * file ({@code --config-file}, Java properties with dotted keys such as {@code sweep.grace-days}; a local path,
 * or {@code s3://}, {@code s3a://}, {@code dbfs:/}, {@code file:} through a {@link FileSource}), and the
 * defaults. Each resolved value remembers where it came from, so a bad value's message names it.
 */
public final class Settings {

  private static final Set<Command> EVERY = EnumSet.allOf(Command.class);
  /** The commands that act on the export (not approve). */
  private static final Set<Command> EXPORT = EnumSet.of(Command.PLAN, Command.RUN, Command.EXECUTE);
  /** The commands that plan. */
  private static final Set<Command> PLANNING = EnumSet.of(Command.PLAN, Command.RUN);
  /** The commands that may delete. */
  private static final Set<Command> DELETING = EnumSet.of(Command.RUN, Command.EXECUTE);
  /** The commands that act on the export, and restore, which takes its bucket, prefix and run lock. */
  private static final Set<Command> EXPORT_AND_RESTORE = EnumSet.of(Command.PLAN, Command.RUN, Command.EXECUTE,
      Command.RESTORE);
  /** The commands that plan, and restore: a dry run unless told otherwise. */
  private static final Set<Command> DRY_RUN_FIRST = EnumSet.of(Command.PLAN, Command.RUN, Command.RESTORE);
  /** The commands that change the bucket under the run lock: run, execute and restore. */
  private static final Set<Command> LOCKING = EnumSet.of(Command.RUN, Command.EXECUTE, Command.RESTORE);

  public static final Setting<String> BUCKET = Setting.parsed("sweep.bucket", Parsers::bucket)
      .flag("--bucket").environment("COGRAM_CLEANUP_BUCKET").aliases("bucket").takenBy(EXPORT_AND_RESTORE)
      .help("the bucket of the export (required)");
  public static final Setting<ExportPrefix> PREFIX = Setting.parsed("sweep.prefix", Parsers::prefix)
      .flag("--prefix").environment("COGRAM_CLEANUP_PREFIX").aliases("prefix").defaultValue("").takenBy(EXPORT_AND_RESTORE)
      .help("the export's prefix, such as cogram/; empty is the bucket root and needs --allow-bucket-root");
  public static final Setting<Boolean> DRY_RUN = Setting.bool("sweep.dry-run")
      .flag("--dry-run").environment("COGRAM_CLEANUP_DRY_RUN").aliases("dry_run").defaultValue("true").asSwitch()
      .takenBy(DRY_RUN_FIRST)
      .help("true, false, 1 or 0; --execute is --dry-run false");
  public static final Setting<Integer> GRACE_DAYS = Setting.integer("sweep.grace-days", 0, Grace.MAX_DAYS)
      .flag("--grace-days").environment("COGRAM_CLEANUP_GRACE_DAYS").aliases("grace_days").defaultValue("0")
      .takenBy(EXPORT)
      .help("days to wait after a record is marked or expires");
  /** Text here: each kind is checked against the layout ({@link ExportOptions#from}). */
  public static final Setting<String> KIND_GRACE_DAYS = Setting.text("sweep.grace-days.by-kind")
      .flag("--kind-grace-days").environment("STATESWEEP_KIND_GRACE_DAYS").defaultValue("").takenBy(EXPORT)
      .help("grace days by kind folder, overriding --grace-days: such as drawings=90,emails=7");
  public static final Setting<String> REGION = Setting.text("sweep.region")
      .flag("--region").environment("COGRAM_CLEANUP_REGION").aliases("region").takenBy(EVERY)
      .help("the bucket's region (default: the AWS SDK's default region)");
  public static final Setting<Integer> WORKERS = Setting.integer("sweep.workers", 1, 1024)
      .flag("--workers").environment("COGRAM_CLEANUP_WORKERS").aliases("workers").defaultValue("16").takenBy(EXPORT)
      .help("state files read at a time in each Spark task");
  public static final Setting<String> ENDPOINT = Setting.parsed("sweep.endpoint", Parsers::endpoint)
      .flag("--endpoint").environment("STATESWEEP_ENDPOINT").takenBy(EVERY)
      .help("an S3-compatible endpoint URI instead of AWS");
  public static final Setting<Boolean> PATH_STYLE = Setting.bool("sweep.path-style")
      .flag("--path-style").environment("STATESWEEP_PATH_STYLE").asSwitch().takenBy(EVERY)
      .help("path-style addressing (default: true with --endpoint, false on AWS)");
  public static final Setting<String> WAREHOUSE = Setting.parsed("sweep.warehouse", Parsers::trimmed)
      .flag("--warehouse").environment("STATESWEEP_WAREHOUSE").defaultValue("statesweep-warehouse").takenBy(EVERY)
      .help("where the Delta tables go: a local path or s3a://bucket/path");
  /** Text here: the layout is loaded, from a file or built in, by {@link ExportOptions#from}. */
  public static final Setting<String> LAYOUT = Setting.parsed("sweep.layout", Parsers::trimmed)
      .flag("--layout").environment("STATESWEEP_LAYOUT").defaultValue("cogram").takenBy(EXPORT)
      .help("a layout file (a local path, s3://, s3a://, dbfs:/ or file:) or the name of a built-in layout");
  public static final Setting<Boolean> ALLOW_BUCKET_ROOT = Setting.bool("sweep.allow-bucket-root")
      .flag("--allow-bucket-root").environment("STATESWEEP_ALLOW_BUCKET_ROOT").defaultValue("false").asSwitch()
      .takenBy(EXPORT_AND_RESTORE)
      .help("allow an empty prefix: the whole bucket is the export");
  /** How many {@code would delete} lines to print; {@link PlanOptions#ALL_LINES} for all. */
  public static final Setting<Integer> LOG_LINES = Setting.parsed("sweep.log.lines", Parsers::logLines)
      .flag("--log-lines").environment("STATESWEEP_LOG_LINES").defaultValue("100").takenBy(PLANNING)
      .range("0-" + Parsers.MAX_LOG_LINES + ", or 'all' for every one")
      .help("how many 'would delete' lines to print: " + Setting.RANGE + " (refused, coming back, kept and skipped"
          + " lines are always printed in full)");
  public static final Setting<Integer> MAX_STATE_BYTES = Setting.integer("sweep.state.max-bytes", 1024,
          512 * 1024 * 1024)
      .flag("--max-state-bytes").environment("STATESWEEP_MAX_STATE_BYTES").defaultValue("16777216").takenBy(EXPORT)
      .help("a larger state file is a bad state file");

  public static final Setting<Integer> BATCH_SIZE = Setting.integer("sweep.delete.batch-size", 1, 1000)
      .flag("--batch-size").environment("STATESWEEP_BATCH_SIZE").defaultValue("1000").takenBy(DELETING)
      .help("keys per DeleteObjects request");
  public static final Setting<ConditionalMode> CONDITIONAL_DELETES = Setting.choice("sweep.delete.conditional",
          choices("auto", ConditionalMode.AUTO, "on", ConditionalMode.ON, "off", ConditionalMode.OFF))
      .flag("--conditional-deletes").environment("STATESWEEP_CONDITIONAL_DELETES").defaultValue("auto")
      .takenBy(DELETING)
      .help(Setting.RANGE + ": delete each key only if its ETag is still the one verified (auto probes the store"
          + " once)");
  public static final Setting<Integer> MAX_DELETES_PER_SECOND = Setting.integer(
          "sweep.delete.max-keys-per-second", 0, 1_000_000)
      .flag("--max-deletes-per-second").environment("STATESWEEP_MAX_DELETES_PER_SECOND").defaultValue("0")
      .takenBy(DELETING)
      .help("a ceiling on deleted keys per second for the whole job; 0 for none");
  public static final Setting<Boolean> PACING = Setting.choice("sweep.delete.pacing",
          choices("adaptive", Boolean.TRUE, "off", Boolean.FALSE))
      .flag("--pacing").environment("STATESWEEP_PACING").defaultValue("adaptive").takenBy(DELETING)
      .help(Setting.RANGE + ": pace deletes per lane (folder) of the key space, faster while S3 accepts and slower"
          + " when it answers SlowDown");
  public static final Setting<Integer> PARTITION_DELETES_PER_SECOND = Setting.integer(
          "sweep.delete.partition-rate", 50, 1_000_000)
      .flag("--partition-deletes-per-second").environment("STATESWEEP_PARTITION_RATE")
      .defaultValue("3500").takenBy(DELETING)
      .help("S3's documented writes per second per partitioned prefix: a lane's limit until the store shows it takes"
          + " more");
  public static final Setting<Integer> EXPORTER_MARGIN = Setting.integer("sweep.delete.exporter-margin-percent", 0, 90)
      .flag("--exporter-margin").environment("STATESWEEP_EXPORTER_MARGIN").defaultValue("10").takenBy(DELETING)
      .help("after a SlowDown, keep the lane this many percent below the rate at which it came, so that the exporter's"
          + " uploads into the same partition are not throttled; 0 for none");
  public static final Setting<Integer> LANE_DEPTH = Setting.integer("sweep.delete.lane-depth", 1, 16)
      .flag("--lane-depth").environment("STATESWEEP_LANE_DEPTH").defaultValue("2").takenBy(DELETING)
      .help("folders below the prefix that name a lane, such as projects/p1/ at 2");

  public static final Setting<Integer> PAGES_PER_TASK = Setting.integer("sweep.list.pages-per-task", 1, 100_000)
      .flag("--pages-per-task").environment("STATESWEEP_PAGES_PER_TASK").defaultValue("100").takenBy(PLANNING)
      .help("listing pages (1,000 keys each) one task lists before it hands the rest to new tasks");

  public static final Setting<Boolean> REUSE_STATE_FILES = Setting.bool("sweep.state.reuse")
      .flag("--reuse-state-files").environment("STATESWEEP_REUSE_STATE_FILES").defaultValue("true")
      .takenBy(PLANNING)
      .help("take a state file's parsed document from the last complete plan when its ETag is unchanged (no GET)");

  public static final Setting<PlanOptions.Listing> LISTING = Setting.choice("sweep.listing",
          choices("list", PlanOptions.Listing.LIST, "inventory", PlanOptions.Listing.INVENTORY))
      .flag("--listing").environment("STATESWEEP_LISTING").defaultValue("list").takenBy(PLANNING)
      .help(Setting.RANGE + ": list is ListObjectsV2 over the prefix, inventory an S3 Inventory report (see"
          + " --inventory)");
  /** Read only with {@code --listing inventory} ({@link PlanOptions#from} says so of one given without it). */
  public static final Setting<InventoryManifest.Location> INVENTORY = Setting.parsed("sweep.inventory",
          Parsers::inventory)
      .flag("--inventory").environment("STATESWEEP_INVENTORY").takenBy(PLANNING)
      .help("the manifest.json of an S3 Inventory report of the bucket (s3://, s3a://, dbfs:/, file:/ or an absolute"
          + " path), with --listing inventory");

  public static final Setting<Boolean> SKIP_APPROVAL = Setting.bool("sweep.execute.skip-approval")
      .flag("--skip-approval").environment("STATESWEEP_SKIP_APPROVAL").defaultValue("false").asSwitch()
      .takenBy(EnumSet.of(Command.EXECUTE))
      .help("execute --run-id a plan that nobody approved (see the approve command)");
  public static final Setting<Duration> MAX_PLAN_AGE = Setting.parsed("sweep.execute.max-plan-age",
          Parsers::duration)
      .flag("--max-plan-age").environment("STATESWEEP_MAX_PLAN_AGE").defaultValue("24h")
      .takenBy(EnumSet.of(Command.EXECUTE))
      .help("refuse to execute a plan older than this (such as 90m, 24h, 2d): the bucket moves on");

  public static final Setting<Duration> LOCK_TTL = Setting.parsed("sweep.lock.ttl", Parsers::lockTtl)
      .flag("--lock-ttl").environment("STATESWEEP_LOCK_TTL").defaultValue("10m").takenBy(EXPORT_AND_RESTORE)
      .help("how long the run lock lasts unless renewed (renewed every third of it); a dead run's lock is taken over"
          + " after it");

  public static final Setting<Boolean> UNSAFE_LOCK = Setting.bool("sweep.lock.unsafe")
      .flag("--unsafe-lock-without-conditional-writes").environment("STATESWEEP_UNSAFE_LOCK").defaultValue("false")
      .asSwitch().takenBy(LOCKING)
      .help("delete on a store that ignores PutObject If-None-Match: * (the run lock's probe finds it), although the"
          + " lock then cannot keep out a run that starts at the same moment; without it such a store is refused");

  public static final Setting<Integer> PROGRESS_SECONDS = Setting.integer("sweep.log.progress-seconds", 0, 86_400)
      .flag("--progress-seconds").environment("STATESWEEP_PROGRESS_SECONDS").defaultValue("30").takenBy(EXPORT)
      .help("seconds between progress lines on the driver; 0 for none");

  public static final Setting<CatalogSchema> CATALOG_SCHEMA = Setting.parsed("sweep.catalog-schema",
          (Setting.Parser<CatalogSchema>) (setting, value) ->
              value == null ? null : CatalogSchema.parse(value.value(), value.source()))
      .flag("--catalog-schema").environment("STATESWEEP_CATALOG_SCHEMA").takenBy(EVERY)
      .help("register every Delta table by name in this schema (main.statesweep on Unity Catalog, statesweep on a"
          + " Hive metastore or Glue) the first time it is written; the tables stay at --warehouse");

  /** Text here: the price table is read when a run's cost is computed. */
  public static final Setting<String> PRICES = Setting.text("sweep.cost.prices")
      .flag("--prices").environment("STATESWEEP_PRICES").defaultValue("aws").takenBy(EXPORT)
      .help("the price table for a run's cost: the built-in list prices (aws) or a prices file (a local path, s3://,"
          + " s3a://, dbfs:/ or file:)");

  public static final Setting<Integer> MAX_DELETES = Setting.integer("sweep.bound.max-deletes", 0, Integer.MAX_VALUE)
      .flag("--max-deletes").environment("STATESWEEP_MAX_DELETES").defaultValue("0").takenBy(DELETING)
      .help("at most this many keys deleted per run, whole records in key order (the next run goes on); 0 for no"
          + " bound");
  public static final Setting<Long> MAX_BYTES = Setting.parsed("sweep.bound.max-bytes", Parsers::bytes)
      .flag("--max-bytes").environment("STATESWEEP_MAX_BYTES").defaultValue("0").takenBy(DELETING)
      .help("at most this many bytes deleted per run, such as 500G or 2T (K, M, G, T: powers of 1024), whole"
          + " records; 0 for no bound");

  /** Each entry is checked against the prefix by {@link PlanOptions#from}. */
  public static final Setting<List<String>> SCOPE_PREFIXES = Setting.list("sweep.scope.prefixes")
      .flag("--scope-prefix").environment("STATESWEEP_SCOPE_PREFIX").defaultValue("").takenBy(PLANNING)
      .help("plan only the records whose state files are under these folders of the export, comma-separated, such"
          + " as projects/p-0001/,workflows/ (relative to --prefix)");
  public static final Setting<List<String>> SCOPE_PROJECTS = Setting.list("sweep.scope.projects")
      .flag("--projects").environment("STATESWEEP_PROJECTS").defaultValue("").takenBy(PLANNING)
      .help("plan only the records of these projects, comma-separated project ids");
  /** Each entry is checked against the layout by {@link PlanOptions#from}. */
  public static final Setting<List<String>> SCOPE_KINDS = Setting.list("sweep.scope.kinds")
      .flag("--kinds").environment("STATESWEEP_KINDS").defaultValue("").takenBy(PLANNING)
      .help("plan only the records of these kind folders, comma-separated, such as emails,drawings");

  public static final Setting<FailOn> FAIL_ON = Setting.parsed("sweep.fail-on",
          (Setting.Parser<FailOn>) (setting, value) -> FailOn.parse(value.value(), value.source()))
      .flag("--fail-on").environment("STATESWEEP_FAIL_ON").defaultValue("none").takenBy(EXPORT)
      .help("fail the run (exit code 4) when it loses files: came_back (a record came back during its deletion),"
          + " missing (a live record lists a file the bucket lacks), both comma-separated, all, or none");

  /** Every setting, in the order of the help and of the run's record. */
  public static final List<Setting<?>> ALL = List.of(BUCKET, PREFIX, DRY_RUN, GRACE_DAYS, KIND_GRACE_DAYS, REGION,
      WORKERS, ENDPOINT, PATH_STYLE, WAREHOUSE, LAYOUT, ALLOW_BUCKET_ROOT, LOG_LINES, MAX_STATE_BYTES, BATCH_SIZE,
      CONDITIONAL_DELETES, MAX_DELETES_PER_SECOND, PACING, PARTITION_DELETES_PER_SECOND, EXPORTER_MARGIN, LANE_DEPTH,
      PAGES_PER_TASK, REUSE_STATE_FILES, LISTING, INVENTORY,
      SKIP_APPROVAL, MAX_PLAN_AGE, LOCK_TTL, UNSAFE_LOCK, PROGRESS_SECONDS, CATALOG_SCHEMA, PRICES, FAIL_ON,
      MAX_DELETES, MAX_BYTES, SCOPE_PREFIXES, SCOPE_PROJECTS, SCOPE_KINDS);

  private static <E> Map<String, E> choices(String first, E one, String second, E two) {
    Map<String, E> choices = new LinkedHashMap<>();
    choices.put(first, one);
    choices.put(second, two);
    return choices;
  }

  private static <E> Map<String, E> choices(String first, E one, String second, E two, String third, E three) {
    Map<String, E> choices = choices(first, one, second, two);
    choices.put(third, three);
    return choices;
  }

  /** A resolved value and where it came from, such as {@code --grace-days} or {@code COGRAM_CLEANUP_GRACE_DAYS}. */
  public record Value(String value, String source) {}

  private final Map<Setting<?>, Value> values;

  private Settings(Map<Setting<?>, Value> values) {
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
    Map<Setting<?>, Value> values = new LinkedHashMap<>();
    for (Setting<?> setting : ALL) {
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

  public Value value(Setting<?> setting) {
    return values.get(setting);
  }

  public String string(Setting<?> setting) {
    Value value = values.get(setting);
    return value == null ? null : value.value();
  }

  /** The required setting's value, trimmed, or an error that says every way to give it. */
  public String required(Setting<?> setting) {
    String value = string(setting);
    if (value == null || value.isBlank()) {
      throw setting.missing();
    }
    return value.trim();
  }

  /**
   * The setting's value as its declaration reads it ({@link Setting#parse}), or the {@link BadSettingsException}
   * that names the setting, the value and where it came from.
   */
  public <T> T get(Setting<T> setting) {
    return setting.parse(values.get(setting));
  }

  /** A true/false setting's value: {@link #get}. */
  public boolean bool(Setting<Boolean> setting) {
    return get(setting);
  }

  /** Every resolved value by conf key, for the run's record. */
  public Map<String, String> asMap() {
    Map<String, String> map = new LinkedHashMap<>();
    values.forEach((setting, value) -> map.put(setting.key(), value.value()));
    return map;
  }
}
