package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.execute.ConditionalMode;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Layout;
import io.statesweep.plan.FailOn;
import io.statesweep.plan.Grace;
import io.statesweep.plan.Scope;
import io.statesweep.s3.S3Settings;
import io.statesweep.scan.InventoryManifest;
import io.statesweep.store.FileSource;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;

/**
 * The validated options of a run (planning and execution). Built by {@link #from(Settings)}, which checks every
 * value before any request is sent.
 *
 * @param logLines how many {@code would delete} lines to print; -1 for all (other per-key lines are never capped)
 * @param catalogSchema the schema every table is registered in by name ({@code main.statesweep}), or null
 * @param failOn which lost files fail the run (exit code 4)
 * @param maxDeletes at most this many keys deleted per run, whole records (0: no bound)
 * @param scope which records a plan covers ({@code --scope-prefix}, {@code --projects}, {@code --kinds})
 * @param maxBytes at most this many bytes deleted per run, whole records (0: no bound)
 * @param unsafeLock whether a run that deletes takes the run lock on a store that ignores PutObject
 *     {@code If-None-Match: *} ({@code --unsafe-lock-without-conditional-writes}) instead of refusing it
 */
public record RunOptions(
    String bucket,
    ExportPrefix prefix,
    boolean dryRun,
    int graceDays,
    Map<String, Integer> kindGraceDays,
    S3Settings s3,
    int workers,
    String warehouse,
    Layout layout,
    int logLines,
    int maxStateBytes,
    int batchSize,
    ConditionalMode conditionalDeletes,
    int maxDeletesPerSecond,
    int pagesPerTask,
    boolean reuseStateFiles,
    Listing listing,
    InventoryManifest.Location inventory,
    boolean skipApproval,
    Duration maxPlanAge,
    Duration lockTtl,
    boolean unsafeLock,
    int progressSeconds,
    Map<String, String> settings,
    String catalogSchema,
    FailOn failOn,
    long maxDeletes,
    long maxBytes,
    Scope scope) implements Serializable {

  /** Where the plan's view of the bucket comes from. */
  public enum Listing { LIST, INVENTORY }

  public static final int ALL_LINES = -1;

  public RunOptions {
    requireNonNull(bucket, "bucket is null");
    requireNonNull(prefix, "prefix is null");
    requireNonNull(s3, "s3 is null");
    requireNonNull(warehouse, "warehouse is null");
    requireNonNull(layout, "layout is null");
    requireNonNull(conditionalDeletes, "conditionalDeletes is null");
    requireNonNull(listing, "listing is null");
    requireNonNull(maxPlanAge, "maxPlanAge is null");
    requireNonNull(lockTtl, "lockTtl is null");
    requireNonNull(failOn, "failOn is null");
    requireNonNull(scope, "scope is null");
    if (maxDeletes < 0 || maxBytes < 0) {
      throw new IllegalArgumentException("a run's bounds are 0 (none) or more: " + maxDeletes + ", " + maxBytes);
    }
    if ((listing == Listing.INVENTORY) != (inventory != null)) {
      throw new IllegalArgumentException("an inventory location goes with the inventory listing only");
    }
    settings = Map.copyOf(settings);
    kindGraceDays = Map.copyOf(kindGraceDays);
    if (graceDays < 0) {
      throw new IllegalArgumentException("graceDays must not be negative: " + graceDays);
    }
    CatalogSchema schema = CatalogSchema.parse(catalogSchema, null);
    catalogSchema = schema == null ? null : schema.toString();
  }

  public Duration grace() {
    return Duration.ofDays(graceDays);
  }

  /** The global grace with the overrides by kind. */
  public Grace gracePolicy() {
    return new Grace(graceDays, kindGraceDays);
  }

  /** The options, with a {@code --layout} file read from the local filesystem. */
  public static RunOptions from(Settings settings) {
    return from(settings, FileSource.LOCAL);
  }

  /**
   * The options, with a {@code --layout} file read by {@code files} (such as Hadoop's FileSystem). Each setting is
   * read as {@link Settings} declares it ({@link Settings#get}); here are the checks that involve more than one
   * setting, or a file.
   */
  public static RunOptions from(Settings settings, FileSource files) {
    requireNonNull(files, "files is null");
    String bucket = settings.get(Settings.BUCKET);
    ExportPrefix prefix = settings.get(Settings.PREFIX);
    if (prefix.isBucketRoot() && !settings.bool(Settings.ALLOW_BUCKET_ROOT)) {
      throw new BadSettingsException("Refusing the bucket root as the export prefix: give --prefix (such as"
          + " cogram/), or --allow-bucket-root if the export really fills the whole bucket");
    }
    boolean dryRun = settings.bool(Settings.DRY_RUN);
    int graceDays = settings.get(Settings.GRACE_DAYS);
    int workers = settings.get(Settings.WORKERS);
    S3Settings s3 = s3(settings).withMaxConnections(Math.max(64, workers * 2));
    Layout layout;
    try {
      layout = Layout.load(settings.get(Settings.LAYOUT), files);
    } catch (RuntimeException e) {
      throw new BadSettingsException(e.getMessage() + " (sweep.layout from "
          + settings.value(Settings.LAYOUT).source() + ")", e);
    }
    Map<String, Integer> kindGraceDays = kindGraceDays(settings.value(Settings.KIND_GRACE_DAYS), layout);
    int logLines = settings.get(Settings.LOG_LINES);
    int maxStateBytes = settings.get(Settings.MAX_STATE_BYTES);
    int batchSize = settings.get(Settings.BATCH_SIZE);
    ConditionalMode conditionalMode = settings.get(Settings.CONDITIONAL_DELETES);
    int maxDeletesPerSecond = settings.get(Settings.MAX_DELETES_PER_SECOND);
    int pagesPerTask = settings.get(Settings.PAGES_PER_TASK);
    Listing listing = settings.get(Settings.LISTING);
    Settings.Value listingValue = settings.value(Settings.LISTING);
    Settings.Value inventoryValue = settings.value(Settings.INVENTORY);
    InventoryManifest.Location inventory = null;
    if (listing == Listing.INVENTORY) {
      inventory = settings.get(Settings.INVENTORY);
      if (inventory == null) {
        throw new BadSettingsException("Missing inventory: --listing inventory needs --inventory (or "
            + Settings.INVENTORY.environment() + ", or " + Settings.INVENTORY.key()
            + " in the --config-file) naming the report's manifest.json, such as"
            + " s3://inventory-bucket/" + bucket + "/daily/2026-11-28T01-00Z/manifest.json");
      }
    } else if (inventoryValue != null && !inventoryValue.value().isBlank()) {
      throw new BadSettingsException("sweep.inventory is set (from " + inventoryValue.source()
          + ") but the listing is '" + listingValue.value() + "' (from " + listingValue.source()
          + "): add --listing inventory to plan from the report, or drop the inventory");
    }
    return new RunOptions(bucket, prefix, dryRun, graceDays, kindGraceDays, s3, workers,
        settings.get(Settings.WAREHOUSE), layout, logLines, maxStateBytes, batchSize, conditionalMode,
        maxDeletesPerSecond, pagesPerTask, settings.bool(Settings.REUSE_STATE_FILES), listing, inventory,
        settings.bool(Settings.SKIP_APPROVAL), settings.get(Settings.MAX_PLAN_AGE), settings.get(Settings.LOCK_TTL),
        settings.bool(Settings.UNSAFE_LOCK), settings.get(Settings.PROGRESS_SECONDS), settings.asMap(),
        java.util.Objects.toString(settings.get(Settings.CATALOG_SCHEMA), null),
        settings.get(Settings.FAIL_ON), settings.get(Settings.MAX_DELETES), settings.get(Settings.MAX_BYTES),
        scope(settings, prefix, layout));
  }

  /** {@code --scope-prefix}, {@code --projects}, {@code --kinds}: each a comma-separated list, each entry checked. */
  static Scope scope(Settings settings, ExportPrefix prefix, Layout layout) {
    java.util.List<String> prefixes = new java.util.ArrayList<>();
    for (String entry : settings.get(Settings.SCOPE_PREFIXES)) {
      String message = "Invalid " + Settings.SCOPE_PREFIXES.key() + " '" + settings.string(Settings.SCOPE_PREFIXES)
          + "' (from " + settings.value(Settings.SCOPE_PREFIXES).source() + "): ";
      if (entry.startsWith("/") || entry.startsWith(prefix.value()) && !prefix.isBucketRoot()) {
        throw new BadSettingsException(message + "'" + entry + "' is given relative to the export prefix "
            + prefix + ", such as projects/p-0001/");
      }
      for (String segment : entry.split("/", -1)) {
        if (segment.equals(".") || segment.equals("..")) {
          throw new BadSettingsException(message + "'" + entry + "' has a . or .. folder");
        }
      }
      prefixes.add(prefix.value() + entry);
    }
    java.util.Set<String> projects = new java.util.TreeSet<>();
    for (String entry : settings.get(Settings.SCOPE_PROJECTS)) {
      if (entry.contains("/")) {
        throw new BadSettingsException("Invalid " + Settings.SCOPE_PROJECTS.key() + " '"
            + settings.string(Settings.SCOPE_PROJECTS) + "' (from " + settings.value(Settings.SCOPE_PROJECTS).source()
            + "): '" + entry + "' is no project id (give the folder name under projects/, without a /)");
      }
      projects.add(entry);
    }
    java.util.Set<String> kinds = new java.util.TreeSet<>();
    for (String entry : settings.get(Settings.SCOPE_KINDS)) {
      if (!layout.kinds().contains(entry)) {
        throw new BadSettingsException("Invalid " + Settings.SCOPE_KINDS.key() + " '"
            + settings.string(Settings.SCOPE_KINDS) + "' (from " + settings.value(Settings.SCOPE_KINDS).source()
            + "): '" + entry + "' is not a kind of layout " + layout.name() + "; its kinds are "
            + String.join(", ", new java.util.TreeSet<>(layout.kinds())));
      }
      kinds.add(entry);
    }
    return new Scope(prefixes, projects, kinds);
  }

  /** {@code drawings=90,emails=7}: each a kind folder of the layout, each once, each 0 to 36,500 days. */
  private static Map<String, Integer> kindGraceDays(Settings.Value value, Layout layout) {
    Map<String, Integer> byKind = new java.util.TreeMap<>();
    if (value == null || value.value().isBlank()) {
      return byKind;
    }
    String prefix = "Invalid sweep.grace-days.by-kind '" + value.value() + "' (from " + value.source() + "): ";
    for (String entry : value.value().split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      int equals = entry.indexOf('=');
      if (equals < 0) {
        throw new BadSettingsException(prefix + "'" + entry.trim() + "' is not kind=days, such as emails=7");
      }
      String kind = entry.substring(0, equals).trim();
      String days = entry.substring(equals + 1).trim();
      if (!layout.kinds().contains(kind)) {
        throw new BadSettingsException(prefix + "'" + kind + "' is not a kind of layout " + layout.name()
            + "; its kinds are " + String.join(", ", new java.util.TreeSet<>(layout.kinds())));
      }
      int parsed;
      try {
        parsed = Integer.parseInt(days);
      } catch (NumberFormatException e) {
        throw new BadSettingsException(prefix + "the days of " + kind + ", '" + days + "', are not a whole number",
            e);
      }
      if (parsed < 0 || parsed > Grace.MAX_DAYS) {
        throw new BadSettingsException(prefix + "the days of " + kind + " must be from 0 to " + Grace.MAX_DAYS);
      }
      if (byKind.put(kind, parsed) != null) {
        throw new BadSettingsException(prefix + "kind " + kind + " is given twice");
      }
    }
    return byKind;
  }

  /** The S3 client settings alone (endpoint, addressing, region), validated. */
  public static S3Settings s3(Settings settings) {
    String endpoint = settings.get(Settings.ENDPOINT);
    boolean pathStyle = settings.value(Settings.PATH_STYLE) == null
        ? endpoint != null
        : settings.bool(Settings.PATH_STYLE);
    return S3Settings.defaults()
        .withEndpoint(endpoint, pathStyle)
        .withRegion(settings.get(Settings.REGION));
  }
}
