package io.statesweep.spark;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.ExecutionHook;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark actions as tests and benchmarks outside this package run them: on options already resolved (a
 * {@code testing.TestOptions}), without the settings' resolution of {@link Statesweep}, as the command line's actions
 * run them once resolved. The actions' constructors and their test hooks are not public API.
 */
public final class TestActions {
  private TestActions() {}

  /** Plans, as {@code statesweep plan} does. */
  public static PlanResult plan(SparkSession spark, RunOptions options) {
    return new SparkPlanAction(spark, options.plan()).execute();
  }

  /** Executes the plan of {@code runId}, made earlier, as {@code statesweep execute --run-id} does. */
  public static ExecuteResult execute(SparkSession spark, RunOptions options, String runId) {
    return new SparkExecuteAction(spark, options.execute(), runId).execute();
  }

  /** Executes {@code plan}, made by this job, as {@code statesweep run --execute} does: no approval needed. */
  public static ExecuteResult executeOwnPlan(SparkSession spark, RunOptions options, PlanResult plan) {
    return executeOwnPlan(spark, options, plan, ExecutionHook.NONE);
  }

  /** {@link #executeOwnPlan(SparkSession, RunOptions, PlanResult)} with a hook into every executor's deletes. */
  public static ExecuteResult executeOwnPlan(SparkSession spark, RunOptions options, PlanResult plan,
      ExecutionHook hook) {
    return new SparkExecuteAction(spark, options.execute(), plan.runId()).plannedInThisJob(plan).hook(hook).execute();
  }
}
