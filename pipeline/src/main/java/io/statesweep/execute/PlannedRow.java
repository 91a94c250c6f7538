package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.Action;
import java.time.Instant;
import java.util.List;

/**
 * A {@code deletion_plan} row as execution takes it: a record to execute, or a row that cannot be executed
 * (a field null, empty, unknown or out of place). Such a row costs only its own record: it is
 * {@code kept_refused}, nothing of it is read or deleted, and the other rows go on (pipeline/README.md "Deleting").
 */
public sealed interface PlannedRow permits PlannedRow.Executable, PlannedRow.Refused {

  /** A row that names a record to execute. */
  record Executable(PlannedRecord record) implements PlannedRow {
    public Executable {
      requireNonNull(record, "record is null");
    }
  }

  /**
   * A row that cannot be executed.
   *
   * @param stateFileKey the state file the row names; empty when it names none (null or empty in the table)
   * @param action the row's action, or {@link Action#KEPT_REFUSED} when the row has none that executes
   * @param message why, naming the field: {@code refused to delete <state file>: ...}
   */
  record Refused(String stateFileKey, Action action, String message) implements PlannedRow {
    public Refused {
      requireNonNull(stateFileKey, "stateFileKey is null");
      requireNonNull(action, "action is null");
      requireNonNull(message, "message is null");
    }

    /** Its outcome: kept whole, nothing deleted. */
    public ExecutionOutcome outcome(Instant at) {
      return new ExecutionOutcome(stateFileKey, action, Outcome.KEPT_REFUSED, message, 0, false, 0, List.of(), at, at,
          List.of(), null);
    }
  }
}
