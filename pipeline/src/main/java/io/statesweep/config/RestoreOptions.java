package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.FileSource;
import java.io.Serializable;

/**
 * The options of a restore (pipeline/README.md, "Undoing a run"): the export's (its bucket and prefix, where the run
 * lock is; the warehouse whose {@code executions} name the run's delete markers), the lock's (a store that ignores
 * conditional writes is refused unless {@code --unsafe-lock-without-conditional-writes}), and whether it is a dry run.
 */
public record RestoreOptions(ExportOptions export, DeleteOptions deletes, boolean dryRun) implements Serializable {
  public RestoreOptions {
    requireNonNull(export, "export is null");
    requireNonNull(deletes, "deletes is null");
  }

  /** The options, with a {@code --layout} file read from the local filesystem. */
  public static RestoreOptions from(Settings settings) {
    return from(settings, FileSource.LOCAL);
  }

  /** The options, with files the settings name read by {@code files} (such as Hadoop's FileSystem). */
  public static RestoreOptions from(Settings settings, FileSource files) {
    return new RestoreOptions(ExportOptions.from(settings, files), DeleteOptions.from(settings),
        settings.bool(Settings.DRY_RUN));
  }

  /** These options as a dry run, or not. */
  public RestoreOptions withDryRun(boolean newDryRun) {
    return new RestoreOptions(export, deletes, newDryRun);
  }
}
