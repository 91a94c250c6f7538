package io.statesweep.restore;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.time.Instant;

/**
 * A key a run deleted, as its row of {@code executions} records it, and what an earlier restore of the run did with it.
 *
 * @param attemptId the execute attempt that deleted it
 * @param role {@code file}, {@code removed_file} or {@code state_file}
 * @param deleteMarker the version id of the delete marker its delete wrote; null when none was recorded (no
 *     versioning then, or the task stopped before it recorded the store's answer)
 * @param etag the ETag the key was verified and deleted with; null when not recorded
 * @param deletedAt when the store's answer came; null when unknown
 * @param restoredBy who restored it already, or null: {@code restore <id>} (the newest earlier restore of the run
 *     that did), or {@code execute attempt <id> (...)} (the execute that saw its record come back)
 * @param restoredVersion the version that restore made current, or null
 */
public record Deletion(String runId, String attemptId, String stateFileKey, String key, String role,
    String deleteMarker, String etag, Instant deletedAt, String restoredBy, String restoredVersion) implements Serializable {
  public static final String STATE_FILE = "state_file";

  public Deletion {
    requireNonNull(runId, "runId is null");
    requireNonNull(attemptId, "attemptId is null");
    requireNonNull(stateFileKey, "stateFileKey is null");
    requireNonNull(key, "key is null");
    requireNonNull(role, "role is null");
  }

  /** Whether it is its record's state file (restored last). */
  public boolean isStateFile() {
    return role.equals(STATE_FILE) || key.equals(stateFileKey);
  }
}
