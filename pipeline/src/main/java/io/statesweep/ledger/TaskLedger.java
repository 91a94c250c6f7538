package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.ExecutionOutcome;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One task attempt's part of an execute's ledger (pipeline/README.md, "Every delete on the record"): per window, the
 * intent before its first delete ({@link #intend}; durable when it returns) and the outcomes after ({@link
 * #recordOutcomes}; durable once {@link #flush} or {@link #close} returns), each in objects of its own in the
 * partition's folder, as many as its size needs ({@link LedgerCodec#write}). Not thread-safe: one per task attempt.
 */
public final class TaskLedger implements DeleteJournal, AutoCloseable {
  private final LedgerStore store;
  private final String folder;
  private final LedgerEntry.Header header;
  private final Clock clock;
  private int window;
  /** The groups of deletes the current window intended so far. */
  private int group;
  /** The objects of the current group's intent so far. */
  private int intentParts;
  private ExecutorService writer;
  private Future<?> pending;

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
    group = 0;
    intentParts = 0;
  }

  /**
   * A window starts its deletes in one group of records or several (pipeline/README.md "Deleting"): each call begins a
   * group and writes the intent of its records in objects of their own; a record's intent in a later group holds in
   * place of an earlier one (it was verified again when its start came too late). Returns once every object is written:
   * until then, none of the keys it names is sent.
   */
  @Override
  public void intend(List<IntendedRecord> records) {
    current();
    group++;
    intentParts = 0;
    intendMore(records);
  }

  /** Adds keys of the current group's records to its intent, in objects of their own, before they are sent. */
  @Override
  public void intendMore(List<IntendedRecord> records) {
    if (group == 0) {
      throw new IllegalStateException("no group of deletes begun");
    }
    List<byte[]> parts = LedgerCodec.write(new LedgerEntry.Intent(header.at(current(), clock.instant()), group,
        records), intentParts + 1);
    for (byte[] part : parts) {
      store.write(LedgerKeys.intent(folder, header.taskAttempt(), window, group, ++intentParts), part);
    }
  }

  /**
   * What the window did, written after its last delete on a thread of its own while the next window is verified
   * (its intent already covers its keys, should the task stop first): at most one such write is in flight, and a
   * failed one fails the next call, or {@link #close}.
   */
  public void recordOutcomes(List<ExecutionOutcome> outcomes) {
    awaitOutcomes();
    int outcomesWindow = current();
    List<byte[]> parts = LedgerCodec.write(new LedgerEntry.Outcomes(header.at(outcomesWindow, clock.instant()),
        outcomes), 1);
    if (writer == null) {
      writer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "statesweep-ledger");
        thread.setDaemon(true);
        return thread;
      });
    }
    pending = writer.submit(() -> {
      for (int part = 0; part < parts.size(); part++) {
        store.write(LedgerKeys.outcomes(folder, header.taskAttempt(), outcomesWindow, part + 1), parts.get(part));
      }
    });
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
}
