package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.FileSource;
import java.io.Serializable;

/**
 * The options of a run: its plan and, unless the run is a dry run, the execute of that plan. Both act on one export
 * and the plan prices the deletes the execute makes. Built by {@link #from(Settings)}, which checks every value before
 * any request is sent.
 */
public record RunOptions(PlanOptions plan, ExecuteOptions execute) implements Serializable {

  public RunOptions {
    requireNonNull(plan, "plan is null");
    requireNonNull(execute, "execute is null");
    if (!plan.export().equals(execute.export()) || !plan.deletes().equals(execute.deletes())) {
      throw new IllegalArgumentException("a run's plan and execute act on one export with one way of deleting");
    }
  }

  /** The export both act on. */
  public ExportOptions export() {
    return plan.export();
  }

  /** Whether the run stops after its plan. */
  public boolean dryRun() {
    return plan.dryRun();
  }

  /** The options, with a {@code --layout} file read from the local filesystem. */
  public static RunOptions from(Settings settings) {
    return from(settings, FileSource.LOCAL);
  }

  /** The options, with a {@code --layout} file read by {@code files} (such as Hadoop's FileSystem). */
  public static RunOptions from(Settings settings, FileSource files) {
    ExportOptions export = ExportOptions.from(settings, files);
    DeleteOptions deletes = DeleteOptions.from(settings);
    return new RunOptions(PlanOptions.of(settings, export, deletes), ExecuteOptions.of(settings, export, deletes));
  }
}
