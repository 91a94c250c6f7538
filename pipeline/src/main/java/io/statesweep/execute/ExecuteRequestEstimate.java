package io.statesweep.execute;

import io.statesweep.layout.ExportPrefix;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The S3 requests an execute of a plan will make, estimated by replaying how it works over one task's
 * records (ExecuteFunctions' windows, {@link RecordExecutor}'s requests), on a bucket that has not changed
 * since the plan:
 *
 * <ul>
 *   <li>per record, a GET of its state file (If-Match), then one more after its files went (every record
 *       with files to delete, and every {@code delete_record});
 *   <li>per record, a listing: one ListObjectsV2 of {@code <id>.} for a single-file record; for a folder
 *       record its folder a page (1,000 keys) at a time, the folder's keys taken as the plan saw them
 *       (deleted and kept; a nested record's keys can make it a page or two more, or fewer). The records of a
 *       window side by side in one parent folder share one listing ({@link SharedListing}): their keys a page
 *       at a time, never more than a listing each (the keys of other records between them, which the plan
 *       does not count per record, can make it more);
 *   <li>per window (at most 2 x {@code workers} records, and records until {@code batch-size} keys or the
 *       throttle's batch; where deletes are paced, a window of records of several lanes is one window per lane),
 *       the files of its records in DeleteObjects requests of up to {@code batch-size} keys, then their state
 *       files in requests of their own;
 * <li>per window, its ledger (pipeline/README.md, "Every delete on the record"): a PutObject of its intent (a window
 * with something to delete) and one of its outcomes; once the attempt ends, its ledger read back (a ListObjectsV2 per
 * 1,000 objects of the task's folder, a GetObject per window's outcomes) and removed (a ListObjectsV2 and a
 * DeleteObjects per 1,000 objects).
 * </ul>
 *
 * Not counted: a key XML cannot carry goes alone in a DeleteObject (free on S3, like every delete); the
 * run lock's renewals (one PutObject every third of {@code --lock-ttl}, so they depend on how long the
 * execute takes); the GetObject that reads the lock first on a store that ignores {@code If-None-Match: *}
 * (with {@code --unsafe-lock-without-conditional-writes}); requests that fail and are retried; lookups of keys a record lists outside its own
 * listing. Not thread-safe: one per task.
 */
public final class ExecuteRequestEstimate {
  public static final String GET = "GetObject";
  public static final String LIST = "ListObjectsV2";
  public static final String DELETE_OBJECTS = "DeleteObjects";
  public static final String PUT = "PutObject";
  private static final int PAGE_SIZE = 1000;

  private final int batchSize;
  private final int windowRecords;
  private final int windowKeys;
  private final int maxBatch;
  private final Map<String, Long> requests = new TreeMap<>();
  private int recordsInWindow;
  private long keysInWindow;
  private long filesInWindow;
  private long stateFilesInWindow;
  private boolean intentInWindow;
  /** The window's listings by parent folder: records, pages listed one by one, keys. */
  private final Map<String, long[]> listingsInWindow = new LinkedHashMap<>();
  private long windows;
  private long intents;
  /** The lane of a state file's key where deletes are paced; null: one lane. */
  private final java.util.function.UnaryOperator<String> laneOf;
  /** The window before its cut into lanes: its records and keys, and the lane of the part open now. */
  private int recordsInOuter;
  private long keysInOuter;
  private String lane;

  /**
   * @param keysPerSecondPerTask the task's share of {@code --max-deletes-per-second}; 0 for none
   */
  public ExecuteRequestEstimate(int batchSize, int workers, double keysPerSecondPerTask) {
    this(batchSize, workers, keysPerSecondPerTask, false);
  }

  /**
   * @param keysPerSecond the task's share of {@code --max-deletes-per-second}, or a lane's limit where deletes are
   *     paced; 0 for none
   * @param paced whether deletes are paced (requests sized as a lane's throttle sizes them)
   */
  public ExecuteRequestEstimate(int batchSize, int workers, double keysPerSecond, boolean paced) {
    this(batchSize, workers, keysPerSecond, paced, null);
  }

  /**
   * As above, with {@code laneOf} giving the lane of a record by its state file's key where deletes are paced
   * ({@link PacedLane#of}): a window of records of several lanes runs as one window per lane.
   */
  public ExecuteRequestEstimate(int batchSize, int workers, double keysPerSecond, boolean paced,
      java.util.function.UnaryOperator<String> laneOf) {
    this.laneOf = laneOf;
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("batchSize must be from 1 to 1000: " + batchSize);
    }
    this.batchSize = batchSize;
    this.maxBatch = DeleteThrottle.maxBatch(keysPerSecond, paced && keysPerSecond > 0);
    this.windowRecords = Math.max(1, 2 * workers);
    this.windowKeys = Math.max(1, Math.min(batchSize, maxBatch));
  }

  /**
   * One planned record, in the task's order (execute's: by state file key), listed with the records of its window
   * in the same parent folder.
   *
   * @param stateFileKey its state file: {@code <folder>/<id>.state.json} or {@code <folder>/<name>/state.json}
   * @param files keys it deletes other than its state file
   * @param deletesRecord whether it is a {@code delete_record} row (its state file goes too)
   * @param folderKeys the keys in its folder as the plan saw them (a folder record's listing)
   */
  public void add(String stateFileKey, long files, boolean deletesRecord, long folderKeys) {
    boolean singleFile = stateFileKey.endsWith(".state.json") && !stateFileKey.endsWith("/state.json");
    String prefix = singleFile ? stateFileKey.substring(0, stateFileKey.length() - "state.json".length())
        : stateFileKey.substring(0, stateFileKey.lastIndexOf('/') + 1);
    if (laneOf != null) {
      String itsLane = laneOf.apply(stateFileKey);
      if (recordsInWindow > 0 && !itsLane.equals(lane) && !outerFull()) {
        closeWindow(); // the same window, the next lane's part of it
      }
      lane = itsLane;
    }
    add(files, deletesRecord, singleFile, folderKeys, SharedListing.parentOf(prefix));
  }

  private boolean outerFull() {
    return recordsInOuter >= windowRecords || keysInOuter >= windowKeys;
  }

  /**
   * One planned record that shares no listing, in the task's order.
   *
   * @param singleFile whether its state file is an {@code <id>.state.json}
   */
  public void add(long files, boolean deletesRecord, boolean singleFile, long folderKeys) {
    add(files, deletesRecord, singleFile, folderKeys, null);
  }

  private void add(long files, boolean deletesRecord, boolean singleFile, long folderKeys, String parent) {
    if (outerFull()) {
      closeWindow();
      recordsInOuter = 0;
      keysInOuter = 0;
    }
    recordsInOuter++;
    keysInOuter += files + (deletesRecord ? 1 : 0);
    recordsInWindow++;
    keysInWindow += files + (deletesRecord ? 1 : 0);
    filesInWindow += files;
    stateFilesInWindow += deletesRecord ? 1 : 0;
    intentInWindow |= files > 0 || deletesRecord;
    count(GET, files > 0 || deletesRecord ? 2 : 1);
    long ownPages = singleFile ? 1 : Math.max(1, ceil(folderKeys, PAGE_SIZE));
    if (parent == null) {
      count(LIST, ownPages);
    } else {
      long[] listing = listingsInWindow.computeIfAbsent(parent, p -> new long[3]);
      listing[0]++;
      listing[1] += ownPages;
      listing[2] += singleFile ? 2 : folderKeys;
    }
  }

  /** The requests of the task's records so far, its last window included, by S3 operation. */
  public Map<String, Long> requests() {
    closeWindow();
    Map<String, Long> all = new TreeMap<>(requests);
    long ledgerObjects = windows + intents;
    if (ledgerObjects > 0) {
      all.merge(PUT, ledgerObjects, Long::sum);
      all.merge(GET, windows, Long::sum);
      all.merge(LIST, 2 * ceil(ledgerObjects, PAGE_SIZE), Long::sum);
      all.merge(DELETE_OBJECTS, ceil(ledgerObjects, PAGE_SIZE), Long::sum);
    }
    return all;
  }

  /**
   * The requests an attempt makes once, whatever its records: the probe of the lock's conditional write (two
   * PutObject, one DeleteObjects), the run lock (a conditional PutObject; its release, a DeleteObjects) and,
   * beside a prefix (no probe at the bucket root), the probe of conditional reads (a PutObject, a GetObject, a
   * DeleteObjects), with {@code --conditional-deletes auto} also of conditional deletes (one DeleteObjects); and two listings of
   * the ledger's folders: the attempts whose ledger another execute left (none, on a healthy bucket) and this
   * attempt's partitions.
   */
  public static Map<String, Long> perAttempt(ConditionalMode conditionalDeletes, ExportPrefix prefix) {
    boolean besidePrefix = !prefix.isBucketRoot();
    Map<String, Long> once = new TreeMap<>();
    once.put(PUT, 3L + (besidePrefix ? 1 : 0));
    once.put(DELETE_OBJECTS, 2L + (besidePrefix ? 1 : 0)
        + (besidePrefix && conditionalDeletes == ConditionalMode.AUTO ? 1 : 0));
    if (besidePrefix) {
      once.put(GET, 1L);
    }
    once.put(LIST, 2L);
    return once;
  }

  private void closeWindow() {
    if (recordsInWindow == 0) {
      return;
    }
    // As RecordExecutor's windows: batch-size keys a request, at most the throttle's batch (a window under one permit
    // holds at most that anyway).
    int keysPerRequest = keysInWindow > 0 && keysInWindow <= maxBatch ? batchSize : Math.min(batchSize, maxBatch);
    count(DELETE_OBJECTS, ceil(filesInWindow, keysPerRequest) + ceil(stateFilesInWindow, keysPerRequest));
    for (long[] listing : listingsInWindow.values()) {
      count(LIST, listing[0] == 1 ? listing[1] : Math.min(listing[1], Math.max(1, ceil(listing[2], PAGE_SIZE))));
    }
    listingsInWindow.clear();
    windows++;
    intents += intentInWindow ? 1 : 0;
    intentInWindow = false;
    recordsInWindow = 0;
    keysInWindow = 0;
    filesInWindow = 0;
    stateFilesInWindow = 0;
  }

  private void count(String operation, long requestsMore) {
    if (requestsMore > 0) {
      requests.merge(operation, requestsMore, Long::sum);
    }
  }

  private static long ceil(long keys, int perRequest) {
    return (keys + perRequest - 1) / perRequest;
  }
}
