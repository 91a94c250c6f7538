/**
 * The action API of statesweep in plain Java (no Spark, no AWS SDK), shaped like Iceberg's actions (pipeline/README.md,
 * "The action API"): {@link io.statesweep.api.Actions}, the one entry point, with one interface per action ({@link
 * io.statesweep.api.PlanAction}, {@link io.statesweep.api.RunAction}, {@link io.statesweep.api.ExecuteAction}, {@link
 * io.statesweep.api.ApproveAction}) that takes its settings fluently and runs once; their results ({@link
 * io.statesweep.api.PlanResult} and {@link io.statesweep.api.ExecuteResult}, both {@link
 * io.statesweep.api.ActionResult}s with typed {@link io.statesweep.api.Metrics}; {@link io.statesweep.api.RunResult};
 * {@link io.statesweep.api.Approval}) and the values they carry. Its failures are in {@link
 * io.statesweep.api.failures}. The Spark implementation is {@code io.statesweep.spark.Statesweep}.
 */
package io.statesweep.api;
