package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The result of executing one record: its outcome, what was deleted, and every per-key failure.
 *
 * @param childKeysDeleted keys other than the state file that this attempt deleted
 * @param stateFileDeleted whether this attempt deleted the state file
 * @param keysAlreadyGone planned keys that no longer existed (an earlier attempt, or someone else)
 * @param deleted every key this attempt deleted, in the order sent (the state file last, if it went), with its
 *     role, the ETag it was verified with and when the store's answer came
 * @param verifiedToDeleted from the end of the record's last verification (it may be verified again when its
 *     deletes could not start in time) to the answer of its last delete; null when nothing was deleted
 */
public record ExecutionOutcome(
    String stateFileKey,
    Action action,
    Outcome outcome,
    String message,
    long childKeysDeleted,
    boolean stateFileDeleted,
    int keysAlreadyGone,
    List<KeyFailure> failures,
    Instant startedAt,
    Instant endedAt,
    List<DeletedKey> deleted,
    Duration verifiedToDeleted) {
  public ExecutionOutcome {
    requireNonNull(stateFileKey, "stateFileKey is null");
    requireNonNull(action, "action is null");
    requireNonNull(outcome, "outcome is null");
    requireNonNull(message, "message is null");
    requireNonNull(startedAt, "startedAt is null");
    requireNonNull(endedAt, "endedAt is null");
    failures = List.copyOf(failures);
    deleted = List.copyOf(deleted);
    long stateFiles = deleted.stream().filter(key -> key.role() == DeleteRole.STATE_FILE).count();
    if (deleted.size() != childKeysDeleted + (stateFileDeleted ? 1 : 0) || stateFiles != (stateFileDeleted ? 1 : 0)) {
      throw new IllegalArgumentException("the deleted keys of " + stateFileKey + " do not match their counts");
    }
    if (stateFileDeleted && outcome != Outcome.DELETED) {
      throw new IllegalArgumentException("a state file is deleted only with its record: " + stateFileKey);
    }
  }

  public long keysDeleted() {
    return childKeysDeleted + (stateFileDeleted ? 1 : 0);
  }

  /** The keys of {@link #deleted}, in the order sent. */
  public List<String> deletedKeys() {
    return deleted.stream().map(DeletedKey::key).toList();
  }
}
