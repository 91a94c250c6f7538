package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Keys;
import io.statesweep.layout.Layout;
import io.statesweep.plan.Scope;
import io.statesweep.scan.InventoryManifest;
import io.statesweep.store.FileSource;
import java.io.Serializable;

/**
 * The options of a plan (the plan command, and the plan of a run): the export's, where the view of the bucket comes
 * from, which records, and what it prints.
 *
 * @param dryRun whether the run stops after its plan (the plan command always does)
 * @param logLines how many {@code would delete} lines to print; {@link #ALL_LINES} for all (other per-key lines are
 *     never capped)
 * @param pagesPerTask how many listing pages a task lists before it hands the rest of its prefix on
 * @param reuseStateFiles whether state files whose ETag is unchanged since the last complete plan are taken from it
 * @param inventory the inventory report's manifest, with {@link Listing#INVENTORY} only
 * @param scope which records the plan covers ({@code --scope-prefix}, {@code --projects}, {@code --kinds})
 * @param deletes the deletes that would execute this plan, which its cost prices (a plan alone: the defaults)
 */
public record PlanOptions(
    ExportOptions export,
    boolean dryRun,
    int logLines,
    int pagesPerTask,
    boolean reuseStateFiles,
    Listing listing,
    InventoryManifest.Location inventory,
    Scope scope,
    DeleteOptions deletes) implements Serializable {

  /** Where the plan's view of the bucket comes from. */
  public enum Listing { LIST, INVENTORY }

  public static final int ALL_LINES = -1;

  public PlanOptions {
    requireNonNull(export, "export is null");
    requireNonNull(listing, "listing is null");
    requireNonNull(scope, "scope is null");
    requireNonNull(deletes, "deletes is null");
    if ((listing == Listing.INVENTORY) != (inventory != null)) {
      throw new IllegalArgumentException("an inventory location goes with the inventory listing only");
    }
  }

  /** The options, with a {@code --layout} file read from the local filesystem. */
  public static PlanOptions from(Settings settings) {
    return from(settings, FileSource.LOCAL);
  }

  /** The options, with a {@code --layout} file read by {@code files} (such as Hadoop's FileSystem). */
  public static PlanOptions from(Settings settings, FileSource files) {
    return of(settings, ExportOptions.from(settings, files), DeleteOptions.from(settings));
  }

  static PlanOptions of(Settings settings, ExportOptions export, DeleteOptions deletes) {
    String bucket = export.bucket();
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
    return new PlanOptions(export, settings.bool(Settings.DRY_RUN), settings.get(Settings.LOG_LINES),
        settings.get(Settings.PAGES_PER_TASK), settings.bool(Settings.REUSE_STATE_FILES), listing, inventory,
        scope(settings, export.prefix(), export.layout()), deletes);
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
      if (!entry.endsWith("/")) {
        // Keys are matched by their start: without the slash, projects/p-1 would also take projects/p-10/.
        throw new BadSettingsException(message + "'" + entry + "' is no folder: a scope is a folder, given with its"
            + " trailing slash, such as " + entry + "/ (without it, the scope would also take every folder whose name"
            + " starts with " + Keys.name(entry) + ")");
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
}
