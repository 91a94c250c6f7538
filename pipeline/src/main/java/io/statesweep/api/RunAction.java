package io.statesweep.api;

/**
 * The scheduled job ({@link Actions#run()}): a plan, then, with {@code dry-run false} and a plan that completed, the
 * execute of that plan under the same run lock, without an approval (conf/deploy/README.md, "Deleting without review").
 */
public interface RunAction extends ExportAction<RunAction, RunResult> {
  /** Plans, then with {@code dry-run false} executes the plan; a dry run by default. */
  @Override
  RunResult execute();
}
