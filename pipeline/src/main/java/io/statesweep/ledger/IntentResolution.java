package io.statesweep.ledger;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.store.StoredObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The outcome of a window whose task attempt stopped after its intent and before its outcomes (its executor or
 * driver died, its job was cancelled): only a stopped task's intent is resolved, so no delete of it is still to
 * come. Each key of the intent existed when its record was verified; gone now, its task deleted it. The state file
 * counts as deleted only when every file of its record is gone too (the executor deletes it last).
 */
public final class IntentResolution {
  private IntentResolution() {}

  /** @param lookup the current version of a key (a one-key listing), or null when it does not exist */
  public static List<LedgerTry> resolve(LedgerEntry.Intent intent, Function<String, StoredObject> lookup) {
    List<LedgerTry> tries = new ArrayList<>(intent.records().size());
    for (DeleteJournal.IntendedRecord record : intent.records()) {
      tries.add(new LedgerTry(resolve(record, intent.header(), lookup), true, intent.header().taskAttempt()));
    }
    return tries;
  }

  private static ExecutionOutcome resolve(DeleteJournal.IntendedRecord record, LedgerEntry.Header header,
      Function<String, StoredObject> lookup) {
    List<DeletedKey> deleted = new ArrayList<>();
    boolean filesLeft = false;
    for (DeleteJournal.IntendedKey key : record.keys()) {
      if (key.role() != DeleteRole.STATE_FILE) {
        if (lookup.apply(key.key()) == null) {
          deleted.add(new DeletedKey(key.key(), key.role(), key.etag(), null));
        } else {
          filesLeft = true;
        }
      }
    }
    int files = deleted.size();
    StoredObject state = lookup.apply(record.stateFileKey());
    boolean stateMayGo = record.keys().stream().anyMatch(key -> key.role() == DeleteRole.STATE_FILE);
    String stopped = "the task that executed it stopped before it recorded the store's answers (found by looking at"
        + " the keys of its intent of " + header.writtenAt() + "): ";
    Outcome outcome;
    String message;
    boolean stateDeleted = false;
    if (state == null && stateMayGo && !filesLeft && record.action() == Action.DELETE_RECORD) {
      deleted.add(new DeletedKey(record.stateFileKey(), DeleteRole.STATE_FILE, record.stateEtag(), null));
      stateDeleted = true;
      outcome = Outcome.DELETED;
      message = stopped + "deleted " + files + " files, then the state file";
    } else if (state != null && !state.etag().equals(record.stateEtag()) && files > 0) {
      outcome = Outcome.CAME_BACK_DURING_DELETE;
      message = stopped + "the state file changed while the record's files were deleted: the record came back during"
          + " its deletion, and " + files + " of its files were deleted ("
          + DeletedKey.named(deleted) + "); run Verify bucket in the exporter";
    } else {
      outcome = Outcome.INTERRUPTED;
      message = stopped + files + " of its keys are gone, deleted by it; "
          + (state == null ? "its state file is gone, though this execute did not delete it"
              : "the state file stays, and the next run finishes the record");
    }
    return new ExecutionOutcome(record.stateFileKey(), record.action(), outcome, message, files, stateDeleted,
        record.keysAlreadyGone(), List.of(), record.startedAt(), header.writtenAt(), deleted, null);
  }
}
