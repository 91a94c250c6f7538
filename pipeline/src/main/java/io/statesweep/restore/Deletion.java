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
 * @param sentAfter for a key without a recorded marker, the earliest its delete can have been sent: its record's
 *     verification; null when unknown
 * @param sentBefore for a key without a recorded marker, the latest its delete can have been answered: the end of the
 *     attempt that deleted it (its row of runs, written after the key was found gone); null when unknown
 */
public record Deletion(String runId, String attemptId, String stateFileKey, String key, String role,
    String deleteMarker, String etag, Instant deletedAt, String restoredBy, String restoredVersion, Instant sentAfter,
    Instant sentBefore) implements Serializable {
  public static final String STATE_FILE = "state_file";

  public Deletion {
    requireNonNull(runId, "runId is null");
    requireNonNull(attemptId, "attemptId is null");
    requireNonNull(stateFileKey, "stateFileKey is null");
    requireNonNull(key, "key is null");
    requireNonNull(role, "role is null");
  }

  /** A delete whose marker was recorded, or that no window can prove one of. */
  public Deletion(String runId, String attemptId, String stateFileKey, String key, String role, String deleteMarker,
      String etag, Instant deletedAt, String restoredBy, String restoredVersion) {
    this(runId, attemptId, stateFileKey, key, role, deleteMarker, etag, deletedAt, restoredBy, restoredVersion, null,
        null);
  }

  /** This delete with {@code marker}, the delete marker proven its own ({@link io.statesweep.store.MarkerRemoval#unproven}). */
  public Deletion withMarker(String marker) {
    return new Deletion(runId, attemptId, stateFileKey, key, role, marker, etag, deletedAt, restoredBy, restoredVersion,
        sentAfter, sentBefore);
  }

  /** Whether it is its record's state file (restored last). */
  public boolean isStateFile() {
    return role.equals(STATE_FILE) || key.equals(stateFileKey);
  }
}
