package io.statesweep.api;

/** A dry run that writes the report ({@link Actions#plan()}). Deletes nothing. */
public interface PlanAction extends ExportAction<PlanAction, PlanResult> {
  /**
   * Plans; {@link PlanResult#exitCode()} is 1 for a plan with errors, that did not complete or lost its run lock.
   *
   * @throws IllegalArgumentException for bad settings, and for {@code dry-run false}: a plan never deletes
   */
  @Override
  PlanResult execute();
}
