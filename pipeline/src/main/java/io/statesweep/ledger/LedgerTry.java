package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.ExecutionOutcome;

/**
 * What one task attempt did with one record, as its ledger says: the outcome it recorded, or, for a task attempt
 * that stopped before recording it, the outcome found by looking at the keys of its intent.
 */
public record LedgerTry(ExecutionOutcome outcome, boolean fromIntent, long taskAttempt) {
  public LedgerTry {
    requireNonNull(outcome, "outcome is null");
  }
}
