package io.statesweep.ledger;

import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.DeleteRole;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One record's row of {@code executions} for one attempt, from what every task attempt that executed it did: a task
 * retried after its executor was lost, a speculative copy running beside the first. Every key that any of them
 * deleted is in the row once (pipeline/README.md, "Every delete on the record").
 */
public final class RecordHistory {
  /** Outcomes after which keys deleted by an earlier task attempt may be live again: the record came back. */
  private static final Set<Outcome> NOT_DUE_ANY_MORE =
      EnumSet.of(Outcome.STATE_CHANGED, Outcome.KEPT_NEWER_FILES, Outcome.KEPT_REFUSED);

  private RecordHistory() {}

  /**
   * The record's row for the attempt.
   *
   * @param recordedFrom {@code outcomes} when every task attempt recorded its outcomes, {@code intent} when the
   *     deletions of one that stopped were found by looking at the keys of its intent
   */
  public record Merged(ExecutionOutcome outcome, String recordedFrom, int taskAttempts) {}

  /**
   * What a record's row, recorded before, gains from a later reading of the attempt's ledger ({@link #addTo}).
   *
   * @param keys every deleted key of the row after it, the state file last
   * @param keysAdded keys the row did not name
   * @param markersAdded keys the row named without a delete marker that the ledger now gives one
   * @param restorationsAdded keys the row named as deleted that the ledger now says were made current again
   */
  public record Added(List<DeletedKey> keys, int keysAdded, int markersAdded, int restorationsAdded) {
    /** Whether the row gains nothing: recording the same ledger twice. */
    public boolean nothing() {
      return keysAdded == 0 && markersAdded == 0 && restorationsAdded == 0;
    }

    /** The gain, as a row's message says it. */
    public String describe() {
      return keysAdded + " keys, " + markersAdded + " delete markers and " + restorationsAdded + " restorations added";
    }
  }

  /**
   * Adds to the deleted keys a record's row holds ({@code recorded}) what a later reading of the attempt's ledger
   * says ({@code read}; pipeline/README.md, "Every delete on the record"): the keys the row lacks (a window whose
   * objects could not be read at the first recording, a task attempt whose outcomes came after it), and for a key the
   * row has without a delete marker (found gone by looking at an intent) the marker an outcome now gives it. Nothing
   * the row holds is taken away or replaced: recording the same objects twice adds nothing, and in either order the row
   * ends the same.
   */
  public static Added addTo(List<DeletedKey> recorded, List<DeletedKey> read) {
    Map<String, DeletedKey> byKey = new LinkedHashMap<>();
    recorded.forEach(key -> byKey.putIfAbsent(key.key(), key));
    int keys = 0;
    int markers = 0;
    int restorations = 0;
    for (DeletedKey key : read) {
      DeletedKey known = byKey.get(key.key());
      if (known == null) {
        byKey.put(key.key(), key);
        keys++;
        continue;
      }
      DeletedKey now = known;
      if (now.deleteMarker() == null && key.deleteMarker() != null) {
        now = new DeletedKey(now.key(), now.role(), now.etag() != null ? now.etag() : key.etag(),
            now.deletedAt() != null ? now.deletedAt() : key.deletedAt(), key.deleteMarker(), now.restoredVersion());
        markers++;
      }
      if (now.restoredVersion() == null && key.restoredVersion() != null) {
        now = now.restoredAs(key.restoredVersion());
        restorations++;
      }
      if (now != known) {
        byKey.put(key.key(), now);
      }
    }
    List<DeletedKey> all = new ArrayList<>(byKey.size());
    byKey.values().stream().filter(key -> key.role() != DeleteRole.STATE_FILE).forEach(all::add);
    byKey.values().stream().filter(key -> key.role() == DeleteRole.STATE_FILE).forEach(all::add);
    return new Added(all, keys, markers, restorations);
  }

  /** @param tries what each task attempt did with one record (not empty) */
  public static Merged merge(List<LedgerTry> tries) {
    if (tries.isEmpty()) {
      throw new IllegalArgumentException("no task attempt executed the record");
    }
    boolean fromIntent = tries.stream().anyMatch(LedgerTry::fromIntent);
    String recordedFrom = fromIntent ? "intent" : "outcomes";
    long taskAttempts = tries.stream().map(LedgerTry::taskAttempt).distinct().count();
    if (tries.size() == 1) {
      return new Merged(tries.get(0).outcome(), recordedFrom, 1);
    }
    List<ExecutionOutcome> outcomes = new ArrayList<>(tries.stream().map(LedgerTry::outcome).toList());
    outcomes.sort(Comparator.comparing(ExecutionOutcome::endedAt));
    // What the record came to is what the last task attempt that recorded its outcome says; an intent found by
    // looking adds its deletions, and decides only where no attempt recorded an outcome.
    ExecutionOutcome last = tries.stream().filter(one -> !one.fromIntent()).map(LedgerTry::outcome)
        .max(Comparator.comparing(ExecutionOutcome::endedAt)).orElse(outcomes.get(outcomes.size() - 1));
    Instant endedAt = outcomes.get(outcomes.size() - 1).endedAt();
    Map<String, DeletedKey> deleted = new LinkedHashMap<>();
    for (ExecutionOutcome outcome : outcomes) {
      for (DeletedKey key : outcome.deleted()) {
        DeletedKey known = deleted.get(key.key());
        if (known == null || known.deletedAt() == null && key.deletedAt() != null) {
          deleted.put(key.key(), known == null ? key : new DeletedKey(known.key(), known.role(), known.etag(),
              key.deletedAt(), key.deleteMarker() != null ? key.deleteMarker() : known.deleteMarker(),
              key.restoredVersion() != null ? key.restoredVersion() : known.restoredVersion()));
        } else if (known.restoredVersion() == null && key.restoredVersion() != null) {
          deleted.put(key.key(), known.restoredAs(key.restoredVersion()));
        }
      }
    }
    // The state file last, as it was sent.
    List<DeletedKey> keys = new ArrayList<>();
    deleted.values().stream().filter(key -> key.role() != DeleteRole.STATE_FILE).forEach(keys::add);
    deleted.values().stream().filter(key -> key.role() == DeleteRole.STATE_FILE).forEach(keys::add);
    boolean stateDeleted = keys.size() > 0 && keys.get(keys.size() - 1).role() == DeleteRole.STATE_FILE;
    long files = keys.size() - (stateDeleted ? 1 : 0);
    ExecutionOutcome cameBack = outcomes.stream().filter(o -> o.outcome() == Outcome.CAME_BACK_DURING_DELETE)
        .findFirst().orElse(null);
    ExecutionOutcome restored = outcomes.stream().filter(o -> o.outcome() == Outcome.RESTORED_AFTER_COMING_BACK)
        .findFirst().orElse(null);
    // A file some try restored (its own delete marker removed, pipeline/README.md "Versioned buckets") is current
    // again.
    long lost = keys.stream().filter(key -> key.role() != DeleteRole.STATE_FILE && !key.restored()).count();

    Outcome outcome;
    String message;
    if (stateDeleted) {
      outcome = Outcome.DELETED;
      message = "deleted " + files + " files, then the state file";
    } else if ((cameBack != null || restored != null) && lost == 0) {
      outcome = Outcome.RESTORED_AFTER_COMING_BACK;
      message = (restored != null ? restored : cameBack).message();
    } else if (cameBack != null) {
      outcome = Outcome.CAME_BACK_DURING_DELETE;
      message = cameBack.message();
    } else if (files > 0 && NOT_DUE_ANY_MORE.contains(last.outcome())) {
      outcome = Outcome.CAME_BACK_DURING_DELETE;
      message = "the record came back during its deletion: " + files + " of its files were deleted ("
          + DeletedKey.named(keys) + "), then " + last.outcome().label() + ": "
          + last.message() + "; run Verify bucket in the exporter";
    } else if (files > 0 && last.outcome() == Outcome.ALREADY_DELETED) {
      outcome = Outcome.INTERRUPTED;
      message = files + " of its files were deleted, then its state file was found gone: " + last.message();
    } else {
      outcome = last.outcome();
      message = last.message();
    }
    Instant startedAt = outcomes.stream().map(ExecutionOutcome::startedAt).min(Comparator.naturalOrder()).orElseThrow();
    int alreadyGone = outcomes.stream().mapToInt(ExecutionOutcome::keysAlreadyGone).min().orElse(0);
    message += " (recorded from " + taskAttempts + " task attempts"
        + (fromIntent ? "; one stopped before it recorded the store's answers, and its deletions were found by looking"
            + " at the keys of its intent" : "") + ")";
    ExecutionOutcome merged = new ExecutionOutcome(last.stateFileKey(), last.action(), outcome, message, files,
        stateDeleted, alreadyGone, last.failures(), startedAt, endedAt, keys, null);
    return new Merged(merged, recordedFrom, (int) taskAttempts);
  }
}
