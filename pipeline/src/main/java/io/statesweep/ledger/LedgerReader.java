package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * Reads one partition's folder of an execute's ledger a window at a time (memory stays one window): a window with
 * outcomes is what they say; a window with only its intent (its task attempt stopped after it and before its
 * outcomes) is resolved by looking at its keys ({@link IntentResolution}). Only ledgers of attempts whose tasks have
 * all ended are read. An object that cannot be read is reported and left in place, never guessed at.
 */
public final class LedgerReader {
  private LedgerReader() {}

  /** What one window of a task attempt did, and the ledger objects it was read from. */
  public record Window(List<LedgerTry> tries, List<String> sources) {
    public Window {
      tries = List.copyOf(tries);
      sources = List.copyOf(sources);
    }
  }

  /**
   * @param unreadable told of each object that cannot be read ("key: why"): it stays, and so does its window's intent
   */
  public static Iterator<Window> windows(LedgerStore store, String folder, Consumer<String> unreadable) {
    requireNonNull(store, "store is null");
    requireNonNull(unreadable, "unreadable is null");
    Iterator<String> keys = store.keys(folder);
    return new Iterator<>() {
      /** A key read ahead to see whether it holds the outcomes of the intent before it. */
      private String ahead;
      private Window next;

      @Override
      public boolean hasNext() {
        while (next == null && (ahead != null || keys.hasNext())) {
          String key = take();
          LedgerKeys.EntryName name = LedgerKeys.parse(key);
          if (name == null) {
            continue; // not a ledger object: nobody's to read or remove
          }
          if (name.kind() == LedgerKeys.Kind.OUTCOMES) {
            next = outcomes(key, List.of(key));
            continue;
          }
          // Sorted by key, a window's outcomes come right after its intent.
          String following = keys.hasNext() || ahead != null ? take() : null;
          LedgerKeys.EntryName followingName = following == null ? null : LedgerKeys.parse(following);
          if (followingName != null && followingName.kind() == LedgerKeys.Kind.OUTCOMES
              && followingName.taskAttempt() == name.taskAttempt() && followingName.window() == name.window()) {
            // Outcomes that cannot be read (reported, and left in place) fall back on looking at the intent's keys.
            Window recorded = outcomes(following, List.of(key, following));
            next = recorded != null ? recorded : intent(key);
          } else {
            ahead = following;
            next = intent(key);
          }
        }
        return next != null;
      }

      @Override
      public Window next() {
        if (!hasNext()) {
          throw new NoSuchElementException("no more windows in " + folder);
        }
        Window window = next;
        next = null;
        return window;
      }

      private String take() {
        if (ahead != null) {
          String key = ahead;
          ahead = null;
          return key;
        }
        return keys.next();
      }

      private Window outcomes(String key, List<String> sources) {
        LedgerEntry entry = read(key);
        if (!(entry instanceof LedgerEntry.Outcomes outcomes)) {
          if (entry != null) {
            unreadable.accept(key + ": it is not a window's outcomes");
          }
          return null;
        }
        List<LedgerTry> tries = new ArrayList<>(outcomes.outcomes().size());
        outcomes.outcomes().forEach(outcome -> tries.add(new LedgerTry(outcome, false, outcomes.header().taskAttempt())));
        return new Window(tries, sources);
      }

      private Window intent(String key) {
        LedgerEntry entry = read(key);
        if (!(entry instanceof LedgerEntry.Intent intent)) {
          if (entry != null) {
            unreadable.accept(key + ": it is not a window's intent");
          }
          return null;
        }
        try {
          return new Window(IntentResolution.resolve(intent, store::find), List.of(key));
        } catch (RuntimeException e) {
          unreadable.accept(key + ": cannot look at its keys: " + e.getMessage());
          return null;
        }
      }

      /** The entry, or null when it is gone or cannot be read (then reported). */
      private LedgerEntry read(String key) {
        try {
          byte[] bytes = store.read(key);
          return bytes == null ? null : LedgerCodec.read(key, bytes);
        } catch (RuntimeException e) {
          unreadable.accept(key + ": " + e.getMessage());
          return null;
        }
      }
    };
  }
}
