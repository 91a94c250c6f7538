package io.statesweep.api;

import io.statesweep.plan.LineText;
import java.time.Instant;

/**
 * An approval that {@link ApproveAction} recorded, or would record ({@link ApproveAction#preview()}): the plan's run
 * id, who approved it and when, what the plan deletes, and the digest of its rows that {@code execute} requires
 * unchanged (notebooks/README.md, "Review and approve").
 */
public record Approval(String runId, String approvedBy, Instant approvedAt, long recordsToDelete,
    long recordsWithRemovedFiles, long keysToDelete, long bytesToDelete, long planRows, String planDigest) {
  /** The approval as one line, who approved escaped ({@link LineText#escape}; table approvals holds it as given). */
  public String line() {
    return "approved run " + LineText.escape(runId) + " by " + LineText.escape(approvedBy) + " at " + approvedAt
        + ": records_to_delete=" + recordsToDelete + " records_with_removed_files=" + recordsWithRemovedFiles
        + " keys_to_delete=" + keysToDelete + " bytes_to_delete=" + bytesToDelete + " plan_rows=" + planRows
        + " plan_digest=" + planDigest;
  }
}
