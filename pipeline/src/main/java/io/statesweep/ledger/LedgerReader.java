package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteJournal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * Reads one partition's folder of an execute's ledger a window at a time (memory stays one window): a window whose
 * outcomes are all there is what they say; a window without them (its task attempt stopped after its intent and
 * before its outcomes, or while writing them) is resolved by looking at the keys of its intents
 * ({@link IntentResolution}): each group of deletes by every key its intent's objects name (each was written before
 * the deletes of its keys). Only ledgers of attempts whose tasks have all ended are read. An object that cannot be
 * read is reported and left in place, never guessed at; when it is an intent's, so is every object of its window,
 * which is left for a later reading.
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
   * @param unreadable told of each object that cannot be read, or stays beside one that cannot, its key and why: it
   *     stays where it is
   */
  public static Iterator<Window> windows(LedgerStore store, String folder, BiConsumer<String, String> unreadable) {
    requireNonNull(store, "store is null");
    requireNonNull(unreadable, "unreadable is null");
    Iterator<String> keys = store.keys(folder);
    return new Iterator<>() {
      /** The first key of the next window, read ahead to see where this one ends. */
      private String ahead;
      private Window next;

      @Override
      public boolean hasNext() {
        while (next == null && (ahead != null || keys.hasNext())) {
          String first = ahead != null ? ahead : keys.next();
          ahead = null;
          LedgerKeys.EntryName name = LedgerKeys.parse(first);
          if (name == null) {
            continue; // not a ledger object: nobody's to read or remove
          }
          // Sorted by key, every object of a window comes together: they share its prefix.
          Map<String, LedgerKeys.EntryName> window = new LinkedHashMap<>();
          window.put(first, name);
          while (ahead == null && keys.hasNext()) {
            String key = keys.next();
            LedgerKeys.EntryName keyName = LedgerKeys.parse(key);
            if (keyName == null) {
              continue;
            }
            if (keyName.taskAttempt() == name.taskAttempt() && keyName.window() == name.window()) {
              window.put(key, keyName);
            } else {
              ahead = key;
            }
          }
          next = new WindowReading(store, window, unreadable).read();
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
    };
  }

  /** One window's objects, read. */
  private static final class WindowReading {
    private final LedgerStore store;
    private final Map<String, LedgerKeys.EntryName> objects;
    private final BiConsumer<String, String> unreadable;
    private final Set<String> reported = new HashSet<>();

    WindowReading(LedgerStore store, Map<String, LedgerKeys.EntryName> objects, BiConsumer<String, String> unreadable) {
      this.store = store;
      this.objects = objects;
      this.unreadable = unreadable;
    }

    /** The window, or null when nothing of it can be recorded now. */
    Window read() {
      List<String> outcomeKeys = keys(LedgerKeys.Kind.OUTCOMES, 1);
      if (!outcomeKeys.isEmpty()) {
        LedgerEntry entry = outcomes(outcomeKeys);
        if (entry instanceof LedgerEntry.Outcomes outcomes) {
          List<LedgerTry> tries = new ArrayList<>(outcomes.outcomes().size());
          outcomes.outcomes().forEach(outcome -> tries.add(new LedgerTry(outcome, false,
              outcomes.header().taskAttempt())));
          return new Window(tries, List.copyOf(objects.keySet()));
        }
        // Outcomes that are not all there, or cannot be read: the intents' keys are looked at instead.
      }
      Map<String, DeleteJournal.IntendedRecord> records = new LinkedHashMap<>();
      LedgerEntry.Header header = null;
      int lastGroup = 0;
      for (int group : new TreeSet<>(objects.values().stream().filter(name -> name.kind() == LedgerKeys.Kind.INTENT)
          .map(LedgerKeys.EntryName::group).toList())) {
        List<LedgerCodec.Part> parts = new ArrayList<>();
        String unread = null;
        for (String key : keys(LedgerKeys.Kind.INTENT, group)) {
          LedgerCodec.Part part = read(key);
          if (part == null) {
            unread = key;
            break;
          }
          parts.add(part);
        }
        if (unread != null) {
          // Which of its keys were deleted cannot be known until it is read: the window stays whole.
          String cannot = unread;
          objects.keySet().forEach(key -> report(key, "kept beside " + cannot + ", an intent of its window that cannot"
              + " be read"));
          return null;
        }
        LedgerEntry.Intent intent = (LedgerEntry.Intent) LedgerCodec.join(parts);
        intent.records().forEach(record -> records.put(record.stateFileKey(), record));
        header = intent.header();
        lastGroup = intent.group();
      }
      if (header == null) {
        return null;
      }
      LedgerEntry.Intent intent = new LedgerEntry.Intent(header, lastGroup, List.copyOf(records.values()));
      List<String> sources = objects.keySet().stream().filter(key -> !reported.contains(key)).toList();
      try {
        return new Window(IntentResolution.resolve(intent, store::find), sources);
      } catch (RuntimeException e) {
        sources.forEach(key -> report(key, "cannot look at the keys of its window's intent: " + e.getMessage()));
        return null;
      }
    }

    /** The window's objects of one kind (and group, for intents), by part. */
    private List<String> keys(LedgerKeys.Kind kind, int group) {
      return objects.entrySet().stream()
          .filter(entry -> entry.getValue().kind() == kind && entry.getValue().group() == group)
          .sorted(java.util.Comparator.comparingInt(entry -> entry.getValue().part()))
          .map(Map.Entry::getKey).toList();
    }

    /**
     * The window's outcomes, from their objects; null when a part is missing (it was never written: its writer
     * stopped first) or cannot be read (then each part is reported).
     */
    private LedgerEntry outcomes(List<String> keys) {
      List<LedgerCodec.Part> parts = new ArrayList<>(keys.size());
      for (String key : keys) {
        LedgerCodec.Part part = read(key);
        if (part == null) {
          keys.stream().filter(other -> !reported.contains(other)).forEach(other -> report(other,
              "kept beside " + key + ", a part of the same entry that cannot be read"));
          return null;
        }
        parts.add(part);
      }
      int declared = parts.get(0).parts();
      if (parts.size() < declared && parts.stream().allMatch(part -> part.parts() == declared)
          && parts.stream().map(LedgerCodec.Part::part).distinct().count() == parts.size()) {
        return null; // parts never written: its writer stopped first
      }
      try {
        return LedgerCodec.join(parts);
      } catch (IllegalArgumentException e) {
        keys.forEach(key -> report(key, "Invalid ledger entry of " + String.join(", ", keys) + ": " + e.getMessage()));
        return null;
      }
    }

    /** The object's part, or null when it is gone or cannot be read (then reported). */
    private LedgerCodec.Part read(String key) {
      try {
        byte[] bytes = store.read(key);
        if (bytes == null) {
          report(key, "it is gone"); // listed a moment ago: whoever removed it, nothing of its window is guessed
          return null;
        }
        LedgerCodec.Part part = LedgerCodec.read(key, bytes);
        LedgerKeys.EntryName name = objects.get(key);
        if (part.kind() != name.kind() || part.group() != name.group() || part.part() != name.part()
            || part.entry().header().taskAttempt() != name.taskAttempt()
            || part.entry().header().window() != name.window()) {
          report(key, "Invalid ledger object " + key + ": its fields are not those of its name");
          return null;
        }
        return part;
      } catch (RuntimeException e) {
        report(key, e.getMessage());
        return null;
      }
    }

    private void report(String key, String why) {
      if (reported.add(key)) {
        unreadable.accept(key, why);
      }
    }
  }
}
