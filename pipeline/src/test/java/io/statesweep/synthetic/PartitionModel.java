package io.statesweep.synthetic;

import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * A model of how S3 takes writes, for the synthetic endpoint (a test server, not the product): the key space in
 * partitions, each a range of keys from its first key, each taking {@code capacity} writes in any second, sliding (a
 * DeleteObjects counts each of its keys, a PUT one). A request that would pass a partition's capacity is answered 503
 * SlowDown, and so is every request to it after that until its last second falls under 90 % of the capacity: a
 * partition sheds load, and the exporter's uploads meet SlowDown with the cleanup's. A partition whose writes asked
 * (taken or refused) stayed at or above {@code splitLoad} of its capacity for {@code splitAfterSeconds} splits at the
 * middle of the keys written to it meanwhile: both halves take the whole capacity. The pipeline/README.md's "Deleting
 * at the bucket's speed" states these parameters beside the AWS guidance they model.
 */
public final class PartitionModel {
  private static final long SECOND = 1_000_000_000L;

  private final double capacity;
  private final int splitAfterSeconds;
  private final double splitLoad;
  private final LongSupplier clock;
  private final TreeMap<String, Partition> partitions = new TreeMap<>();
  private long splits;
  /** When each split happened, on the model's clock. */
  private final List<Long> splitTimes = new ArrayList<>();

  private static final class Partition {
    /** Writes in any second; NaN: the model's. */
    double capacity = Double.NaN;
    final ArrayDeque<long[]> taken = new ArrayDeque<>();
    long inLastSecond;
    boolean shedding;
    /** Writes asked in each whole second since the load began, and the keys written then (for the split point). */
    long second = Long.MIN_VALUE;
    long askedThisSecond;
    int loadedSeconds;
    final List<String> keys = new ArrayList<>();
  }

  /**
   * @param firstKeys where each partition begins, after the first (which begins at the empty key)
   * @param splitAfterSeconds 0: partitions never split
   */
  public PartitionModel(double capacity, List<String> firstKeys, int splitAfterSeconds, double splitLoad,
      LongSupplier clock) {
    if (!(capacity >= 1) || splitAfterSeconds < 0 || !(splitLoad > 0)) {
      throw new IllegalArgumentException("bad partition model");
    }
    this.capacity = capacity;
    this.splitAfterSeconds = splitAfterSeconds;
    this.splitLoad = splitLoad;
    this.clock = clock;
    partitions.put("", new Partition());
    firstKeys.forEach(key -> partitions.put(key, new Partition()));
  }

  /**
   * The partition that begins at {@code firstKey} (one of the model's) takes {@code writes} a second instead: for keys
   * whose writes are not scaled down with the model's capacity, such as statesweep's ledger, written per window of
   * records whatever the rate.
   */
  public synchronized PartitionModel withCapacity(String firstKey, double writes) {
    Partition partition = partitions.get(firstKey);
    if (partition == null || !(writes >= 1)) {
      throw new IllegalArgumentException("no partition begins at " + firstKey + ", or a capacity below 1: " + writes);
    }
    partition.capacity = writes;
    return this;
  }

  private double capacityOf(Partition partition) {
    return Double.isNaN(partition.capacity) ? capacity : partition.capacity;
  }

  /**
   * Whether the partitions of {@code keys} take them now (each key counted in its partition): false answers the
   * request 503 SlowDown, and none of its keys is written.
   */
  public synchronized boolean admit(List<String> keys) {
    long now = clock.getAsLong();
    Map<Partition, Integer> byPartition = new java.util.LinkedHashMap<>();
    Map<Partition, String> firstKey = new java.util.HashMap<>();
    for (String key : keys) {
      Partition partition = partitions.floorEntry(key).getValue();
      byPartition.merge(partition, 1, Integer::sum);
      firstKey.putIfAbsent(partition, key);
    }
    boolean admitted = true;
    for (Map.Entry<Partition, Integer> entry : byPartition.entrySet()) {
      Partition partition = entry.getKey();
      forget(partition, now);
      asked(partition, now, entry.getValue(), firstKey.get(partition));
      double most = capacityOf(partition);
      if (partition.shedding && partition.inLastSecond < 0.9 * most) {
        partition.shedding = false;
      }
      if (partition.shedding || partition.inLastSecond + entry.getValue() > most) {
        partition.shedding = true;
        admitted = false;
      }
    }
    if (admitted) {
      byPartition.forEach((partition, count) -> {
        partition.taken.addLast(new long[] {now, count});
        partition.inLastSecond += count;
      });
    }
    return admitted;
  }

  private static void forget(Partition partition, long now) {
    while (!partition.taken.isEmpty() && partition.taken.peekFirst()[0] <= now - SECOND) {
      partition.inLastSecond -= partition.taken.pollFirst()[1];
    }
  }

  /** Counts the writes asked of a partition; a partition loaded long enough splits. */
  private void asked(Partition partition, long now, int writes, String key) {
    long second = now / SECOND;
    if (partition.second != second) {
      boolean loaded = partition.second == second - 1 && partition.askedThisSecond >= splitLoad * capacityOf(partition);
      partition.loadedSeconds = loaded ? partition.loadedSeconds + 1 : 0;
      if (!loaded) {
        partition.keys.clear();
      }
      partition.second = second;
      partition.askedThisSecond = 0;
      if (splitAfterSeconds > 0 && partition.loadedSeconds >= splitAfterSeconds) {
        split(partition);
      }
    }
    partition.askedThisSecond += writes;
    if (partition.keys.size() < 100_000) {
      partition.keys.add(key);
    }
  }

  private void split(Partition partition) {
    List<String> keys = new ArrayList<>(partition.keys);
    keys.sort(null);
    String middle = keys.get(keys.size() / 2);
    String first = null;
    for (Map.Entry<String, Partition> entry : partitions.entrySet()) {
      if (entry.getValue() == partition) {
        first = entry.getKey();
      }
    }
    partition.loadedSeconds = 0;
    partition.keys.clear();
    if (middle.compareTo(first) > 0 && !partitions.containsKey(middle)) {
      partitions.put(middle, new Partition());
      splits++;
      splitTimes.add(clock.getAsLong());
    }
  }

  /** Where each partition begins now. */
  public synchronized List<String> firstKeys() {
    return new ArrayList<>(partitions.keySet());
  }

  public synchronized long splits() {
    return splits;
  }

  /** The partitions at {@code time} on the model's clock (the splits before it counted). */
  public synchronized int partitionsAt(long time) {
    return partitions.size() - (int) splitTimes.stream().filter(at -> at > time).count();
  }

  public double capacity() {
    return capacity;
  }
}
