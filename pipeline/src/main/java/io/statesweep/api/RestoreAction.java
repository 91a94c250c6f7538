package io.statesweep.api;

/**
 * The undo of a run ({@link Actions#restore}): removes the delete markers that run wrote, for the keys whose latest
 * version is still that marker, each record's files first and its state file last (pipeline/README.md, "Undoing a
 * run"). A dry run by default: it says what it would restore and changes nothing; {@code dryRun(false)} restores.
 */
public interface RestoreAction extends ExportAction<RestoreAction, RestoreResult> {
  /** The run whose deletes are undone: its rows of {@code executions}, every attempt. */
  String runId();

  /** Restores only the record of this state file (its full key); null for every record of the run. */
  RestoreAction record(String stateFileKey);

  /** True (the default): say what would be restored, change nothing; false: restore. */
  RestoreAction dryRun(boolean dryRun);

  /**
   * Restores the run's keys (or with {@link #dryRun} true, reads their latest versions only), records each key it
   * looked at in table {@code restorations} (a real restore) and returns the counts.
   *
   * @throws io.statesweep.api.failures.RestoreRefusedException before anything is changed: a bucket without
   *     versioning, versioning that cannot be read, a run without rows in {@code executions}, a record the run
   *     deleted nothing of
   * @throws io.statesweep.api.failures.RunLockException when the run lock cannot be taken (another run holds it)
   */
  @Override
  RestoreResult execute();
}
