package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The counts of a run, and the one summary line that every run ends with (pipeline/README.md, "The summary line").
 * Users build log metric filters on the line: its first ten pairs never change shape; extra pairs follow.
 *
 * @param stateFilesScanned state files found at the layout's places
 * @param recordsDeleted records whose files and state file go (in a dry run: would go)
 * @param childKeysDeleted keys other than state files that go: files of deleted records and removed files
 * @param recordsKept every other scanned record
 * @param skipped keys named like state files that are not read as state files
 * @param errors requests that failed (a run with errors exits non-zero)
 * @param extra further {@code name=value} pairs, in order
 */
public record RunSummary(
    boolean dryRun,
    boolean complete,
    long stateFilesScanned,
    long recordsDeleted,
    long childKeysDeleted,
    long recordsKept,
    long keptNewerFiles,
    long keptRefused,
    long skipped,
    long errors,
    Map<String, String> extra) {

  public RunSummary {
    requireNonNull(extra, "extra is null");
    extra = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extra));
    for (String name : extra.keySet()) {
      if (!name.matches("[a-z][a-z0-9_]*")) {
        throw new IllegalArgumentException("extra summary name must be lower_snake_case: " + name);
      }
    }
  }

  /**
   * The summary of a run that stopped before it counted anything (bad settings, a held or refused run
   * lock): not complete, every count zero, {@code errors} the failed requests (0 when none was sent or
   * none failed), and {@code stopped=<reason>} as the first extra pair, so a metric filter can tell
   * such runs apart.
   */
  public static RunSummary stopped(boolean dryRun, String reason, long errors) {
    requireNonNull(reason, "reason is null");
    return new RunSummary(dryRun, false, 0, 0, 0, 0, 0, 0, 0, errors, Map.of("stopped", reason));
  }

  /** This summary with one more {@code name=value} pair after the others. */
  public RunSummary with(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(extra);
    more.put(name, requireNonNull(value, "value is null"));
    return new RunSummary(dryRun, complete, stateFilesScanned, recordsDeleted, childKeysDeleted, recordsKept,
        keptNewerFiles, keptRefused, skipped, errors, more);
  }

  public String line() {
    StringBuilder line = new StringBuilder("summary:")
        .append(" dry_run=").append(dryRun)
        .append(" complete=").append(complete)
        .append(" state_files_scanned=").append(stateFilesScanned)
        .append(" records_deleted=").append(recordsDeleted)
        .append(" child_keys_deleted=").append(childKeysDeleted)
        .append(" records_kept=").append(recordsKept)
        .append(" kept_newer_files=").append(keptNewerFiles)
        .append(" kept_refused=").append(keptRefused)
        .append(" skipped=").append(skipped)
        .append(" errors=").append(errors);
    // A value from outside (a region, a run id) stays inside the line whatever it holds.
    extra.forEach((name, value) -> line.append(' ').append(name).append('=').append(LineText.escape(value)));
    return line.toString();
  }

  /** The exit code of a run that lost files and was told to fail on them ({@link FailOn}). */
  public static final int LOST_FILES = 4;

  /** The pair that says which lost files failed the run ({@link FailOn#appliedTo}). */
  public static final String FAILED_ON = "failed_on";

  /**
   * A scheduled job must show as failed when the run had errors or did not complete (1), or lost files that
   * {@code --fail-on} names ({@link #LOST_FILES}); else 0.
   */
  public int exitCode() {
    return errors > 0 || !complete ? 1 : extra.containsKey(FAILED_ON) ? LOST_FILES : 0;
  }
}
