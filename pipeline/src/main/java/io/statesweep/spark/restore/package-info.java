/**
 * The stages of a restore (pipeline/README.md, "Undoing a run"): {@link io.statesweep.spark.restore.RestoreTargets}
 * (the run's deletes, read from {@code executions}, by record) and {@link io.statesweep.spark.restore.RestoreTasks}
 * (each record's keys restored in a Spark task, as rows of {@code restorations}).
 */
package io.statesweep.spark.restore;
