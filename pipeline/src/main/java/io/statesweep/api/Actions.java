package io.statesweep.api;

/**
 * The actions of statesweep: the one entry point of its API (pipeline/README.md, "The action API"). The Spark
 * implementation is
 * {@code io.statesweep.spark.Statesweep.get(spark)}; the command line is a caller of the same actions.
 *
 * <p>Each action takes its settings fluently and runs once with {@link Action#execute()}. A run that completes with
 * errors is a result ({@link ActionResult#exitCode()} 1), not an exception; failures are exceptions: bad settings
 * and refused plans are {@link IllegalArgumentException}s whose message says what to do, and the run lock's own
 * failures say whether another run holds it.
 */
public interface Actions {
  /** A dry run of the export: lists, reads the state files, plans and writes the report. Deletes nothing. */
  PlanAction plan();

  /** The scheduled job: a plan, then with {@code dry-run false} the execute of that plan, under one run lock. */
  RunAction run();

  /**
   * The execute of the plan of {@code runId}, made earlier (and approved, unless {@code skip-approval}).
   *
   * @throws IllegalArgumentException when {@code runId} is missing
   */
  ExecuteAction execute(String runId);

  /**
   * The execute of the newest approved complete plan of the bucket and prefix, made within {@code max-plan-age} and not
   * yet executed completely ({@code execute --latest-approved}). With no such plan it deletes nothing and its result
   * says why ({@link ExecuteResult#notExecuted()}).
   */
  ExecuteAction executeLatestApproved();

  /**
   * The approval of the plan of {@code runId}: who, when, note, what the plan deletes and the digest of its rows.
   *
   * @throws IllegalArgumentException when {@code runId} is missing
   */
  ApproveAction approve(String runId);

  /**
   * The undo of run {@code runId}: removes the delete markers its deletes wrote, while each is still its key's latest
   * version, each record's files first and its state file last (pipeline/README.md, "Undoing a run"); a dry run unless
   * {@code dryRun(false)}.
   *
   * @throws IllegalArgumentException when {@code runId} is missing
   */
  RestoreAction restore(String runId);
}
