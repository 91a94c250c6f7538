package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import java.time.Instant;
import java.util.List;

/**
 * Where an execute writes what it is about to delete before it sends a single delete of a window (README,
 * "Every delete on the record"): the window's verified records, each with the keys that exist and may go. When
 * {@link #intend} returns, the intent is durable (it outlives the task, its executor and the driver); when it
 * throws, the window deletes nothing.
 */
public interface DeleteJournal {
  /** Records nothing: for tests of the executor's decisions alone. */
  DeleteJournal NONE = records -> {};

  /**
   * Called right before the first delete of each group of a window's records whose deletes start together (a
   * window has one, or several when some records are verified long before others: pipeline/README.md "Deleting"); a
   * later call of the same window adds its records to the earlier ones.
   */
  void intend(List<IntendedRecord> records);

  /**
   * Adds keys of the current group's records that it did not name yet, before they are sent: a group names its keys
   * a few requests ahead of them, so that a record of any size starts its deletes at once (pipeline/README.md
   * "Deleting"). Durable when it returns; when it throws, none of them is sent. By default, {@link #intend}: for a
   * journal that keeps no groups apart.
   */
  default void intendMore(List<IntendedRecord> records) {
    intend(records);
  }

  /**
   * A verified record of a window and what it may delete: its files as verified, then its state file (for a
   * {@code delete_record} row, sent only if every file went and the state file is unchanged).
   *
   * @param stateEtag the state file's planned ETag, which it had when verified
   * @param keys the keys that may go, in the order they would be sent, each with the ETag it was verified with
   * @param keysAlreadyGone planned keys the verification found gone
   */
  record IntendedRecord(String stateFileKey, Action action, String stateEtag, List<IntendedKey> keys,
      int keysAlreadyGone, Instant startedAt) {
    public IntendedRecord {
      requireNonNull(stateFileKey, "stateFileKey is null");
      requireNonNull(action, "action is null");
      requireNonNull(stateEtag, "stateEtag is null");
      requireNonNull(startedAt, "startedAt is null");
      keys = List.copyOf(keys);
    }
  }

  /** A key a window may delete, with its role and the ETag it was verified with. */
  record IntendedKey(String key, DeleteRole role, String etag) {
    public IntendedKey {
      requireNonNull(key, "key is null");
      requireNonNull(role, "role is null");
      requireNonNull(etag, "etag is null");
    }
  }
}
