package io.statesweep.restore;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.LogLine;

/**
 * What a restore did (or, in a dry run, would do) with one deleted key: a row of table {@code restorations}.
 *
 * @param versionMadeCurrent the version the removal made current; null when the key was not restored, and in a dry run
 * @param detail why the key is left as it is; null for a restored key
 * @param failed whether a request to the store failed (an error of the restore)
 */
public record KeyRestoration(Deletion deletion, RestoreStatus status, String versionMadeCurrent, String detail,
    boolean failed) {
  public KeyRestoration {
    requireNonNull(deletion, "deletion is null");
    requireNonNull(status, "status is null");
    if ((status == RestoreStatus.RESTORED) == (detail != null)) {
      throw new IllegalArgumentException("a " + status.label() + " key " + (detail == null ? "without" : "with")
          + " a reason");
    }
  }

  /**
   * Its line: {@code would restore <key>: removes delete marker M of run R} (a dry run), {@code restored <key>: removed
   * delete marker M of run R; version V is current}, or {@code left <key>: <why>}.
   */
  public LogLine line(boolean dryRun) {
    Deletion d = deletion;
    if (status != RestoreStatus.RESTORED) {
      return LogLine.left(d.key(), detail);
    }
    return dryRun ? LogLine.wouldRestore(d.key(), d.deleteMarker(), d.runId())
        : LogLine.restored(d.key(), d.deleteMarker(), d.runId(), versionMadeCurrent);
  }
}
