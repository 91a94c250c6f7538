package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.ExecutionOutcome;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
  /** The records the current window intended so far, by state file: the window's intent object holds them all. */
  private final Map<String, IntendedRecord> intended = new LinkedHashMap<>();

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
    intended.clear();
  }

  /**
   * A window starts its deletes in one group of records or several (README "Deleting"): each call writes the
   * window's intent object again with every record intended in the window so far, a record's latest intent in
   * place of an earlier one (it was verified again when its start came too late), so that no write loses another's.
   */
  @Override
  public void intend(List<IntendedRecord> records) {
    current();
    records.forEach(record -> intended.put(record.stateFileKey(), record));
    write(new LedgerEntry.Intent(header.at(current(), clock.instant()), List.copyOf(intended.values())),
        LedgerKeys.Kind.INTENT);
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
