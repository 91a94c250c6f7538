package io.statesweep.api.failures;

/**
 * Restore refuses a run before it reads or changes anything (pipeline/README.md, "Undoing a run"): the bucket keeps no
 * versions (its versioning is {@code Off}: statesweep's deletes removed the objects for good), its versioning cannot be
 * read (the message names {@code s3:GetBucketVersioning}), the run id has no rows in {@code executions} (the message
 * names the run and the table), or the run deleted nothing of the record given. Nothing was restored because of it.
 *
 * <p>An {@link IllegalArgumentException}, as a refused plan is: the command line exits 2 with
 * {@code stopped=restore_refused} (conf/deploy/README.md, "Failures page someone").
 */
public class RestoreRefusedException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public RestoreRefusedException(String message) {
    super(message);
  }
}
