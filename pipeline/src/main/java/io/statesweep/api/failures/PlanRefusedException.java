package io.statesweep.api.failures;

/**
 * Execute refuses a plan: there is no plan with that run id, nobody approved it, its rows changed after the
 * approval, it is older than {@code max-plan-age}, it did not complete, it was made for another bucket, prefix or
 * layout, its execute already completed, ... The message names the plan and says what to do (review and approve it,
 * plan again, give {@code --skip-approval}, ...). Nothing was deleted because of it.
 *
 * <p>An {@link IllegalArgumentException}, as refused plans were before they had a type of their own. The command
 * line exits 2 with {@code stopped=bad_settings}, as it always did (pipeline/README.md, "The summary line").
 */
public class PlanRefusedException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public PlanRefusedException(String message) {
    super(message);
  }

  public PlanRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
