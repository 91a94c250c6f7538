package io.statesweep.synthetic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the synthetic server deleted of the archive (keys under its prefix), and when, as the store counts it: the moment each key went, and
 * per record folder the first GET of its state file and its last deleted key (since the log was
 * cleared). Answers the most keys deleted in any span (sliding) and the time from each record's
 * verification (its state file read) to its last delete.
 */
public final class DeleteLog {
  private long[] deletedAt = new long[1 << 16];
  private int keys;
  private final Map<String, Long> firstStateRead = new HashMap<>();
  private final Map<String, Long> lastDelete = new HashMap<>();

  synchronized void deleted(String key, long nanos) {
    if (keys == deletedAt.length) {
      deletedAt = Arrays.copyOf(deletedAt, keys * 2);
    }
    deletedAt[keys++] = nanos;
    lastDelete.merge(folder(key), nanos, Math::max);
  }

  synchronized void stateFileRead(String key, long nanos) {
    firstStateRead.putIfAbsent(folder(key), nanos);
  }

  private static String folder(String key) {
    return key.substring(0, key.lastIndexOf('/') + 1);
  }

  public synchronized void clear() {
    keys = 0;
    firstStateRead.clear();
    lastDelete.clear();
  }

  /** Keys deleted. */
  public synchronized long keys() {
    return keys;
  }

  /** Seconds from the first key deleted to the last. */
  public synchronized double seconds() {
    if (keys < 2) {
      return 0;
    }
    long[] sorted = sorted();
    return (sorted[keys - 1] - sorted[0]) / 1e9;
  }

  /** The most keys deleted in any closed span of {@code spanNanos}, wherever it starts. */
  public synchronized long mostKeysInAnySpan(long spanNanos) {
    long[] sorted = sorted();
    long most = 0;
    int right = 0;
    for (int left = 0; left < keys; left++) {
      while (right < keys && sorted[right] <= sorted[left] + spanNanos) {
        right++;
      }
      most = Math.max(most, right - left);
    }
    return most;
  }

  /** When the first key was deleted ({@code System.nanoTime()}), or 0 when none was. */
  public synchronized long firstDeletedAt() {
    return keys == 0 ? 0 : sorted()[0];
  }

  /** Keys deleted in each calendar second from the first deletion on (the last, partial second left out). */
  public synchronized long[] keysPerSecond() {
    long[] sorted = sorted();
    if (keys == 0) {
      return new long[0];
    }
    int seconds = (int) ((sorted[keys - 1] - sorted[0]) / 1_000_000_000L);
    long[] counts = new long[seconds];
    for (int i = 0; i < keys; i++) {
      int second = (int) ((sorted[i] - sorted[0]) / 1_000_000_000L);
      if (second < seconds) {
        counts[second]++;
      }
    }
    return counts;
  }

  /**
   * Milliseconds from a record's first state-file GET to its last deleted key, for every record folder
   * with both, sorted.
   */
  public synchronized double[] verificationToLastDeleteMillis() {
    List<Double> windows = new ArrayList<>();
    lastDelete.forEach((folder, deleted) -> {
      Long read = firstStateRead.get(folder);
      if (read != null) {
        windows.add((deleted - read) / 1e6);
      }
    });
    return windows.stream().mapToDouble(Double::doubleValue).sorted().toArray();
  }

  private long[] sorted() {
    long[] sorted = Arrays.copyOf(deletedAt, keys);
    Arrays.sort(sorted);
    return sorted;
  }
}
