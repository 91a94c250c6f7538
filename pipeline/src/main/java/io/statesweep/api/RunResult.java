package io.statesweep.api;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.RunSummary;

/**
 * What a {@link RunAction} did: its plan, and the execute of that plan when it deleted.
 *
 * @param execution the execute of the plan, or null when the run was a dry run or its plan did not complete
 */
public record RunResult(PlanResult plan, ExecuteResult execution) {
  public RunResult {
    requireNonNull(plan, "plan is null");
  }

  /** The run's summary: the execute's when it deleted, else the plan's. */
  public RunSummary summary() {
    return execution == null ? plan.summary() : execution.summary();
  }

  /** The run lock as the run ended with it. */
  public LockOutcome runLock() {
    return execution == null ? plan.runLock() : execution.runLock();
  }

  /** 0 for a complete run without errors that held its run lock to the end (or a dry run without one), else 1. */
  public int exitCode() {
    return execution == null ? plan.exitCode() : execution.exitCode();
  }
}
