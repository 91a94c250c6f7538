package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.run.ActionLock;
import io.statesweep.api.LogLine;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RunResult;
import io.statesweep.config.RunOptions;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * The scheduled job ({@code run}): plans with {@link SparkPlanAction} and then, unless it is a dry run
 * (the default, {@code dry_run=true}) or the plan did not complete, executes what it planned with
 * {@link SparkExecuteAction}, in the same job. A plan made and executed by the same job needs no approval.
 *
 * <p>One run lock covers both, held from the start of the plan to the end of the execute, so that no other
 * run comes between them: {@link #execute()} throws {@link io.statesweep.api.failures.RunLockException.Held} while
 * another run holds it, and {@link io.statesweep.api.failures.RunLockException.Unavailable} when it cannot be taken for
 * another reason. When the store denies the lock's permissions, a run that deletes is refused
 * ({@link io.statesweep.api.failures.RunLockException.Denied}, nothing read or deleted) and a dry run warns and goes on
 * without it; so it does on a store that ignores the lock's {@code If-None-Match: *}, where a run that deletes
 * is refused ({@link io.statesweep.api.failures.RunLockException.Untrusted}) unless told to accept the risk. A lock lost
 * during the plan or the execute cancels the deletes that are left.
 */
final class SparkRunAction {
  private final SparkSession spark;
  private final RunOptions options;
  private Consumer<LogLine> sink = line -> { };

  SparkRunAction(SparkSession spark, RunOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
  }

  /**
   * Where the run's per-key lines go, each as it is produced: its plan's, then its execute's. A run that deletes
   * sends no {@code would delete} lines there (its execute says what it deleted); its plan's result keeps them.
   */
  SparkRunAction lines(Consumer<LogLine> newSink) {
    this.sink = requireNonNull(newSink, "sink is null");
    return this;
  }

  RunResult execute() {
    try (ActionLock lock = options.dryRun() ? ActionLock.forDryRun(options.export(), "run")
        : ActionLock.toDelete(options.export(), options.execute().deletes(), "run")) {
      Consumer<LogLine> planLines = options.dryRun() ? sink : line -> {
        if (line.kind() != LogLine.Kind.WOULD_DELETE) {
          sink.accept(line);
        }
      };
      PlanResult plan = new SparkPlanAction(spark, options.plan()).underLock(lock).lines(planLines).execute();
      if (options.dryRun() || plan.failure() != null) {
        return new RunResult(plan, null);
      }
      return new RunResult(plan,
          new SparkExecuteAction(spark, options.execute(), plan.runId()).plannedInThisJob(plan).underLock(lock)
              .lines(sink).execute());
    }
  }
}
