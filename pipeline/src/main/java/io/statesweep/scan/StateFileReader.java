package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateParser;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Reads and parses state files with {@code workers} GETs in flight, in the order given, a window at a
 * time so that memory stays bounded however many state files a partition holds. A store error on
 * one state file is that file's outcome, not the run's end.
 */
public final class StateFileReader implements AutoCloseable {
  private final ObjectStore store;
  private final StateParser parser;
  private final int maxDocumentBytes;
  private final int workers;
  private final ExecutorService pool;

  public StateFileReader(ObjectStore store, StateParser parser, int maxDocumentBytes, int workers) {
    this.store = requireNonNull(store, "store is null");
    this.parser = requireNonNull(parser, "parser is null");
    if (maxDocumentBytes < 1 || workers < 1) {
      throw new IllegalArgumentException("maxDocumentBytes and workers must be positive");
    }
    this.maxDocumentBytes = maxDocumentBytes;
    this.workers = workers;
    this.pool = Executors.newFixedThreadPool(workers, runnable -> {
      Thread thread = new Thread(runnable, "statesweep-state-reader");
      thread.setDaemon(true);
      return thread;
    });
  }

  public StateFileRead read(Classification.StateFile stateFile) {
    try {
      ObjectContent content = store.read(stateFile.key(), maxDocumentBytes);
      if (content == null) {
        return new StateFileRead(stateFile, StateFileRead.Status.GONE, null, null, null, null);
      }
      ParsedState parsed = content.truncated()
          ? new ParsedState(null, "Invalid state file " + stateFile.key() + ": the document is larger than "
              + maxDocumentBytes + " bytes")
          : parser.parse(stateFile.key(), content.bytes());
      String json = content.truncated() ? null : new String(content.bytes(), StandardCharsets.UTF_8);
      return new StateFileRead(stateFile, StateFileRead.Status.READ, content.object(), json, parsed, null);
    } catch (StoreException e) {
      return new StateFileRead(stateFile, StateFileRead.Status.FAILED, null, null, null, e.getMessage());
    } catch (RuntimeException e) {
      // An answer the store should not give (no Last-Modified, say): this state file's error, not the run's end.
      return new StateFileRead(stateFile, StateFileRead.Status.FAILED, null, null, null,
          "Cannot read s3://" + store.bucket() + "/" + stateFile.key() + ": " + e);
    }
  }

  /**
   * Reads the state files of {@code items} lazily and in order, keeping up to {@code workers * 4}
   * reads in flight: memory stays one window however many a partition holds. An item whose
   * {@code stateFileOf} is null passes through unread.
   */
  public <T> Iterator<T> readAll(Iterator<T> items, Function<T, Classification.StateFile> stateFileOf,
      BiFunction<T, StateFileRead, T> withRead) {
    int window = workers * 4;
    return new Iterator<>() {
      private final List<T> pending = new ArrayList<>();
      private final List<Future<StateFileRead>> inFlight = new ArrayList<>();
      private int next;

      @Override
      public boolean hasNext() {
        if (next < pending.size()) {
          return true;
        }
        pending.clear();
        inFlight.clear();
        next = 0;
        while (pending.size() < window && items.hasNext()) {
          T item = items.next();
          Classification.StateFile stateFile = stateFileOf.apply(item);
          pending.add(item);
          inFlight.add(stateFile == null ? null : pool.submit(() -> read(stateFile)));
        }
        return !pending.isEmpty();
      }

      @Override
      public T next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int index = next++;
        Future<StateFileRead> read = inFlight.get(index);
        if (read == null) {
          return pending.get(index);
        }
        try {
          return withRead.apply(pending.get(index), read.get());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while reading state files", e);
        } catch (ExecutionException e) {
          throw new IllegalStateException("reading a state file failed", e.getCause());
        }
      }
    };
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
