package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.DeleteThrottle;
import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removes the ledger objects of an attempt once {@code executions} holds their rows (pipeline/README.md, "Every delete
 * on the record"). The rows are safe by then, so the removal is housekeeping and never fails the attempt: its deletes
 * go under a ceiling (the ledger's folder is a partition of the bucket like any other, and the exporter writes beside
 * it), a request the store refuses (a SlowDown past the SDK's retries, a network failure) is tried again after a wait
 * that doubles, and after {@value #MAX_REFUSALS} refusals in a row the rest stays where it is: the next execute reads
 * it, finds its rows recorded, and removes it.
 */
public final class LedgerCleanup {
  /** Refusals in a row after which the removal stops and leaves the rest. */
  public static final int MAX_REFUSALS = 6;
  /** The wait after the first refusal; each next one doubles it, up to {@link #MAX_WAIT_MILLIS}. */
  static final long FIRST_WAIT_MILLIS = 1_000;
  static final long MAX_WAIT_MILLIS = 30_000;
  /** Per-key failures named in the result; the others are counted. */
  static final int NAMED_FAILURES = 10;

  /** Waits between tries: Thread.sleep, or a recorder in tests. */
  public interface Waiter {
    /** Waits {@code millis}; false when interrupted (the removal stops, leaving the rest). */
    boolean await(long millis);
  }

  public static final Waiter SLEEP = millis -> {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  };

  /**
   * What a removal did.
   *
   * @param removed objects removed
   * @param failedKeys objects the store answered it could not remove (they stay), the first {@value #NAMED_FAILURES}
   *     with why
   * @param failedKeyCount how many such objects in all
   * @param stoppedBy why the removal stopped before the end (the last refusal), or null when it went through: then
   *     every object but {@code keep}, {@code failedKeys} and those held is gone
   * @param held intent objects of windows without outcomes that stay, since their task may still be deleting
   *     ({@link #remove(Collection, Set, Instant)})
   */
  public record Removal(long removed, Map<String, String> failedKeys, long failedKeyCount, String stoppedBy,
      long held) {
    public Removal {
      failedKeys = Map.copyOf(failedKeys);
    }

    /** Whether objects other than those kept stay. */
    public boolean incomplete() {
      return stoppedBy != null || failedKeyCount > 0;
    }
  }

  private final LedgerStore store;
  private final DeleteThrottle throttle;
  private final Waiter waiter;

  /** @param throttle the ceiling of the removal's deletes (its {@link DeleteThrottle#maxBatch()} sizes requests) */
  public LedgerCleanup(LedgerStore store, DeleteThrottle throttle, Waiter waiter) {
    this.store = requireNonNull(store, "store is null");
    this.throttle = requireNonNull(throttle, "throttle is null");
    this.waiter = requireNonNull(waiter, "waiter is null");
  }

  /**
   * Removes every ledger object (a key {@link LedgerKeys#parse} knows) under each of {@code folders} but those in
   * {@code keep}; the folders' other objects are never touched.
   */
  public Removal remove(Collection<String> folders, Set<String> keep) {
    return remove(folders, keep, null);
  }

  /**
   * As {@link #remove(Collection, Set)}, and the intent objects of a window that has no outcomes object stay when one
   * of them was written at or after {@code heldSince} (null: none stays): its task stopped after the intent, or is
   * still running, and a DeleteObjects it sent may still be answered (a holder whose lock was taken over, its requests
   * retried by the SDK): recorded again later, what went meanwhile is added to the attempt's rows, and then they go.
   */
  public Removal remove(Collection<String> folders, Set<String> keep, Instant heldSince) {
    long removed = 0;
    Map<String, String> named = new LinkedHashMap<>();
    Set<String> failed = new HashSet<>();
    int refusals = 0;
    int batchSize = Math.min(1000, throttle.maxBatch());
    Set<String> held = new HashSet<>();
    for (String folder : folders) {
      boolean done = false;
      while (!done) {
        try {
          Iterator<StoredObject> objects = store.objects(folder);
          List<String> batch = new ArrayList<>();
          Window window = new Window(heldSince);
          while (objects.hasNext() || !batch.isEmpty() || !window.isEmpty()) {
            StoredObject object = objects.hasNext() ? objects.next() : null;
            String key = object == null ? null : object.key();
            LedgerKeys.EntryName name = key == null ? null : LedgerKeys.parse(key);
            if (name != null && !keep.contains(key) && !failed.contains(key)) {
              window.add(key, name, object.lastModified(), batch, held);
            }
            if (key == null) {
              window.close(batch, held);
            }
            while (batch.size() >= batchSize || key == null && !batch.isEmpty()) {
              List<String> request = batch.subList(0, Math.min(batchSize, batch.size()));
              Map<String, String> refused;
              try (DeleteThrottle.Permit ignored = throttle.reserve(request.size())) {
                refused = store.delete(List.copyOf(request));
              }
              removed += request.size() - refused.size();
              refused.forEach((failedKey, why) -> {
                failed.add(failedKey);
                if (named.size() < NAMED_FAILURES) {
                  named.put(failedKey, why);
                }
              });
              request.clear();
              refusals = 0;
            }
          }
          done = true;
        } catch (StoreException e) {
          // Listed again from the folder's start: what was removed is gone from the listing, what failed is skipped.
          refusals++;
          long wait = Math.min(MAX_WAIT_MILLIS, FIRST_WAIT_MILLIS << (refusals - 1));
          if (refusals >= MAX_REFUSALS || !waiter.await(wait)) {
            return new Removal(removed, named, failed.size(), e.getMessage(), held.size());
          }
        }
      }
    }
    return new Removal(removed, named, failed.size(), null, held.size());
  }

  /**
   * The objects of one window of one task attempt as the listing meets them (its intents sort before its outcomes, and
   * a window's objects come together): its intents wait until the window ends, then go to the batch, or are held.
   */
  private static final class Window {
    private final Instant heldSince;
    private String id;
    private final List<String> intents = new ArrayList<>();
    private boolean answered;
    private boolean young;

    Window(Instant heldSince) {
      this.heldSince = heldSince;
    }

    boolean isEmpty() {
      return intents.isEmpty();
    }

    void add(String key, LedgerKeys.EntryName name, Instant written, List<String> batch, Set<String> held) {
      String of = key.substring(0, key.lastIndexOf('/') + 1) + name.taskAttempt() + "-" + name.window();
      if (!of.equals(id)) {
        close(batch, held);
        id = of;
      }
      if (name.kind() == LedgerKeys.Kind.INTENT) {
        intents.add(key);
        young |= heldSince != null && !written.isBefore(heldSince);
      } else {
        answered = true; // its intents go, before it, in the listing's order
        batch.addAll(intents);
        intents.clear();
        batch.add(key);
      }
    }

    /** The window ended: its intents to the batch, unless none of its outcomes came and one of them is young. */
    void close(List<String> batch, Set<String> held) {
      if (answered || !young) {
        batch.addAll(intents);
      } else {
        held.addAll(intents);
      }
      intents.clear();
      answered = false;
      young = false;
      id = null;
    }
  }
}
