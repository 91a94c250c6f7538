package io.statesweep.api;

import java.util.function.Consumer;

/**
 * An action that reads the export: its bucket and prefix, and where its per-key lines go.
 *
 * @param <A> the action itself, for the fluent setters
 * @param <R> what it returns
 */
public interface ExportAction<A extends ExportAction<A, R>, R> extends Action<A, R> {
  /** The bucket of the export (required). */
  A bucket(String bucket);

  /** The export's prefix, such as {@code cogram/}; empty is the bucket root and needs allow-bucket-root. */
  A prefix(String prefix);

  /**
   * Where the run's per-key lines go, each as it is produced ({@code would delete}, {@code kept}, {@code missing},
   * {@code skipped}, came-back lines): the command line prints each as it arrives. By default nowhere: the result keeps
   * the first {@link LogLine#RESULT_SAMPLE} and how many of each kind there were; the tables hold them all.
   */
  A lines(Consumer<LogLine> sink);
}
