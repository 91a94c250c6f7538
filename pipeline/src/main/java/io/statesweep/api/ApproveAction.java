package io.statesweep.api;

/** Records that a person reviewed a plan and approves its execution ({@link Actions#approve}). */
public interface ApproveAction extends Action<ApproveAction, Approval> {
  /** The run id of the plan approved. */
  String runId();

  /** Who approves: a name or an email (required; a notebook gives {@code current_user()}). */
  ApproveAction by(String approvedBy);

  /** Why, or what was looked at; optional. */
  ApproveAction note(String text);

  /**
   * The digest of the plan's rows that the reviewer approves ({@link #preview()} shows it): the approval is recorded
   * only while the plan still has it. Null (the default): the digest the plan has when approved.
   */
  ApproveAction digest(String planDigest);

  /** What {@link #execute()} would record now, its digest included, recording nothing. */
  Approval preview();

  /**
   * Records the approval in table {@code approvals}.
   *
   * @throws IllegalArgumentException without {@link #by}, or for a run with no complete plan in the warehouse
   */
  @Override
  Approval execute();
}
