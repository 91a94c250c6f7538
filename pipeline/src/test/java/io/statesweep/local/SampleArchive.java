package io.statesweep.local;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Keys;
import io.statesweep.layout.Layout;
import io.statesweep.plan.Action;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a sample export of the {@code cogram} layout into a bucket, for the embedded demo and for
 * tests, and returns a {@link Manifest} of what a correct cleanup must decide for it.
 *
 * <p>The archive has records at <b>every</b> state-file place of the layout (pipeline/README.md, "The layout"): the
 * organisation, agents, prompts, organisation knowledge entries, projects, project records of every kind of the
 * built-in layout, chat messages, records and chat messages of {@code unassigned_project}, workflows and workflow runs.
 * Around them it writes keys that are not records: the exporter's own files under {@code _cogram/} (never read, never
 * deleted), attachments named like state files ({@code .../attachments/state.json}, a file of their record), and a
 * folder of a kind the layout does not know ({@code projects/<p>/punch_lists/<id>/state.json}). Every {@link
 * SampleCase} appears at least once (a fixed catalogue of {@link #minimumRecordCount()} records comes first); the rest
 * of the records are a seeded random mix, weighted towards live records as in a real export.
 *
 * <p>The manifest is an <b>independent oracle</b>: each record's expectation follows from how this
 * class built it and the rules of README, "Actions (one per record)" (see {@link SampleRecord#expectedAction}),
 * never from {@code io.statesweep.plan.Planner}.
 *
 * <p>Timing. S3Proxy's LastModified has whole seconds, and a record is coming back only when a file
 * is <i>strictly</i> newer than its state file. So objects go in waves, each written by
 * {@value #WRITER_THREADS} threads and started only once the one before it is stored: every file
 * first; then the state files, innermost first (a record's state file in a wave after every state file
 * in its folder and every state file it lists, so a project's after its records' and theirs after
 * their chat messages'); then, after a pause of just over a second (once), the files of the records
 * that are coming back. Since no write of a wave starts before the store has answered every write of
 * the waves before, no state file is older than a file or a state file it owns or lists, however
 * slowly the writers are scheduled; only the coming-back files are newer. The LastModified of records
 * marked {@code delete: true} without a {@code deleted_at} is read back, since it is their marking
 * time; the coming-back files are read back to check they are strictly newer. The pause comes whatever
 * the archive holds, so a plan whose listing begins after {@link #generate} returns began more than a
 * second after every state file was written, and names each file a live record lists and the bucket
 * lacks ({@code missing <key>}), as the manifest expects.
 *
 * <p>Keys avoid what S3Proxy cannot store (a real bucket can): {@code //}, {@code .} and {@code ..}
 * segments, a key that is also the "folder" of another key, segments over 255 bytes. The generator
 * checks its own keys for these before writing anything.
 */
public final class SampleArchive {
  public static final int DEFAULT_RECORD_COUNT = 2_000;
  public static final long DEFAULT_SEED = 20_261_129L;
  /** Threads that write each wave. */
  public static final int WRITER_THREADS = 16;

  /**
   * Just over S3Proxy's LastModified resolution of one second, and over the second by which a plan takes its
   * listing to begin earlier than it did (so that it names the missing files of every live record here).
   */
  private static final Duration NEWER_FILES_PAUSE = Duration.ofMillis(1_100);
  private static final int MAX_SEGMENT_BYTES = 255;
  private static final ObjectMapper JSON = new ObjectMapper();

  private SampleArchive() {}

  /**
   * What the generator built a record to be. Each case names the document it writes and, for the
   * default grace of 0 days, the action a correct plan takes. "Marked" means {@code delete: true,
   * status: deleted}; "old mark" is a {@code deleted_at} 10 to 60 days before {@code now}.
   */
  public enum SampleCase {
    /** {@code delete: false}, no expiry, every listed file exists: {@code keep}. */
    LIVE,
    /**
     * Live, with one {@code delete_files} key that exists and one that is already gone:
     * {@code delete_removed_files} of the existing one only.
     */
    LIVE_WITH_REMOVED_FILES,
    /** Live, with {@code delete_files} that are all gone already: {@code keep} (no delete marker each run). */
    LIVE_REMOVED_FILES_GONE,
    /** Live, with one existing key in both {@code files} and {@code delete_files}: {@code keep}, the key stays. */
    LIVE_REMOVED_FILE_ALSO_IN_FILES,
    /** Live, listing a file that does not exist: {@code keep}. */
    LIVE_WITH_MISSING_FILES,
    /** Marked with an old mark: {@code delete_record} (files, then the state file). */
    DELETED,
    /**
     * Marked without a {@code deleted_at}: the state file's LastModified is the mark, so it is due at
     * grace 0 only if {@code now} is not before that second; otherwise {@code not_yet_due}.
     */
    DELETED_WITHOUT_MARK,
    /** Marked with an old mark and listing a file that does not exist: {@code delete_record} of the rest. */
    DELETED_WITH_MISSING_FILES,
    /** Marked with an old mark, with an existing and a gone {@code delete_files} key: both kinds of key go. */
    DELETED_WITH_REMOVED_FILES,
    /** {@code delete: false} with {@code expires_at} 1 to 90 days before {@code now}: {@code delete_record}. */
    EXPIRED,
    /** {@code delete: false} with {@code expires_at} 1 to 365 days after {@code now}: {@code keep}. */
    NOT_YET_EXPIRED,
    /**
     * Marked with a {@code deleted_at} 1 to 20 hours before {@code now}: {@code delete_record} at grace
     * 0, {@code not_yet_due} with a grace of a day or more.
     */
    RECENTLY_DELETED,
    /**
     * As {@link #RECENTLY_DELETED} with an existing {@code delete_files} key: {@code delete_record} at
     * grace 0; {@code delete_removed_files} within the grace, since removed files do not wait for it.
     */
    RECENTLY_DELETED_WITH_REMOVED_FILES,
    /**
     * Marked with an old mark, but a listed file (a single-file record's {@code <id>.json}) was written
     * again after the state file: {@code kept_newer_files}, the record is coming back.
     */
    COMING_BACK,
    /**
     * Marked with an old mark, but a file that it does not list yet appeared in its folder after the
     * state file: {@code kept_newer_files}. Folder records only.
     */
    COMING_BACK_NEW_FILE,
    /** Marked, and lists an existing key outside its folder: {@code kept_refused}. Folder records. */
    REFUSED_OUTSIDE_FOLDER,
    /** An {@code <id>.state.json}, marked, listing an existing key besides its sibling: {@code kept_refused}. */
    REFUSED_NOT_SIBLING,
    /** Marked, and lists a key of the exporter's own {@code _cogram/} folder: {@code kept_refused}. */
    REFUSED_EXPORTER_FOLDER,
    /**
     * Marked, and lists a key inside its folder that belongs to a nested record with its own state
     * file (a workflow listing its run's {@code <run>.json}): {@code kept_refused}.
     */
    REFUSED_OTHER_RECORD_FOLDER,
    /** Marked, and lists the state file of a nested record (a project listing one of its records'): {@code kept_refused}. */
    REFUSED_OTHER_STATE_FILE,
    /** A state file cut in half (not JSON) that meant {@code delete: true}: {@code bad_state}. */
    BAD_NOT_JSON,
    /** {@code "delete": "true"} (a string, not a boolean): {@code bad_state}. */
    BAD_DELETE_TYPE,
    /** {@code "expires_at": "next tuesday"}: {@code bad_state}. */
    BAD_EXPIRES_AT;

    boolean isComingBack() {
      return this == COMING_BACK || this == COMING_BACK_NEW_FILE;
    }

    boolean isBadDocument() {
      return this == BAD_NOT_JSON || this == BAD_DELETE_TYPE || this == BAD_EXPIRES_AT;
    }

    boolean isMissingFiles() {
      return this == LIVE_WITH_MISSING_FILES || this == DELETED_WITH_MISSING_FILES;
    }
  }

  /**
   * One record as built, with everything needed to say what a correct plan does with it.
   *
   * @param stateFileKey the state file
   * @param recordType the layout's record type of its place, such as {@code project_record}
   * @param sampleCase how it was built
   * @param files the document's {@code files}, in order
   * @param deleteFiles the document's {@code delete_files}, in order
   * @param existingKeys the keys of {@code files} and {@code delete_files} that exist in the bucket
   * @param newerKeys keys of the record written strictly after its state file (coming back)
   * @param markedForDeletion the document says {@code delete: true}
   * @param markedAt when it was marked: its {@code deleted_at}, else its state file's LastModified;
   *     null unless marked
   * @param expiresAt the document's {@code expires_at}, or null
   * @param refusedKey the key the state file may not list, or null
   * @param badDocument the document is not a valid state file
   */
  public record SampleRecord(
      String stateFileKey,
      String recordType,
      SampleCase sampleCase,
      List<String> files,
      List<String> deleteFiles,
      Set<String> existingKeys,
      Set<String> newerKeys,
      boolean markedForDeletion,
      Instant markedAt,
      Instant expiresAt,
      String refusedKey,
      boolean badDocument) {

    public SampleRecord {
      requireNonNull(stateFileKey, "stateFileKey is null");
      requireNonNull(recordType, "recordType is null");
      requireNonNull(sampleCase, "sampleCase is null");
      files = List.copyOf(files);
      deleteFiles = List.copyOf(deleteFiles);
      existingKeys = Collections.unmodifiableSet(new TreeSet<>(existingKeys));
      newerKeys = Collections.unmodifiableSet(new TreeSet<>(newerKeys));
      if (markedForDeletion && markedAt == null && !badDocument) {
        throw new IllegalArgumentException("record " + stateFileKey + " is marked for deletion without a marking time");
      }
    }

    /**
     * The action (README, "Actions (one per record)") at {@code now} with a grace period: a bad document is
     * {@code bad_state}; a refused key keeps it whole ({@code kept_refused}); a record is due when
     * {@code now} is not before the earlier of (mark + grace) and ({@code expires_at} + grace); a due
     * record with a strictly newer file is {@code kept_newer_files}, else {@code delete_record}; a
     * record that is not due deletes its existing {@code delete_files} that are not also in
     * {@code files} ({@code delete_removed_files}), else it is {@code not_yet_due} when marked or
     * expired and {@code keep} when live.
     */
    public Action expectedAction(Instant now, Duration grace) {
      requireNonNull(now, "now is null");
      requireNonNull(grace, "grace is null");
      if (badDocument) {
        return Action.BAD_STATE;
      }
      if (refusedKey != null) {
        return Action.KEPT_REFUSED;
      }
      if (isDue(now, grace)) {
        return newerKeys.isEmpty() ? Action.DELETE_RECORD : Action.KEPT_NEWER_FILES;
      }
      if (!removableFiles().isEmpty()) {
        return Action.DELETE_REMOVED_FILES;
      }
      boolean expired = expiresAt != null && !now.isBefore(expiresAt);
      return markedForDeletion || expired ? Action.NOT_YET_DUE : Action.KEEP;
    }

    /**
     * The keys a plan deletes for this record: for {@code delete_record} its existing {@code files}
     * and {@code delete_files} and its state file; for {@code delete_removed_files} the existing
     * {@code delete_files} not also in {@code files}; nothing otherwise.
     */
    public Set<String> expectedDeletes(Instant now, Duration grace) {
      Action action = expectedAction(now, grace);
      Set<String> deletes = new TreeSet<>();
      if (action == Action.DELETE_RECORD) {
        for (String key : files) {
          if (existingKeys.contains(key)) {
            deletes.add(key);
          }
        }
        deletes.addAll(removableOrListed());
        deletes.add(stateFileKey);
      } else if (action == Action.DELETE_REMOVED_FILES) {
        deletes.addAll(removableFiles());
      }
      return Collections.unmodifiableSet(deletes);
    }

    private boolean isDue(Instant now, Duration grace) {
      if (markedForDeletion && grace.isZero()) {
        return true;
      }
      Instant dueAt = null;
      if (markedForDeletion) {
        dueAt = markedAt.plus(grace);
      }
      if (expiresAt != null) {
        Instant expiryDue = expiresAt.plus(grace);
        dueAt = dueAt == null || expiryDue.isBefore(dueAt) ? expiryDue : dueAt;
      }
      return dueAt != null && !now.isBefore(dueAt);
    }

    /** Existing {@code delete_files} keys, whether or not also in {@code files}. */
    private Set<String> removableOrListed() {
      Set<String> keys = new TreeSet<>();
      for (String key : deleteFiles) {
        if (existingKeys.contains(key)) {
          keys.add(key);
        }
      }
      return keys;
    }

    private Set<String> removableFiles() {
      Set<String> keys = removableOrListed();
      keys.removeAll(files);
      return keys;
    }
  }

  /**
   * What was written and what a correct cleanup decides for it.
   *
   * @param prefix the export prefix, such as {@code cogram/}
   * @param now the time the expectations are computed at by default, and the base of the documents'
   *     timestamps
   * @param records every record (a state file at a place of the layout), by state-file key
   * @param objectCount every key written under the prefix
   * @param skippedKeys keys named like state files that must be skipped, not read as state files:
   *     attachments named {@code state.json} or {@code *.state.json}, and state files in a kind folder
   *     the layout does not know
   * @param exporterKeys the keys of the exporter's {@code _cogram/} folder, which nothing may touch
   */
  public record Manifest(
      String prefix,
      Instant now,
      Map<String, SampleRecord> records,
      int objectCount,
      Set<String> skippedKeys,
      Set<String> exporterKeys) {

    public Manifest {
      requireNonNull(prefix, "prefix is null");
      requireNonNull(now, "now is null");
      records = Collections.unmodifiableMap(new TreeMap<>(records));
      skippedKeys = Collections.unmodifiableSet(new TreeSet<>(skippedKeys));
      exporterKeys = Collections.unmodifiableSet(new TreeSet<>(exporterKeys));
      if (objectCount < records.size() + skippedKeys.size() + exporterKeys.size()) {
        throw new IllegalArgumentException("objectCount " + objectCount + " is less than the keys the manifest names");
      }
    }

    public int recordCount() {
      return records.size();
    }

    public int skippedCount() {
      return skippedKeys.size();
    }

    /** State-file key → expected action label, with grace 0 at {@link #now()}. */
    public Map<String, String> expectedActions() {
      return expectedActions(Duration.ZERO);
    }

    /** State-file key → expected action label, with a grace period, at {@link #now()}. */
    public Map<String, String> expectedActions(Duration grace) {
      Map<String, String> actions = new TreeMap<>();
      records.forEach((key, record) -> actions.put(key, record.expectedAction(now, grace).label()));
      return Collections.unmodifiableMap(actions);
    }

    /** Every key a dry run plans to delete, with grace 0 at {@link #now()}. */
    public Set<String> expectedDeletes() {
      return expectedDeletes(Duration.ZERO);
    }

    /** Every key a dry run plans to delete, with a grace period, at {@link #now()}. */
    public Set<String> expectedDeletes(Duration grace) {
      Set<String> deletes = new TreeSet<>();
      records.values().forEach(record -> deletes.addAll(record.expectedDeletes(now, grace)));
      return Collections.unmodifiableSet(deletes);
    }

    /** Action label → how many records take it, with a grace period, at {@link #now()}. */
    public Map<String, Long> countsByAction(Duration grace) {
      Map<String, Long> counts = new TreeMap<>();
      records.values().forEach(record -> counts.merge(record.expectedAction(now, grace).label(), 1L, Long::sum));
      return Collections.unmodifiableMap(counts);
    }

    public Map<SampleCase, Long> countsByCase() {
      Map<SampleCase, Long> counts = new EnumMap<>(SampleCase.class);
      records.values().forEach(record -> counts.merge(record.sampleCase(), 1L, Long::sum));
      return Collections.unmodifiableMap(counts);
    }
  }

  /** The size of the fixed catalogue that holds every case at every place: the fewest records to ask for. */
  public static int minimumRecordCount() {
    return new Design("", new Random(0), Instant.EPOCH, kinds()).catalogue().drafts.size();
  }

  /** {@value #DEFAULT_RECORD_COUNT} records with the default seed. */
  public static Manifest generate(ObjectStore store, String prefix, Instant now) {
    return generate(store, prefix, DEFAULT_RECORD_COUNT, DEFAULT_SEED, now);
  }

  /**
   * Writes {@code recordCount} records (state files at places of the layout; skipped and exporter keys
   * come on top) under {@code prefix} and returns what a cleanup at {@code now} must decide. The same
   * seed and {@code now} write the same keys and documents. The bucket should not already hold keys
   * under the prefix: they would count as neither records nor expectations.
   *
   * <p>Documents' timestamps are relative to {@code now}, but a {@link SampleCase#DELETED_WITHOUT_MARK}
   * record's mark is the real time its state file was written: with a {@code now} taken before this
   * call it is {@code not_yet_due} at grace 0; the manifest says so either way.
   *
   * @throws IllegalArgumentException if {@code recordCount} is below {@link #minimumRecordCount()}
   * @throws io.statesweep.store.StoreException if a write fails (the archive is then partly written)
   */
  public static Manifest generate(ObjectStore store, String prefix, int recordCount, long seed, Instant now) {
    requireNonNull(store, "store is null");
    requireNonNull(prefix, "prefix is null");
    requireNonNull(now, "now is null");
    int minimum = minimumRecordCount();
    if (recordCount < minimum) {
      throw new IllegalArgumentException("recordCount must be at least " + minimum
          + " (the catalogue of every case at every place): " + recordCount);
    }
    String exportPrefix = ExportPrefix.of(prefix).value();
    Design design = new Design(exportPrefix, new Random(seed), now, kinds()).catalogue().fill(recordCount);
    List<Map<String, byte[]>> stateFileWaves = design.stateFileWaves();
    checkKeys(design.allKeys());

    ExecutorService pool = Executors.newFixedThreadPool(WRITER_THREADS, runnable -> {
      Thread thread = new Thread(runnable, "statesweep-sample-writer");
      thread.setDaemon(true);
      return thread;
    });
    try {
      writeAll(store, design.olderObjects, pool);
      // A wave starts only once the one before it is stored, so its LastModified is never earlier.
      for (Map<String, byte[]> stateFiles : stateFileWaves) {
        writeAll(store, stateFiles, pool);
      }
      // Once for the whole archive: every later write lands in a later second than every state file, and a
      // listing that begins after this returns begins over a second after the last state file was stored.
      sleep(NEWER_FILES_PAUSE);
      writeAll(store, design.newerObjects, pool);
      Map<String, Instant> lastModified = readLastModified(store, design.keysToReadBack(), pool);
      checkNewerFiles(design, lastModified);
      return design.manifest(lastModified);
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<String> kinds() {
    // Sorted: Layout.kinds() is a set without order, and the same seed must build the same archive.
    return List.copyOf(new TreeSet<>(Layout.builtIn(Layout.DEFAULT_NAME).kinds()));
  }

  private static void writeAll(ObjectStore store, Map<String, byte[]> objects, ExecutorService pool) {
    List<Callable<String>> writes = new ArrayList<>(objects.size());
    objects.forEach((key, content) -> writes.add(() -> store.write(key, content)));
    runAll(pool, writes);
  }

  private static Map<String, Instant> readLastModified(ObjectStore store, Set<String> keys, ExecutorService pool) {
    List<String> ordered = new ArrayList<>(keys);
    List<Callable<StoredObject>> reads = new ArrayList<>(ordered.size());
    for (String key : ordered) {
      reads.add(() -> {
        ObjectContent content = store.read(key, 1);
        if (content == null) {
          throw new IllegalStateException("Sample object " + key + " is missing right after it was written");
        }
        return content.object();
      });
    }
    Map<String, Instant> lastModified = new HashMap<>();
    for (StoredObject object : runAll(pool, reads)) {
      lastModified.put(object.key(), object.lastModified());
    }
    return lastModified;
  }

  private static <T> List<T> runAll(ExecutorService pool, List<Callable<T>> tasks) {
    List<Future<T>> futures = new ArrayList<>(tasks.size());
    for (Callable<T> task : tasks) {
      futures.add(pool.submit(task));
    }
    List<T> results = new ArrayList<>(tasks.size());
    try {
      for (Future<T> future : futures) {
        results.add(future.get());
      }
    } catch (ExecutionException e) {
      futures.forEach(future -> future.cancel(true));
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("Cannot write the sample archive: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      futures.forEach(future -> future.cancel(true));
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing the sample archive", e);
    }
    return results;
  }

  /** The oracle is only right if the store really saw the coming-back files as strictly newer. */
  private static void checkNewerFiles(Design design, Map<String, Instant> lastModified) {
    for (Draft draft : design.drafts) {
      for (String key : draft.newer) {
        Instant file = lastModified.get(key);
        Instant state = lastModified.get(draft.stateKey);
        if (!file.isAfter(state)) {
          throw new IllegalStateException("Sample file " + key + " (" + file + ") is not strictly newer than its state file "
              + draft.stateKey + " (" + state + "): the store's clock or timestamps are not what the sample assumes");
        }
      }
    }
  }

  /** Keys S3Proxy cannot store would fail the write half-way; refuse them before writing anything. */
  static void checkKeys(Set<String> keys) {
    for (String key : keys) {
      String problem = Keys.shapeProblem(key);
      if (problem != null) {
        throw new IllegalStateException("Sample key " + key + " is not storable: " + problem);
      }
      for (String segment : key.split("/")) {
        if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
          throw new IllegalStateException("Sample key " + key + " has a segment over " + MAX_SEGMENT_BYTES + " bytes");
        }
      }
      for (int slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) {
        if (keys.contains(key.substring(0, slash))) {
          throw new IllegalStateException("Sample key " + key.substring(0, slash) + " is also the folder of " + key);
        }
      }
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing the sample archive", e);
    }
  }

  /** How a record keeps its files. */
  private enum Shape { FOLDER, SINGLE_FILE }

  /** A record being designed: its place, its document and the keys it writes. */
  private static final class Draft {
    final String stateKey;
    final String recordType;
    final Shape shape;
    /** The record's folder with its slash (folder records) or its {@code <id>.json} (single-file records). */
    final String scope;
    SampleCase sampleCase;
    final List<String> files = new ArrayList<>();
    final List<String> deleteFiles = new ArrayList<>();
    final Set<String> newer = new LinkedHashSet<>();
    boolean delete;
    Instant deletedAt;
    Instant expiresAt;
    Instant updatedAt;
    String refusedKey;

    Draft(String stateKey, String recordType, Shape shape, String scope) {
      this.stateKey = stateKey;
      this.recordType = recordType;
      this.shape = shape;
      this.scope = scope;
    }

    /** Its records may come back only if it is never due itself: a due parent must not see newer nested files. */
    boolean mayHostComingBack() {
      return !delete && expiresAt == null;
    }

  }

  /** A record with its own nested records (a project, a chat, a workflow) and how many it holds so far. */
  private static final class Host {
    final Draft draft;
    final int capacity;
    int children;
    Host chat;

    Host(Draft draft, int capacity) {
      this.draft = draft;
      this.capacity = capacity;
    }

    boolean isFull() {
      return children >= capacity;
    }
  }

  /** The whole archive, designed in memory before anything is written. */
  private static final class Design {
    private static final List<SampleCase> CATALOGUE_PROJECT_RECORD_CASES = List.of(
        SampleCase.DELETED, SampleCase.NOT_YET_EXPIRED, SampleCase.REFUSED_OUTSIDE_FOLDER,
        SampleCase.RECENTLY_DELETED, SampleCase.COMING_BACK_NEW_FILE, SampleCase.DELETED_WITH_REMOVED_FILES,
        SampleCase.LIVE_REMOVED_FILES_GONE, SampleCase.LIVE_REMOVED_FILE_ALSO_IN_FILES,
        SampleCase.RECENTLY_DELETED_WITH_REMOVED_FILES, SampleCase.REFUSED_EXPORTER_FOLDER, SampleCase.BAD_NOT_JSON,
        SampleCase.LIVE_WITH_MISSING_FILES, SampleCase.DELETED_WITH_MISSING_FILES);

    /** The mix of the records after the catalogue, in weights. */
    private static final Map<SampleCase, Integer> FILLER_WEIGHTS = weights(
        SampleCase.LIVE, 30, SampleCase.LIVE_WITH_REMOVED_FILES, 7, SampleCase.LIVE_REMOVED_FILES_GONE, 3,
        SampleCase.LIVE_REMOVED_FILE_ALSO_IN_FILES, 2, SampleCase.LIVE_WITH_MISSING_FILES, 3,
        SampleCase.DELETED, 12, SampleCase.DELETED_WITHOUT_MARK, 3, SampleCase.DELETED_WITH_MISSING_FILES, 3,
        SampleCase.DELETED_WITH_REMOVED_FILES, 3, SampleCase.EXPIRED, 8, SampleCase.NOT_YET_EXPIRED, 8,
        SampleCase.RECENTLY_DELETED, 4, SampleCase.RECENTLY_DELETED_WITH_REMOVED_FILES, 2,
        SampleCase.COMING_BACK, 3, SampleCase.COMING_BACK_NEW_FILE, 2, SampleCase.REFUSED_OUTSIDE_FOLDER, 1,
        SampleCase.REFUSED_EXPORTER_FOLDER, 1, SampleCase.BAD_NOT_JSON, 1, SampleCase.BAD_DELETE_TYPE, 1,
        SampleCase.BAD_EXPIRES_AT, 1);

    private static final Map<SampleCase, Integer> HOST_WEIGHTS = weights(
        SampleCase.LIVE, 70, SampleCase.LIVE_WITH_REMOVED_FILES, 6, SampleCase.DELETED, 8, SampleCase.EXPIRED, 6,
        SampleCase.NOT_YET_EXPIRED, 6, SampleCase.RECENTLY_DELETED, 4);

    private final String prefix;
    private final Random random;
    private final Instant now;
    /** Documents carry whole seconds, as an exporter writes them. */
    private final Instant base;
    private final List<String> kinds;
    final Map<String, byte[]> olderObjects = new LinkedHashMap<>();
    final Map<String, byte[]> newerObjects = new LinkedHashMap<>();
    final List<Draft> drafts = new ArrayList<>();
    private final Set<String> skipped = new TreeSet<>();
    private final Set<String> exporterKeys = new TreeSet<>();
    private final Map<String, Integer> counters = new HashMap<>();
    private String organizationProfile;
    private Host project;
    private Host unassignedChat;
    private Host workflow;

    Design(String prefix, Random random, Instant now, List<String> kinds) {
      this.prefix = prefix;
      this.random = random;
      this.now = now;
      this.base = now.truncatedTo(ChronoUnit.SECONDS);
      this.kinds = kinds;
      for (String required : List.of("chat", "emails")) {
        if (!kinds.contains(required)) {
          throw new IllegalStateException("The sample archive needs the kind " + required + " in the layout's kinds " + kinds);
        }
      }
    }

    /** Every case at least once, every place and every kind at least once. */
    Design catalogue() {
      exporterFile("export-manifest.json");
      exporterFile("runs/2026-11-28T03-00-00Z.json");
      exporterFile("verify/last-run.json");

      Draft organization = folderRecord("organization", prefix + "organization/");
      organizationProfile = organization.scope + "profile.json";
      build(organization, SampleCase.LIVE_WITH_REMOVED_FILES, List.of("profile.json", "logo.png"));

      build(agent(), SampleCase.LIVE);
      build(agent(), SampleCase.COMING_BACK);
      build(agent(), SampleCase.REFUSED_NOT_SIBLING);
      build(prompt(), SampleCase.DELETED_WITHOUT_MARK);
      build(prompt(), SampleCase.BAD_DELETE_TYPE);
      build(organizationKnowledge(), SampleCase.EXPIRED);

      Host first = newProject(SampleCase.LIVE);
      Draft emails = projectRecord(first, "emails");
      build(emails, SampleCase.LIVE);
      stateNamedAttachment(emails, "attachments/state.json");
      stateNamedAttachment(emails, "attachments/invoice.state.json");
      Host chat = newChat(first, SampleCase.LIVE);
      build(chatMessage(first, chat), SampleCase.LIVE);
      build(chatMessage(first, chat), SampleCase.DELETED);
      List<String> otherKinds = kinds.stream().filter(kind -> !kind.equals("chat") && !kind.equals("emails")).toList();
      int carriers = Math.max(otherKinds.size(), CATALOGUE_PROJECT_RECORD_CASES.size());
      for (int i = 0; i < carriers; i++) {
        build(projectRecord(first, otherKinds.get(i % otherKinds.size())),
            CATALOGUE_PROJECT_RECORD_CASES.get(i % CATALOGUE_PROJECT_RECORD_CASES.size()));
      }
      unknownKindFolder(first.draft.scope + "punch_lists/");

      Draft second = folderRecord("project", prefix + "projects/" + id("project") + "/");
      Draft nested = folderRecord("project_record", second.scope + "documents/" + id("documents") + "/");
      build(nested, SampleCase.LIVE);
      build(second, SampleCase.REFUSED_OTHER_STATE_FILE, nested.stateKey);

      build(unassignedRecord("emails"), SampleCase.COMING_BACK);
      build(unassignedRecord("reports"), SampleCase.BAD_EXPIRES_AT);
      unknownKindFolder(prefix + "unassigned_project/punch_lists/");
      Host unassigned = newUnassignedChat(SampleCase.LIVE);
      build(unassignedChatMessage(unassigned), SampleCase.EXPIRED);

      Host liveWorkflow = newWorkflow(SampleCase.LIVE);
      build(workflowRun(liveWorkflow), SampleCase.DELETED);
      build(workflowRun(liveWorkflow), SampleCase.EXPIRED);
      Draft refusing = folderRecord("workflow", prefix + "workflows/" + id("workflow") + "/");
      Draft run = singleFileRecord("workflow_run", refusing.scope + "runs/", id("run"));
      build(run, SampleCase.LIVE);
      build(refusing, SampleCase.REFUSED_OTHER_RECORD_FOLDER, run.scope);
      return this;
    }

    /** A seeded mix of places and cases up to {@code recordCount} records. */
    Design fill(int recordCount) {
      while (drafts.size() < recordCount) {
        int remaining = recordCount - drafts.size();
        int place = random.nextInt(100);
        if (place < 50) {
          if (!projectHasRoom(remaining, 1)) {
            continue;
          }
          String kind = kinds.get(random.nextInt(kinds.size()));
          if (kind.equals("chat")) {
            newChat(project, SampleCase.LIVE);
          } else {
            Draft record = projectRecord(project, kind);
            build(record, fillerCase(record, project.draft));
            if (kind.equals("emails") && random.nextInt(8) == 0) {
              stateNamedAttachment(record, "attachments/state.json");
            }
          }
        } else if (place < 64) {
          if (!projectHasRoom(remaining, 2)) {
            continue;
          }
          if (project.chat == null || project.chat.isFull()) {
            newChat(project, pick(HOST_WEIGHTS));
            continue;
          }
          Draft message = chatMessage(project, project.chat);
          build(message, fillerCase(message, project.draft, project.chat.draft));
        } else if (place < 72) {
          Draft record = unassignedRecord(kinds.get(random.nextInt(kinds.size())));
          build(record, fillerCase(record));
        } else if (place < 76) {
          if (unassignedChat == null || unassignedChat.isFull()) {
            if (remaining < 2) {
              continue;
            }
            newUnassignedChat(pick(HOST_WEIGHTS));
            continue;
          }
          Draft message = unassignedChatMessage(unassignedChat);
          build(message, fillerCase(message, unassignedChat.draft));
        } else if (place < 80) {
          Draft agent = agent();
          build(agent, fillerCase(agent));
        } else if (place < 83) {
          Draft prompt = prompt();
          build(prompt, fillerCase(prompt));
        } else if (place < 88) {
          Draft entry = organizationKnowledge();
          build(entry, fillerCase(entry));
        } else {
          if (workflow == null || workflow.isFull()) {
            if (remaining < 2) {
              continue;
            }
            newWorkflow(pick(HOST_WEIGHTS));
            continue;
          }
          Draft run = workflowRun(workflow);
          build(run, fillerCase(run, workflow.draft));
        }
      }
      return this;
    }

    /** Makes sure there is a project with room for a record, if {@code needed} records still fit. */
    private boolean projectHasRoom(int remaining, int needed) {
      if (project != null && !project.isFull()) {
        return true;
      }
      if (remaining < needed + 1) {
        return false;
      }
      newProject(pick(HOST_WEIGHTS));
      if (random.nextInt(6) == 0) {
        unknownKindFolder(project.draft.scope + "punch_lists/");
      }
      return false;
    }

    /** A case for a record under {@code hosts} (its enclosing records, none for a top-level one). */
    private SampleCase fillerCase(Draft draft, Draft... hosts) {
      SampleCase picked = pick(FILLER_WEIGHTS);
      for (Draft host : hosts) {
        if (picked.isComingBack() && !host.mayHostComingBack()) {
          picked = SampleCase.DELETED;
        }
      }
      if (draft.shape == Shape.SINGLE_FILE) {
        return switch (picked) {
          case LIVE_WITH_REMOVED_FILES, LIVE_REMOVED_FILES_GONE, LIVE_REMOVED_FILE_ALSO_IN_FILES -> SampleCase.LIVE;
          case DELETED_WITH_REMOVED_FILES -> SampleCase.DELETED;
          case RECENTLY_DELETED_WITH_REMOVED_FILES -> SampleCase.RECENTLY_DELETED;
          case COMING_BACK_NEW_FILE -> SampleCase.COMING_BACK;
          case REFUSED_OUTSIDE_FOLDER -> SampleCase.REFUSED_NOT_SIBLING;
          default -> picked;
        };
      }
      return picked;
    }

    private SampleCase pick(Map<SampleCase, Integer> weights) {
      int total = weights.values().stream().mapToInt(Integer::intValue).sum();
      int ticket = random.nextInt(total);
      for (Map.Entry<SampleCase, Integer> entry : weights.entrySet()) {
        ticket -= entry.getValue();
        if (ticket < 0) {
          return entry.getKey();
        }
      }
      throw new IllegalStateException("unreachable");
    }

    // ---- places --------------------------------------------------------------------------------

    private Draft agent() {
      return singleFileRecord("agent", prefix + "organization/agents/", id("agent"));
    }

    private Draft prompt() {
      return singleFileRecord("prompt", prefix + "organization/prompts/", id("prompt"));
    }

    private Draft organizationKnowledge() {
      return folderRecord("organization_knowledge", prefix + "organization/knowledge/" + id("entry") + "/");
    }

    private Host newProject(SampleCase sampleCase) {
      String projectId = id("project");
      Draft draft = folderRecord("project", prefix + "projects/" + projectId + "/");
      build(draft, sampleCase);
      project = new Host(draft, 20 + random.nextInt(30));
      return project;
    }

    private Draft projectRecord(Host host, String kind) {
      host.children++;
      return folderRecord("project_record", host.draft.scope + kind + "/" + id(kind) + "/");
    }

    /** A chat is a project record of kind chat whose messages are records of their own. */
    private Host newChat(Host host, SampleCase sampleCase) {
      String chatId = id("chat");
      host.children++;
      Draft draft = folderRecord("project_record", host.draft.scope + "chat/" + chatId + "/");
      build(draft, sampleCase);
      host.chat = new Host(draft, 3 + random.nextInt(12));
      return host.chat;
    }

    private Draft chatMessage(Host host, Host chat) {
      host.children++;
      chat.children++;
      return singleFileRecord("chat_message", chat.draft.scope + "messages/", id("message"));
    }

    private Draft unassignedRecord(String kind) {
      return folderRecord("unassigned_record", prefix + "unassigned_project/" + kind + "/" + id(kind) + "/");
    }

    private Host newUnassignedChat(SampleCase sampleCase) {
      String chatId = id("chat");
      Draft draft = folderRecord("unassigned_record", prefix + "unassigned_project/chat/" + chatId + "/");
      build(draft, sampleCase);
      unassignedChat = new Host(draft, 3 + random.nextInt(12));
      return unassignedChat;
    }

    private Draft unassignedChatMessage(Host chat) {
      chat.children++;
      return singleFileRecord("unassigned_chat_message", chat.draft.scope + "messages/", id("message"));
    }

    private Host newWorkflow(SampleCase sampleCase) {
      String workflowId = id("workflow");
      Draft draft = folderRecord("workflow", prefix + "workflows/" + workflowId + "/");
      build(draft, sampleCase);
      workflow = new Host(draft, 2 + random.nextInt(10));
      return workflow;
    }

    private Draft workflowRun(Host host) {
      host.children++;
      return singleFileRecord("workflow_run", host.draft.scope + "runs/", id("run"));
    }

    /** A record at {@code folder}/state.json; {@code folder} is a full key prefix ending with a slash. */
    private Draft folderRecord(String recordType, String folder) {
      return new Draft(folder + "state.json", recordType, Shape.FOLDER, folder);
    }

    /** A record at {@code directory}/{@code id}.state.json that owns {@code directory}/{@code id}.json. */
    private Draft singleFileRecord(String recordType, String directory, String recordId) {
      return new Draft(directory + recordId + ".state.json", recordType, Shape.SINGLE_FILE, directory + recordId + ".json");
    }

    // ---- cases ---------------------------------------------------------------------------------

    private void build(Draft draft, SampleCase sampleCase) {
      build(draft, sampleCase, baseFiles(draft), null);
    }

    private void build(Draft draft, SampleCase sampleCase, List<String> baseFiles) {
      build(draft, sampleCase, baseFiles, null);
    }

    private void build(Draft draft, SampleCase sampleCase, String otherRecordKey) {
      build(draft, sampleCase, baseFiles(draft), otherRecordKey);
    }

    private void build(Draft draft, SampleCase sampleCase, List<String> baseFiles, String otherRecordKey) {
      if (draft.shape == Shape.SINGLE_FILE && (sampleCase == SampleCase.COMING_BACK_NEW_FILE
          || sampleCase == SampleCase.REFUSED_OUTSIDE_FOLDER || sampleCase.name().contains("REMOVED"))) {
        throw new IllegalStateException("case " + sampleCase + " needs a folder record, not " + draft.stateKey);
      }
      drafts.add(draft);
      draft.sampleCase = sampleCase;
      draft.updatedAt = base.minus(Duration.ofDays(1 + random.nextInt(400)));
      if (draft.shape == Shape.SINGLE_FILE && sampleCase.isMissingFiles()) {
        draft.files.add(draft.scope); // its only file, listed but never written
      } else if (draft.shape == Shape.SINGLE_FILE) {
        listFile(draft, draft.scope);
      } else {
        baseFiles.forEach(name -> listFile(draft, draft.scope + name));
      }
      switch (sampleCase) {
        case LIVE, BAD_EXPIRES_AT -> { }
        case NOT_YET_EXPIRED -> draft.expiresAt = base.plus(Duration.ofDays(1 + random.nextInt(365)));
        case LIVE_WITH_REMOVED_FILES -> {
          removedFile(draft, "attachments/removed-1.pdf");
          draft.deleteFiles.add(draft.scope + "attachments/removed-2.pdf");
        }
        case LIVE_REMOVED_FILES_GONE -> {
          draft.deleteFiles.add(draft.scope + "attachments/removed-1.pdf");
          draft.deleteFiles.add(draft.scope + "attachments/removed-2.pdf");
        }
        case LIVE_REMOVED_FILE_ALSO_IN_FILES -> draft.deleteFiles.add(draft.files.get(0));
        case LIVE_WITH_MISSING_FILES -> addMissingFile(draft);
        case DELETED, BAD_NOT_JSON, BAD_DELETE_TYPE -> mark(draft, oldMark());
        case DELETED_WITHOUT_MARK -> mark(draft, null);
        case DELETED_WITH_MISSING_FILES -> {
          mark(draft, oldMark());
          addMissingFile(draft);
        }
        case DELETED_WITH_REMOVED_FILES -> {
          mark(draft, oldMark());
          removedFile(draft, "attachments/removed-1.pdf");
          draft.deleteFiles.add(draft.scope + "attachments/removed-2.pdf");
        }
        case EXPIRED -> draft.expiresAt = base.minus(Duration.ofDays(1 + random.nextInt(90)));
        case RECENTLY_DELETED -> mark(draft, recentMark());
        case RECENTLY_DELETED_WITH_REMOVED_FILES -> {
          mark(draft, recentMark());
          removedFile(draft, "attachments/removed-1.pdf");
        }
        case COMING_BACK -> {
          mark(draft, oldMark());
          newer(draft, draft.files.get(0));
        }
        case COMING_BACK_NEW_FILE -> {
          mark(draft, oldMark());
          newer(draft, draft.scope + "attachments/restored-1.pdf");
        }
        case REFUSED_OUTSIDE_FOLDER, REFUSED_NOT_SIBLING -> refuse(draft, foreignKey(draft));
        case REFUSED_EXPORTER_FOLDER -> refuse(draft, exporterKeys.iterator().next());
        case REFUSED_OTHER_RECORD_FOLDER, REFUSED_OTHER_STATE_FILE ->
            refuse(draft, requireNonNull(otherRecordKey, sampleCase + " needs the other record's key"));
        default -> throw new IllegalStateException("unhandled case " + sampleCase);
      }
    }

    private List<String> baseFiles(Draft draft) {
      List<String> names = new ArrayList<>();
      switch (draft.recordType) {
        case "project" -> names.addAll(List.of("project.json", "cover.png"));
        case "workflow" -> names.addAll(List.of("workflow.json", "definition.yaml"));
        default -> {
          boolean chat = draft.scope.contains("/chat/");
          names.add(chat ? "chat.json" : "record.json");
          int attachments = chat ? 0 : random.nextInt(3);
          for (int i = 1; i <= attachments; i++) {
            names.add("attachments/file-" + i + (i % 2 == 0 ? ".png" : ".pdf"));
          }
        }
      }
      return names;
    }

    private void mark(Draft draft, Instant deletedAt) {
      draft.delete = true;
      draft.deletedAt = deletedAt;
      if (deletedAt != null) {
        draft.updatedAt = deletedAt;
      }
    }

    private Instant oldMark() {
      return base.minus(Duration.ofDays(10 + random.nextInt(51)));
    }

    private Instant recentMark() {
      return base.minus(Duration.ofHours(1 + random.nextInt(20)));
    }

    private void listFile(Draft draft, String key) {
      older(key, "sample file of " + draft.stateKey + ": " + key);
      draft.files.add(key);
    }

    private void removedFile(Draft draft, String name) {
      String key = draft.scope + name;
      older(key, "removed attachment of " + draft.stateKey + ": " + key);
      draft.deleteFiles.add(key);
    }

    /** A folder record lists an attachment that was never written; a single-file record's sibling already is one. */
    private void addMissingFile(Draft draft) {
      if (draft.shape == Shape.FOLDER) {
        draft.files.add(draft.scope + "attachments/missing-1.pdf");
      }
    }

    private void newer(Draft draft, String key) {
      newerObjects.put(key, bytes("restored after the state file of " + draft.stateKey + ": " + key));
      draft.newer.add(key);
    }

    /** A refused record says {@code delete: true}, so that only the refusal keeps its files. */
    private void refuse(Draft draft, String key) {
      mark(draft, oldMark());
      draft.files.add(key);
      draft.refusedKey = key;
    }

    /** An existing key outside the record's folder: its project's file, or the organisation's profile. */
    private String foreignKey(Draft draft) {
      String projects = prefix + "projects/";
      if (draft.scope.startsWith(projects) && !draft.recordType.equals("project")) {
        return draft.scope.substring(0, draft.scope.indexOf('/', projects.length()) + 1) + "project.json";
      }
      return organizationProfile;
    }

    private void stateNamedAttachment(Draft draft, String name) {
      String key = draft.scope + name;
      older(key, "an attachment that happens to be named like a state file: " + key);
      draft.files.add(key);
      skipped.add(key);
    }

    /** A record of a kind the layout does not know: skipped and reported, its files never touched. */
    private void unknownKindFolder(String kindFolder) {
      String folder = kindFolder + id("punch") + "/";
      older(folder + "item.pdf", "a file of an unknown kind");
      ObjectNode document = JSON.createObjectNode();
      document.put("status", "deleted");
      document.put("delete", true);
      document.putNull("expires_at");
      document.putArray("files").add(folder + "item.pdf");
      document.putArray("delete_files");
      older(folder + "state.json", toJson(document));
      skipped.add(folder + "state.json");
    }

    private void exporterFile(String name) {
      String key = prefix + "_cogram/" + name;
      older(key, "{\"exporter\":\"cogram\",\"file\":\"" + name + "\"}");
      exporterKeys.add(key);
    }

    private void older(String key, String content) {
      if (olderObjects.put(key, bytes(content)) != null) {
        throw new IllegalStateException("Sample key " + key + " is written twice");
      }
    }

    private String id(String stem) {
      int next = counters.merge(stem, 1, Integer::sum);
      return stem + "-" + String.format("%04d", next);
    }

    // ---- output --------------------------------------------------------------------------------

    /**
     * Every state file, in waves to write one after the other: a record's state file comes in a later
     * wave than every state file in its folder (its nested records', theirs included) and every state
     * file its {@code files} or {@code delete_files} name. The first wave holds the records that
     * enclose and name none.
     */
    List<Map<String, byte[]>> stateFileWaves() {
      NavigableMap<String, Draft> byKey = new TreeMap<>();
      for (Draft draft : drafts) {
        if (byKey.put(draft.stateKey, draft) != null || olderObjects.containsKey(draft.stateKey)) {
          throw new IllegalStateException("Sample state file " + draft.stateKey + " is written twice");
        }
      }
      Map<String, Integer> waves = new HashMap<>();
      List<Map<String, byte[]>> stateFiles = new ArrayList<>();
      for (Draft draft : drafts) {
        int wave = wave(draft, byKey, waves, new LinkedHashSet<>());
        while (stateFiles.size() <= wave) {
          stateFiles.add(new LinkedHashMap<>());
        }
        stateFiles.get(wave).put(draft.stateKey, document(draft));
      }
      return stateFiles;
    }

    /** One more than the latest wave of the state files {@code draft} encloses or names; 0 if none. */
    private static int wave(Draft draft, NavigableMap<String, Draft> byKey, Map<String, Integer> waves,
        Set<String> path) {
      Integer known = waves.get(draft.stateKey);
      if (known != null) {
        return known;
      }
      if (!path.add(draft.stateKey)) {
        throw new IllegalStateException("Sample state files enclose or name each other: " + path);
      }
      List<Draft> before = new ArrayList<>();
      if (draft.shape == Shape.FOLDER) {
        before.addAll(byKey.subMap(draft.scope, true, draft.scope + Character.MAX_VALUE, true).values());
        before.remove(draft);
      }
      for (String key : concat(draft.files, draft.deleteFiles)) {
        Draft named = byKey.get(key);
        if (named != null && named != draft) {
          before.add(named);
        }
      }
      int wave = 0;
      for (Draft other : before) {
        wave = Math.max(wave, wave(other, byKey, waves, path) + 1);
      }
      path.remove(draft.stateKey);
      waves.put(draft.stateKey, wave);
      return wave;
    }

    private byte[] document(Draft draft) {
      ObjectNode document = JSON.createObjectNode();
      document.put("status", draft.delete ? "deleted" : "active");
      document.put("delete", draft.delete);
      document.put("expires_at", draft.expiresAt == null ? null : draft.expiresAt.toString());
      if (draft.deletedAt != null) {
        document.put("deleted_at", draft.deletedAt.toString());
      }
      document.put("updated_at", draft.updatedAt.toString());
      ArrayNode files = document.putArray("files");
      draft.files.forEach(files::add);
      ArrayNode deleteFiles = document.putArray("delete_files");
      draft.deleteFiles.forEach(deleteFiles::add);
      switch (draft.sampleCase) {
        case BAD_NOT_JSON -> {
          String whole = toJson(document);
          return bytes(whole.substring(0, whole.length() / 2));
        }
        case BAD_DELETE_TYPE -> document.put("delete", "true");
        case BAD_EXPIRES_AT -> document.put("expires_at", "next tuesday");
        default -> { }
      }
      return bytes(toJson(document));
    }

    Set<String> allKeys() {
      Set<String> keys = new TreeSet<>(olderObjects.keySet());
      keys.addAll(newerObjects.keySet());
      drafts.forEach(draft -> keys.add(draft.stateKey));
      return keys;
    }

    /** State files whose LastModified is their mark, and the coming-back files with their state files. */
    Set<String> keysToReadBack() {
      Set<String> keys = new TreeSet<>();
      for (Draft draft : drafts) {
        if (draft.sampleCase == SampleCase.DELETED_WITHOUT_MARK || !draft.newer.isEmpty()) {
          keys.add(draft.stateKey);
          keys.addAll(draft.newer);
        }
      }
      return keys;
    }

    Manifest manifest(Map<String, Instant> lastModified) {
      Set<String> written = allKeys();
      Map<String, SampleRecord> records = new LinkedHashMap<>();
      for (Draft draft : drafts) {
        Set<String> existing = new TreeSet<>();
        for (String key : concat(draft.files, draft.deleteFiles)) {
          if (written.contains(key)) {
            existing.add(key);
          }
        }
        boolean bad = draft.sampleCase.isBadDocument();
        boolean marked = draft.delete && !bad;
        Instant markedAt = !marked ? null
            : draft.deletedAt != null ? draft.deletedAt
            : requireNonNull(lastModified.get(draft.stateKey), "no LastModified read back for " + draft.stateKey);
        records.put(draft.stateKey, new SampleRecord(draft.stateKey, draft.recordType, draft.sampleCase,
            draft.files, draft.deleteFiles, existing, draft.newer, marked, markedAt, bad ? null : draft.expiresAt,
            draft.refusedKey, bad));
      }
      return new Manifest(prefix, now, records, written.size(), skipped, exporterKeys);
    }

    private static List<String> concat(List<String> first, List<String> second) {
      List<String> all = new ArrayList<>(first);
      all.addAll(second);
      return all;
    }

    private static Map<SampleCase, Integer> weights(Object... caseAndWeight) {
      Map<SampleCase, Integer> weights = new LinkedHashMap<>();
      for (int i = 0; i < caseAndWeight.length; i += 2) {
        weights.put((SampleCase) caseAndWeight[i], (Integer) caseAndWeight[i + 1]);
      }
      return Collections.unmodifiableMap(weights);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String toJson(ObjectNode document) {
    try {
      return JSON.writeValueAsString(document);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write a sample document", e);
    }
  }
}
