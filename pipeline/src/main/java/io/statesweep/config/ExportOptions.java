package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Layout;
import io.statesweep.plan.FailOn;
import io.statesweep.plan.Grace;
import io.statesweep.s3.S3Settings;
import io.statesweep.store.FileSource;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;

/**
 * The options every command that acts on the export takes (plan, run and execute): which export, read how, into which
 * tables, with which grace periods. The options of each command hold these and add their own ({@link PlanOptions},
 * {@link ExecuteOptions}, {@link RunOptions}).
 *
 * @param catalogSchema the schema every table is registered in by name ({@code main.statesweep}), or null
 * @param maxStateBytes the largest state file read; a larger one is a bad state (and keeps its record)
 * @param failOn which lost files fail the run (exit code 4)
 * @param settings every setting as resolved, with where its value came from (for the runs table)
 */
public record ExportOptions(
    String bucket,
    ExportPrefix prefix,
    Layout layout,
    S3Settings s3,
    String warehouse,
    String catalogSchema,
    int graceDays,
    Map<String, Integer> kindGraceDays,
    int workers,
    int maxStateBytes,
    Duration lockTtl,
    int progressSeconds,
    FailOn failOn,
    Map<String, String> settings) implements Serializable {

  public ExportOptions {
    requireNonNull(bucket, "bucket is null");
    requireNonNull(prefix, "prefix is null");
    requireNonNull(layout, "layout is null");
    requireNonNull(s3, "s3 is null");
    requireNonNull(warehouse, "warehouse is null");
    requireNonNull(lockTtl, "lockTtl is null");
    requireNonNull(failOn, "failOn is null");
    if (graceDays < 0) {
      throw new IllegalArgumentException("graceDays must not be negative: " + graceDays);
    }
    kindGraceDays = Map.copyOf(kindGraceDays);
    settings = Map.copyOf(settings);
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

  /**
   * The export's options, with a {@code --layout} file read by {@code files} (such as Hadoop's FileSystem). Each
   * setting is read as {@link Settings} declares it ({@link Settings#get}); here are the checks that involve more than
   * one setting, or a file.
   */
  static ExportOptions from(Settings settings, FileSource files) {
    requireNonNull(files, "files is null");
    String bucket = settings.get(Settings.BUCKET);
    ExportPrefix prefix = settings.get(Settings.PREFIX);
    if (prefix.isBucketRoot() && !settings.bool(Settings.ALLOW_BUCKET_ROOT)) {
      throw new BadSettingsException("Refusing the bucket root as the export prefix: give --prefix (such as"
          + " cogram/), or --allow-bucket-root if the export really fills the whole bucket");
    }
    int workers = settings.get(Settings.WORKERS);
    Layout layout;
    try {
      layout = Layout.load(settings.get(Settings.LAYOUT), files);
    } catch (RuntimeException e) {
      throw new BadSettingsException(e.getMessage() + " (sweep.layout from "
          + settings.value(Settings.LAYOUT).source() + ")", e);
    }
    return new ExportOptions(bucket, prefix, layout,
        s3(settings).withMaxConnections(Math.max(64, workers * 2)), settings.get(Settings.WAREHOUSE),
        java.util.Objects.toString(settings.get(Settings.CATALOG_SCHEMA), null), settings.get(Settings.GRACE_DAYS),
        kindGraceDays(settings.value(Settings.KIND_GRACE_DAYS), layout), workers,
        settings.get(Settings.MAX_STATE_BYTES), settings.get(Settings.LOCK_TTL),
        settings.get(Settings.PROGRESS_SECONDS), settings.get(Settings.FAIL_ON), settings.asMap());
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

  /** The S3 client settings alone (endpoint, addressing, region), validated: what every command reaches S3 with. */
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
