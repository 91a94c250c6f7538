package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.ExecutionOutcome;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One task attempt's part of an execute's ledger (README, "Every delete on the record"): per window, the intent
 * before its first delete ({@link #intend}; durable when it returns) and the outcomes after
 * ({@link #recordOutcomes}; durable once {@link #flush} or {@link #close} returns), each an object of its own in the
 * partition's folder. Not thread-safe: one per task attempt.
 */
public final class TaskLedger implements DeleteJournal, AutoCloseable {
  private final LedgerStore store;
  private final String folder;
  private final LedgerEntry.Header header;
  private final Clock clock;
  private int window;
  private ExecutorService writer;
  private Future<?> pending;
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

  /**
   * What the window did, written after its last delete on a thread of its own while the next window is verified
   * (its intent already covers its keys, should the task stop first): at most one such write is in flight, and a
   * failed one fails the next call, or {@link #close}.
   */
  public void recordOutcomes(List<ExecutionOutcome> outcomes) {
    awaitOutcomes();
    String key = LedgerKeys.entry(folder, header.taskAttempt(), current(), LedgerKeys.Kind.OUTCOMES);
    byte[] content = LedgerCodec.write(new LedgerEntry.Outcomes(header.at(current(), clock.instant()), outcomes));
    if (writer == null) {
      writer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "statesweep-ledger");
        thread.setDaemon(true);
        return thread;
      });
    }
    pending = writer.submit(() -> store.write(key, content));
  }

  /** Waits until the last outcomes are written; throws why they could not be. */
  public void flush() {
    awaitOutcomes();
  }

  /** Flushes, then stops the writing thread. */
  @Override
  public void close() {
    try {
      flush();
    } finally {
      if (writer != null) {
        writer.shutdown();
      }
    }
  }

  private void awaitOutcomes() {
    Future<?> last = pending;
    pending = null;
    if (last == null) {
      return;
    }
    try {
      last.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing a window's outcomes to the ledger", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException runtime ? runtime
          : new IllegalStateException("cannot write a window's outcomes to the ledger", e.getCause());
    }
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
