package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.ExecutionOutcome;
import java.time.Instant;
import java.util.List;

/** One object of an execute's ledger: a window's intent, written before its first delete, or its outcomes. */
public sealed interface LedgerEntry {
  Header header();

  /**
   * Whose entry it is and where it goes.
   *
   * @param warehouse the Delta warehouse of the run, whose {@code executions} the entry is recorded in
   * @param taskAttempt Spark's task attempt id (unique in its application)
   * @param window the window's number within its task attempt, from 1
   */
  record Header(String runId, String runDate, String attemptId, String warehouse, int partition, long taskAttempt,
      int window, Instant writtenAt) implements java.io.Serializable {
    public Header {
      requireNonNull(runId, "runId is null");
      requireNonNull(runDate, "runDate is null");
      requireNonNull(attemptId, "attemptId is null");
      requireNonNull(warehouse, "warehouse is null");
      requireNonNull(writtenAt, "writtenAt is null");
    }

    Header at(int newWindow, Instant newWrittenAt) {
      return new Header(runId, runDate, attemptId, warehouse, partition, taskAttempt, newWindow, newWrittenAt);
    }
  }

  /**
   * What a window was about to delete when one group of its deletes began: its verified records and their keys.
   *
   * @param group which of the window's groups it is (from 1): a record in a later group was verified again, and its
   *     later intent is the one that holds
   */
  record Intent(Header header, int group, List<DeleteJournal.IntendedRecord> records) implements LedgerEntry {
    public Intent {
      requireNonNull(header, "header is null");
      if (group < 1) {
        throw new IllegalArgumentException("group is not positive: " + group);
      }
      records = List.copyOf(records);
    }
  }

  /** What a window did: one outcome per record, with every key the store said it deleted and when. */
  record Outcomes(Header header, List<ExecutionOutcome> outcomes) implements LedgerEntry {
    public Outcomes {
      requireNonNull(header, "header is null");
      outcomes = List.copyOf(outcomes);
    }
  }
}
