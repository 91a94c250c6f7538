package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.FileSource;
import java.io.Serializable;
import java.time.Duration;

/**
 * The options of an execute (the execute command, and the execute of a run's own plan): the export's, how it deletes,
 * and which plans it accepts.
 *
 * @param skipApproval whether a plan without an approval may execute ({@code --skip-approval}); a run's own plan needs
 *     none
 * @param maxPlanAge how old a reviewed plan may be when its execute starts
 */
public record ExecuteOptions(
    ExportOptions export,
    DeleteOptions deletes,
    boolean skipApproval,
    Duration maxPlanAge) implements Serializable {

  public ExecuteOptions {
    requireNonNull(export, "export is null");
    requireNonNull(deletes, "deletes is null");
    requireNonNull(maxPlanAge, "maxPlanAge is null");
  }

  /** The options, with a {@code --layout} file read from the local filesystem. */
  public static ExecuteOptions from(Settings settings) {
    return from(settings, FileSource.LOCAL);
  }

  /** The options, with a {@code --layout} file read by {@code files} (such as Hadoop's FileSystem). */
  public static ExecuteOptions from(Settings settings, FileSource files) {
    return of(settings, ExportOptions.from(settings, files), DeleteOptions.from(settings));
  }

  static ExecuteOptions of(Settings settings, ExportOptions export, DeleteOptions deletes) {
    return new ExecuteOptions(export, deletes, settings.bool(Settings.SKIP_APPROVAL),
        settings.get(Settings.MAX_PLAN_AGE));
  }
}
