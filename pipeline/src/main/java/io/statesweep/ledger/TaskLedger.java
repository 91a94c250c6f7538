package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.ExecutionOutcome;
import java.time.Clock;
import java.util.List;

/**
 * One task attempt's part of an execute's ledger (README, "Every delete on the record"): per window, the intent
 * before its first delete ({@link #intend}) and the outcomes after ({@link #recordOutcomes}), each an object of
 * its own in the partition's folder, durable before the method returns. Not thread-safe: one per task attempt.
 */
public final class TaskLedger implements DeleteJournal {
  private final LedgerStore store;
  private final String folder;
  private final LedgerEntry.Header header;
  private final Clock clock;
  private int window;

  /** @param header the run, attempt, warehouse, partition and task attempt (its window and time are set here) */
  public TaskLedger(LedgerStore store, String attemptFolder, LedgerEntry.Header header, Clock clock) {
    this.store = requireNonNull(store, "store is null");
    this.header = requireNonNull(header, "header is null");
    this.folder = LedgerKeys.partition(requireNonNull(attemptFolder, "attemptFolder is null"), header.partition());
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** Begins the next window: its intent and outcomes carry its number. */
  public void nextWindow() {
    window++;
  }

  @Override
  public void intend(List<IntendedRecord> records) {
    write(new LedgerEntry.Intent(header.at(current(), clock.instant()), records), LedgerKeys.Kind.INTENT);
  }

  /** What the window did: written after its last delete, before its rows are reported anywhere. */
  public void recordOutcomes(List<ExecutionOutcome> outcomes) {
    write(new LedgerEntry.Outcomes(header.at(current(), clock.instant()), outcomes), LedgerKeys.Kind.OUTCOMES);
  }

  private int current() {
    if (window == 0) {
      throw new IllegalStateException("no window begun");
    }
    return window;
  }

  private void write(LedgerEntry entry, LedgerKeys.Kind kind) {
    store.write(LedgerKeys.entry(folder, header.taskAttempt(), window, kind), LedgerCodec.write(entry));
  }
}
