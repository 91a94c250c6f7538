package io.statesweep.api;

/** The execute of a written plan, exactly as planned ({@link Actions#execute}, {@link Actions#executeLatestApproved}). */
public interface ExecuteAction extends ExportAction<ExecuteAction, ExecuteResult> {
  /** The run id of the plan to execute; null for the newest approved one ({@link Actions#executeLatestApproved()}). */
  String runId();

  /**
   * Executes the plan: each record verified right before its keys go (pipeline/README.md, "Deleting").
   *
   * @throws IllegalArgumentException for bad settings, a {@code dry-run true} that was set (execute deletes), and a
   *     plan that may not be executed (another bucket or layout, too old, not approved, changed since); nothing is
   *     deleted then
   */
  @Override
  ExecuteResult execute();
}
