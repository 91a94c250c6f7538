package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.layout.RecordShape;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.ListedKey;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RecordInput;
import io.statesweep.plan.RecordPlan;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateDocument;
import io.statesweep.state.StateParser;
import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.MarkerRemoval;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * Executes written plans, a window of records at a time, so that no live file can go (README,
 * "Deleting"):
 *
 * <ol>
 *   <li>takes the throttle's permits for the window's keys first ({@link WindowPermits}), so that a wait
 *       for them never falls between a record's verification and its deletes;
 *   <li>re-reads each state file with If-Match on the planned ETag (changed or gone: nothing is done on
 *       the old plan), re-lists the record's keys (records side by side in one folder share one listing:
 *       {@link SharedListing}), and makes the {@link Planner}'s decision again from
 *       the document just read and the bucket as it is now. A plan row may only narrow that decision:
 *       a row that would delete more (a live record's row turned into {@code delete_record}, a key the
 *       planner would not delete now) is refused ({@code kept_refused}, naming the key), and a file
 *       newer than the state file keeps the whole record ({@code the record is coming back});
 *   <li>deletes the files of the verified records in DeleteObjects batches, each key conditional on the
 *       ETag just seen (when conditional deletes are on). A record's deletes start within
 *       {@link #FRESH_FOR} of the end of its verification: a file uploaded again byte for byte keeps its
 *       ETag, so only that short time protects it. The records of a window go together, unless one of
 *       them verifies for long (a project listing a large folder): then those verified by then go
 *       without it, gathered {@link #GATHERS_FOR} at a time; and a record that would start later than
 *       the bound (after waiting, after a slow start, or after a wait for the throttle) is verified again;
 *   <li>reads each state file once more: one that changed while its record's files went means the
 *       record came back during its deletion ({@code came_back_during_delete}): every key deleted is
 *       named, so that the exporter's Verify bucket can restore it;
 *   <li>only then, and only for records whose every file is gone, deletes the state files, each
 *       conditional on its planned ETag.
 * </ol>
 *
 * Any failure leaves the state file in place, so the next run retries; a key that is already gone
 * is never sent (no delete marker on a versioned bucket).
 */
public final class RecordExecutor implements AutoCloseable {
  /**
   * The most time from the end of a record's verification to the start of its deletes (pipeline/README.md "Deleting").
   * A constant, not a setting: it is what keeps a file uploaded again in that time (the same ETag) from being lost, and
   * no store or workload is safer with a longer one; a slow store costs verifications, not safety.
   */
  static final Duration FRESH_FOR = Duration.ofSeconds(1);
  /**
   * While a verification of the window runs long (longer than this, and than twice the longest that ended: a
   * project listing a large folder, not one of a busy machine's verifications ending a little after the others),
   * the records verified meanwhile gather for this long, then go without it. Waiting for a busy machine's
   * verifications instead keeps its windows whole: split, each group's requests and re-reads come one after the
   * other, which costs more time than it saves.
   */
  static final Duration GATHERS_FOR = Duration.ofMillis(300);
  /**
   * Starts of a record's deletes that came too late (the start itself, the hook, or a wait for the throttle
   * took longer than the bound allowed), before the record is given up: kept, failed, retried by the next run.
   * A record that went stale waiting while other records' deletes went is verified again without a limit: each
   * such wait is those records' progress (pipeline/README.md "Deleting").
   */
  static final int MOST_LATE_STARTS = 3;
  /**
   * The keys a group's intent names ahead of its requests, at least: written before its first delete, then again as
   * its requests reach the end of what it names, so that a record of any number of keys starts its deletes within
   * {@link #FRESH_FOR}, and no key is sent before the intent that names it is durable (pipeline/README.md "Deleting").
   */
  static final int INTENDED_AHEAD = 5_000;

  private static final long FRESH_NANOS = FRESH_FOR.toNanos();
  private static final long GATHER_NANOS = GATHERS_FOR.toNanos();
  private static final AtomicLong BATCHES = new AtomicLong();

  private final RecordStore store;
  private final KeyClassifier classifier;
  private final Planner planner;
  private final StateParser parser;
  private final int batchSize;
  private final ConditionalDeletes conditional;
  /** The lane of a record, by its state file's key: the throttle its deletes go under, and their SlowDowns. */
  private final java.util.function.Function<String, PacedLane> lanes;
  private final ExecutionHook hook;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final DeleteJournal journal;
  private final int verifyThreads;
  private final ExecutorService verifiers;
  /** Read state files again while verifications still run (on the verifiers they could wait behind those). */
  private ExecutorService rereaders;

  /** Verifies one record at a time. */
  public RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, DeleteThrottle throttle, ExecutionHook hook, Clock clock) {
    this(store, planner, parser, batchSize, conditional, throttle, hook, clock, 1);
  }

  /**
   * Verifies up to {@code verifyThreads} records of a window at once (each is a GET and a folder listing or
   * one-key listings: I/O that a single thread would wait on); deletes still go in order, state files last.
   *
   * @param planner the planner of the plan's run (its layout and grace periods): its decision is made again
   * @param parser reads the state documents as the plan read them
   */
  public RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, DeleteThrottle throttle, ExecutionHook hook, Clock clock, int verifyThreads) {
    this(store, planner, parser, batchSize, conditional, throttle, hook, clock, verifyThreads, DeleteJournal.NONE);
  }

  /**
   * As above, writing the intent of each group of records whose deletes start together to {@code journal} before
   * their first delete: a group whose intent cannot be written deletes nothing (pipeline/README.md, "Every delete on
   * the record").
   */
  public RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, DeleteThrottle throttle, ExecutionHook hook, Clock clock, int verifyThreads,
      DeleteJournal journal) {
    this(store, planner, parser, batchSize, conditional, throttle, hook, clock, verifyThreads, journal,
        System::nanoTime);
  }

  /**
   * As above, each record's deletes paced in its lane ({@link PacedLane}: pipeline/README.md, "Deleting at the bucket's
   * speed"),
   * {@code lanes} giving the lane of a record by its state file's key.
   */
  public RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, java.util.function.Function<String, PacedLane> lanes, ExecutionHook hook,
      Clock clock, int verifyThreads, DeleteJournal journal) {
    this(store, planner, parser, batchSize, conditional, lanes, hook, clock, verifyThreads, journal, System::nanoTime);
  }

  /** With the monotonic time source that measures {@link #FRESH_FOR} (a fake one in tests). */
  RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, DeleteThrottle throttle, ExecutionHook hook, Clock clock, int verifyThreads,
      DeleteJournal journal, LongSupplier nanoTime) {
    this(store, planner, parser, batchSize, conditional, oneLane(throttle), hook, clock, verifyThreads, journal,
        nanoTime);
  }

  private static java.util.function.Function<String, PacedLane> oneLane(DeleteThrottle throttle) {
    PacedLane lane = PacedLane.unpaced("", requireNonNull(throttle, "throttle is null"));
    return key -> lane;
  }

  RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, java.util.function.Function<String, PacedLane> lanes, ExecutionHook hook,
      Clock clock, int verifyThreads, DeleteJournal journal, LongSupplier nanoTime) {
    if (verifyThreads < 1) {
      throw new IllegalArgumentException("verifyThreads must be at least 1: " + verifyThreads);
    }
    this.store = requireNonNull(store, "store is null");
    this.planner = requireNonNull(planner, "planner is null");
    this.classifier = planner.classifier();
    this.parser = requireNonNull(parser, "parser is null");
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("batchSize must be from 1 to 1000: " + batchSize);
    }
    this.batchSize = batchSize;
    this.conditional = requireNonNull(conditional, "conditional is null");
    this.lanes = requireNonNull(lanes, "lanes is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
    this.journal = requireNonNull(journal, "journal is null");
    this.verifyThreads = verifyThreads;
    this.verifiers = verifyThreads == 1 ? null : threads(verifyThreads, "statesweep-verify");
  }

  private static ExecutorService threads(int count, String name) {
    return Executors.newFixedThreadPool(count, runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Executes a window of records; returns one outcome per record, in order. */
  public List<ExecutionOutcome> execute(List<PlannedRecord> window) {
    List<ExecutionOutcome> outcomes = new ArrayList<>(window.size());
    // Each lane's records go under its own throttle: a window of several lanes runs as one window per lane.
    int from = 0;
    while (from < window.size()) {
      PacedLane lane = lanes.apply(window.get(from).stateFileKey());
      int to = from + 1;
      while (to < window.size() && lanes.apply(window.get(to).stateFileKey()) == lane) {
        to++;
      }
      List<PlannedRecord> records = window.subList(from, to);
      Instant started = clock.instant();
      int windowKeys = records.stream().mapToInt(record -> record.deletes().size()).sum();
      DeleteThrottle throttle = lane.throttle(); // once: the lane's group may split meanwhile
      try (WindowPermits permits = WindowPermits.reserve(throttle, windowKeys)) {
        outcomes.addAll(new Window(records, started, permits, lane, throttle).execute());
      }
      from = to;
    }
    return outcomes;
  }

  /**
   * One window: its records verified at once, each record's deletes started within {@link #FRESH_FOR} of its
   * last verification, the records ready together sharing their requests.
   */
  private final class Window {
    private final List<PlannedRecord> records;
    private final Instant started;
    private final WindowPermits permits;
    /** The lane of the window's records, and its throttle. */
    private final PacedLane lane;
    private final DeleteThrottle throttle;
    private final int keysPerRequest;
    private final Verifications verifications;
    /** Each record's last verification that allows deletes, by its place in the window. */
    private final Verified[] current;
    private final int[] lateStarts;
    private final ExecutionOutcome[] outcomes;
    /** Verified records whose deletes have not started, in the order their verifications ended. */
    private final List<Integer> ready = new ArrayList<>();
    /** Whether a ready record's own verification took so long that verifying it again would too. */
    private boolean costlyReady;
    /** The longest verification of the window that ended. */
    private long longestEnded;
    private final Map<String, Long> deletedAt = new HashMap<>();
    private final Map<String, Instant> answeredAt = new HashMap<>();
    /** The delete marker each deleted key got, on a versioned bucket. */
    private final Map<String, String> markers = new HashMap<>();
    /** What became of the markers of the files of records that came back during their deletion. */
    private final Map<String, MarkerRemoval> removals = new HashMap<>();
    private final Map<String, DeleteResult.KeyError> errors = new HashMap<>();
    /** The state files read again after their records' files went. */
    private final Map<Integer, Recheck> recheckOf = new HashMap<>();
    /** The keys of the group whose deletes started last that its intent does not name yet, in the order sent. */
    private final ArrayDeque<GroupKey> unintended = new ArrayDeque<>();
    /** The keys of that group that its intent names. */
    private final Set<String> intended = new HashSet<>();

    Window(List<PlannedRecord> records, Instant started, WindowPermits permits, PacedLane lane,
        DeleteThrottle throttle) {
      this.records = records;
      this.started = started;
      this.permits = permits;
      this.lane = lane;
      this.throttle = throttle;
      this.keysPerRequest = Math.min(batchSize, throttle.maxBatch());
      this.verifications = new Verifications(records, shares(records));
      this.current = new Verified[records.size()];
      this.lateStarts = new int[records.size()];
      this.outcomes = new ExecutionOutcome[records.size()];
    }

    /**
     * The listings that the window's records side by side in one parent folder share (SharedListing), by slot;
     * null for a record that lists on its own.
     */
    private SharedListing[] shares(List<PlannedRecord> records) {
      Map<String, Map<String, List<Integer>>> byParent = new LinkedHashMap<>();
      for (int slot = 0; slot < records.size(); slot++) {
        String prefix = listingPrefix(records.get(slot).stateFileKey());
        String parent = prefix == null ? null : SharedListing.parentOf(prefix);
        if (parent != null) {
          byParent.computeIfAbsent(parent, p -> new LinkedHashMap<>()).computeIfAbsent(prefix, p -> new ArrayList<>())
              .add(slot);
        }
      }
      SharedListing[] shares = new SharedListing[records.size()];
      byParent.forEach((parent, prefixes) -> {
        if (prefixes.size() > 1) {
          SharedListing share = new SharedListing(store, parent, List.copyOf(prefixes.keySet()), nanoTime);
          prefixes.values().forEach(slots -> slots.forEach(slot -> shares[slot] = share));
        }
      });
      return shares;
    }

    List<ExecutionOutcome> execute() {
      try {
        for (int slot = 0; slot < records.size(); slot++) {
          verify(slot);
        }
        while (verifications.pending() > 0 || !ready.isEmpty()) {
          long now = nanoTime.getAsLong();
          long waited = ready.isEmpty() ? 0 : now - current[ready.get(0)].verifiedAt();
          if (!ready.isEmpty() && (verifications.pending() == 0 || costlyReady
              || waited >= GATHER_NANOS && (verifiers == null || verifications.longestRunning(now) > longWhile()))) {
            deleteReady();
          } else if (ready.isEmpty()) {
            take(verifications.next(-1));
          } else {
            // Until the oldest ready record has gathered, or a verification still running becomes long. A ready
            // record that goes stale meanwhile is verified again when the others go: verifying it again now
            // would keep them waiting for that too, and they could go stale in turn.
            take(verifications.next(Math.max(1, waited < GATHER_NANOS ? GATHER_NANOS - waited
                : longWhile() - verifications.longestRunning(now) + 1)));
          }
        }
      } finally {
        verifications.cancel();
      }
      return List.of(outcomes);
    }

    /** Verifies the record (again), unless its deletes started too late as often as they may. */
    private void verify(int slot) {
      PlannedRecord record = records.get(slot);
      if (lateStarts[slot] == MOST_LATE_STARTS) {
        String message = "its deletes could not start within " + FRESH_FOR.toMillis() + " ms of its verification, "
            + MOST_LATE_STARTS + " times (a slow start of its deletes, or waits for --max-deletes-per-second):"
            + " nothing is deleted; the state file stays";
        outcomes[slot] = finish(record, Outcome.FAILED, message, List.of(), false, 0,
            List.of(new KeyFailure(record.stateFileKey(), "VerifiedTooLongAgo", message)), started, null);
        return;
      }
      current[slot] = null;
      verifications.submit(slot);
    }

    /** The record's deletes would have started too late: it is verified again, at most so often. */
    private void startedLate(int slot) {
      lateStarts[slot]++;
      verify(slot);
    }

    private void take(Verifications.Ended ended) {
      if (ended == null) {
        return;
      }
      int slot = ended.slot();
      PlannedRecord record = records.get(slot);
      Verification verification = ended.verification();
      if (verification.failure != null) {
        StoreException e = verification.failure;
        outcomes[slot] = finish(record, Outcome.FAILED, e.getMessage(), List.of(), false, 0,
            List.of(new KeyFailure(record.stateFileKey(), e.errorCode(), e.getMessage())), started, null);
      } else if (verification.outcome != null) {
        outcomes[slot] = finish(record, verification.outcome, verification.message, List.of(), false, 0, List.of(),
            started, null);
      } else {
        current[slot] = verification.verified;
        ready.add(slot);
        // Verifying it again would take as long: without verifiers, waiting is verifying the next record, which
        // may take long too, so a record that took longer than a gathering goes at once; with them, one that
        // took longer than the bound (two large records of a window each go when verified, neither twice).
        costlyReady |= ended.tookNanos() >= (verifiers == null ? GATHER_NANOS : FRESH_NANOS);
      }
      longestEnded = Math.max(longestEnded, ended.tookNanos());
    }

    /**
     * How long a verification still running must have run for the ready records to go without it: it is not
     * one of a busy machine's verifications that ended a little later than the others (waiting for those
     * keeps the window's records together), but one that lists a large folder (a project), whose end would
     * come after their freshness.
     */
    private long longWhile() {
      return Math.max(GATHER_NANOS, 2 * longestEnded);
    }

    /** The ready records that are still fresh go now; the others are verified again. */
    private void deleteReady() {
      long now = nanoTime.getAsLong();
      List<Integer> group = new ArrayList<>();
      for (int slot : ready) {
        if (isFresh(current[slot], now)) {
          group.add(slot);
        } else {
          verify(slot);
        }
      }
      ready.clear();
      costlyReady = false;
      if (group.isEmpty()) {
        return;
      }
      group.sort(null); // their deletes in the order of the window
      int fileKeys = group.stream().mapToInt(slot -> current[slot].targets().size()).sum();
      // Keys past the window's reserved ones are reserved here, before the start: a wait for them is
      // followed by the check that the records are still fresh.
      DeleteThrottle.Permit first = fileKeys > 0 && permits.available() == 0
          ? throttle.reserve(Math.min(keysPerRequest, fileKeys)) : null;
      List<Integer> going;
      try {
        going = startDeletes(group);
      } catch (RuntimeException e) {
        if (first != null) {
          first.closeUnsent();
        }
        throw e;
      }
      List<Integer> begun = sendFiles(going, first);
      deleteStateFiles(begun);
      takeBack(begun);
      for (int slot : begun) {
        outcomes[slot] = outcomeOf(current[slot], recheckOf.remove(slot), deletedAt, answeredAt, markers, removals,
            errors, started);
      }
    }

    /**
     * The one point where verified records start their deletes (pipeline/README.md "Deleting"): what they are about to
     * delete is made durable first (the intent; if it cannot be written, none of them deletes anything), the hook hears
     * the files about to go, and a record that the time spent here made older than {@link #FRESH_FOR} is verified again
     * instead (its intent stays: the ledger finds its keys in place). Returns the records whose deletes start now.
     */
    private List<Integer> startDeletes(List<Integer> group) {
      String notIntended = intend(group);
      if (notIntended != null) {
        for (int slot : group) {
          Verified record = current[slot];
          outcomes[slot] = finish(record.plan, Outcome.FAILED, notIntended, List.of(), false, record.alreadyGone,
              List.of(new KeyFailure(record.plan.stateFileKey(), "LedgerUnavailable", notIntended)), started, null);
        }
        return List.of();
      }
      List<String> keys = new ArrayList<>();
      group.forEach(slot -> current[slot].targets().forEach(target -> keys.add(target.key())));
      hook.beforeDelete(keys);
      long now = nanoTime.getAsLong();
      List<Integer> going = new ArrayList<>(group.size());
      for (int slot : group) {
        if (isFresh(current[slot], now)) {
          going.add(slot);
        } else {
          startedLate(slot);
        }
      }
      return going;
    }

    /**
     * Sends the files of {@code going} in DeleteObjects requests, in order, under the window's reserved keys
     * ({@code first}: the keys of the first request, reserved before the start). Keys past them are reserved
     * request by request; after such a wait, a record none of whose keys has gone yet is verified again if the
     * wait made it older than {@link #FRESH_FOR}. Returns the records whose deletes began (every one of the
     * others is being verified again), in order.
     */
    private List<Integer> sendFiles(List<Integer> going, DeleteThrottle.Permit first) {
      List<Integer> begun = new ArrayList<>();
      ArrayDeque<Integer> notBegun = new ArrayDeque<>();
      for (int slot : going) {
        (current[slot].targets().isEmpty() ? begun : notBegun).add(slot);
      }
      ArrayDeque<DeleteTarget> sending = new ArrayDeque<>();
      DeleteThrottle.Permit own = first;
      try {
        while (!sending.isEmpty() || !notBegun.isEmpty()) {
          int want = Math.min(keysPerRequest, sending.size() + keysOf(notBegun));
          int keys = own != null ? 0 : permits.take(want);
          if (own == null && keys == 0) {
            own = throttle.reserve(want);
            long now = nanoTime.getAsLong();
            for (Iterator<Integer> slots = notBegun.iterator(); slots.hasNext(); ) {
              int slot = slots.next();
              if (!isFresh(current[slot], now)) {
                slots.remove();
                startedLate(slot);
              }
            }
          }
          if (own != null) {
            keys = Math.min(own.keys(), sending.size() + keysOf(notBegun));
          }
          List<DeleteTarget> batch = new ArrayList<>(keys);
          while (batch.size() < keys) {
            if (sending.isEmpty()) {
              int slot = notBegun.poll();
              begun.add(slot);
              sending.addAll(current[slot].targets());
            }
            batch.add(sending.poll());
          }
          DeleteThrottle.Permit sentUnder = own;
          own = null;
          sendUnder(batch, sentUnder, keys);
        }
      } finally {
        if (own != null) {
          own.closeUnsent(); // every record it was reserved for is being verified again, or the window failed
        }
      }
      begun.sort(Comparator.comparingInt(going::indexOf));
      return begun;
    }

    private int keysOf(Collection<Integer> slots) {
      int keys = 0;
      for (int slot : slots) {
        keys += current[slot].targets().size();
      }
      return keys;
    }

    /**
     * Each state file once more, after its record's files went: changed now, the record came back while they
     * went (its files were uploaded again before it, with the same ETags); unchanged, a due record's state file
     * may go last, even where conditional deletes are off. A request's keys are reserved before its state files
     * are read again, so that no wait falls between the read and the delete.
     */
    private void deleteStateFiles(List<Integer> begun) {
      List<Integer> deleting = new ArrayList<>();
      List<Integer> others = new ArrayList<>();
      for (int slot : begun) {
        Verified record = current[slot];
        if (record.plan().action() == Action.DELETE_RECORD && record.allFilesGone(deletedAt)) {
          deleting.add(slot);
        } else if (record.targets().stream().anyMatch(target -> deletedAt.containsKey(target.key()))) {
          others.add(slot);
        }
      }
      int from = 0;
      do {
        int want = Math.min(keysPerRequest, deleting.size() - from);
        int keys = want == 0 ? 0 : permits.take(want);
        DeleteThrottle.Permit own = want > 0 && keys == 0 ? throttle.reserve(want) : null;
        if (own != null) {
          keys = want;
        }
        List<Integer> chunk = deleting.subList(from, from + keys);
        from += keys;
        List<Integer> reading = new ArrayList<>(chunk);
        reading.addAll(others);
        others.clear();
        List<Recheck> rechecks;
        try {
          rechecks = inParallel(reading, slot -> recheck(current[slot]),
              verifications.pending() == 0 ? verifiers : rereaders());
        } catch (RuntimeException e) {
          sendUnder(List.of(), own, keys); // the keys go back: other tasks of this JVM share the throttle
          throw e;
        }
        List<DeleteTarget> targets = new ArrayList<>();
        for (int i = 0; i < reading.size(); i++) {
          int slot = reading.get(i);
          Recheck recheck = rechecks.get(i);
          recheckOf.put(slot, recheck);
          if (i >= chunk.size()) {
            continue;
          }
          String stateKey = records.get(slot).stateFileKey();
          if (recheck.failure != null) {
            errors.put(stateKey, recheck.failure);
          } else if (recheck.check == StateCheck.UNCHANGED) {
            targets.add(new DeleteTarget(stateKey, etag(records.get(slot).stateFile().etag())));
          } else {
            errors.put(stateKey, new DeleteResult.KeyError("PreconditionFailed",
                "the state file " + (recheck.check == StateCheck.GONE ? "is gone" : "changed")
                    + " while its record's files were deleted"));
          }
        }
        sendUnder(targets, own, keys);
      } while (from < deleting.size());
    }

    /**
     * The files of each record that came back while they went (pipeline/README.md, "Versioned buckets"): on a versioned
     * bucket, the version the exporter uploaded again sits behind the delete marker this execute just wrote. Each such
     * marker goes at once, only while it is still the key's latest version, and the file is current again; one with
     * anything written above it stays. Without versioning no delete wrote a marker, and nothing is asked.
     */
    private void takeBack(List<Integer> begun) {
      List<String> keys = new ArrayList<>();
      Map<String, String> deletedEtags = new HashMap<>();
      for (int slot : begun) {
        if (cameBack(recheckOf.get(slot), errors.get(records.get(slot).stateFileKey()))) {
          for (DeleteTarget target : current[slot].targets()) {
            if (deletedAt.containsKey(target.key()) && markers.containsKey(target.key())) {
              keys.add(target.key());
              deletedEtags.put(target.key(), current[slot].etagOf(target.key()));
            }
          }
        }
      }
      if (keys.isEmpty()) {
        return;
      }
      // The version behind each marker must be the one deleted (its verified ETag): never an older one.
      List<MarkerRemoval> answers = inParallel(keys, key -> store.removeMarkerIfLatest(key, markers.get(key),
          deletedEtags.get(key)), verifications.pending() == 0 ? verifiers : rereaders());
      for (int i = 0; i < keys.size(); i++) {
        removals.put(keys.get(i), answers.get(i));
      }
    }

    /**
     * Sends {@code batch} (if it holds keys) under its throttle's keys: a permit of its own, else {@code taken}
     * keys of the window's, those it did not use given back.
     */
    private void sendUnder(List<DeleteTarget> batch, DeleteThrottle.Permit own, int taken) {
      try {
        if (!batch.isEmpty()) {
          send(batch);
        }
      } finally {
        if (own != null) {
          own.closeAfterSending(batch.size());
        } else if (taken > 0) {
          permits.answered(taken - batch.size());
        }
      }
    }

    /**
     * Begins the group's intent: its keys that may go, in the order they would be sent (the files of each record,
     * then the state files), and writes the first {@link #INTENDED_AHEAD} of them; returns null when they are written
     * or there is nothing to delete, else why nothing of the group is deleted.
     */
    private String intend(List<Integer> group) {
      unintended.clear();
      intended.clear();
      for (int slot : group) {
        Verified record = current[slot];
        for (DeleteTarget target : record.targets) {
          unintended.add(new GroupKey(slot, new DeleteJournal.IntendedKey(target.key(), record.roleOf(target.key()),
              record.etagOf(target.key()))));
        }
      }
      for (int slot : group) {
        PlannedRecord plan = current[slot].plan;
        if (plan.action() == Action.DELETE_RECORD) {
          unintended.add(new GroupKey(slot, new DeleteJournal.IntendedKey(plan.stateFileKey(), DeleteRole.STATE_FILE,
              plan.stateFile().etag())));
        }
      }
      if (unintended.isEmpty()) {
        return null;
      }
      List<GroupKey> taken = takeAhead(List.of());
      try {
        journal.intend(intents(taken));
      } catch (RuntimeException e) {
        return "cannot record what this window is about to delete, so nothing of it was deleted: " + e.getMessage();
      }
      taken.forEach(key -> intended.add(key.key().key()));
      return null;
    }

    /**
     * Before a request: names its keys in the group's intent unless it does already, with those that follow up to
     * {@link #INTENDED_AHEAD}; returns null when they are named, else why none of them is sent.
     */
    private String intendBefore(List<DeleteTarget> batch) {
      if (batch.stream().allMatch(target -> intended.contains(target.key()))) {
        return null;
      }
      List<GroupKey> taken = takeAhead(batch);
      try {
        journal.intendMore(intents(taken));
      } catch (RuntimeException e) {
        // Not named: none of them is sent, and a later request names them first.
        for (int i = taken.size() - 1; i >= 0; i--) {
          unintended.addFirst(taken.get(i));
        }
        return "cannot record what this window is about to delete next, so it was not sent: " + e.getMessage();
      }
      taken.forEach(key -> intended.add(key.key().key()));
      return null;
    }

    /** The next keys of the group to name in its intent: at least {@code batch}'s and {@link #INTENDED_AHEAD}. */
    private List<GroupKey> takeAhead(List<DeleteTarget> batch) {
      Set<String> missing = new HashSet<>();
      batch.forEach(target -> missing.add(target.key()));
      missing.removeAll(intended);
      List<GroupKey> taken = new ArrayList<>();
      while (!unintended.isEmpty() && (taken.size() < INTENDED_AHEAD || !missing.isEmpty())) {
        GroupKey next = unintended.poll();
        taken.add(next);
        missing.remove(next.key().key());
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException("keys about to be sent are not of the group that started: " + missing);
      }
      return taken;
    }

    /** The intent of {@code keys}, by record. */
    private List<DeleteJournal.IntendedRecord> intents(List<GroupKey> keys) {
      Map<Integer, List<DeleteJournal.IntendedKey>> bySlot = new LinkedHashMap<>();
      keys.forEach(key -> bySlot.computeIfAbsent(key.slot(), slot -> new ArrayList<>()).add(key.key()));
      List<DeleteJournal.IntendedRecord> intents = new ArrayList<>(bySlot.size());
      bySlot.forEach((slot, slotKeys) -> {
        PlannedRecord plan = current[slot].plan;
        intents.add(new DeleteJournal.IntendedRecord(plan.stateFileKey(), plan.action(), plan.stateFile().etag(),
            slotKeys, current[slot].alreadyGone, started));
      });
      return intents;
    }

    /** One DeleteObjects request; its answer, per key, into the window's maps. */
    private void send(List<DeleteTarget> batch) {
      String notIntended = intendBefore(batch);
      if (notIntended != null) {
        for (DeleteTarget target : batch) {
          errors.put(target.key(), new DeleteResult.KeyError("LedgerUnavailable", notIntended));
        }
        return;
      }
      long sentAt = lane.nanoTime();
      try {
        DeleteResult result = store.delete(batch);
        lane.answered(batch.size(), result.throttled(), sentAt);
        long answered = nanoTime.getAsLong();
        Instant answeredWhen = clock.instant();
        result.deleted().forEach(key -> {
          deletedAt.put(key, answered);
          answeredAt.put(key, answeredWhen);
        });
        markers.putAll(result.markers());
        errors.putAll(result.errors());
      } catch (StoreException e) {
        lane.answered(0, e.throttled(), sentAt);
        for (DeleteTarget target : batch) {
          errors.put(target.key(), new DeleteResult.KeyError(e.errorCode(), e.getMessage()));
        }
      }
      hook.afterBatch(BATCHES.incrementAndGet());
    }
  }

  /** A key of a group whose deletes started, and the record it is of (by its place in the window). */
  private record GroupKey(int slot, DeleteJournal.IntendedKey key) {}

  private static boolean isFresh(Verified record, long at) {
    return at - record.verifiedAt() <= FRESH_NANOS;
  }

  /**
   * The verifications of a window: on the verifiers, or without them one at a time, each when the window
   * asks for the next answer.
   */
  private final class Verifications {
    /** A verification that ended, and how long it took (waiting for a thread left out). */
    record Ended(int slot, Verification verification, long tookNanos) {}

    private final List<PlannedRecord> records;
    /** The shared listing of each record's first verification; a record verified again lists on its own. */
    private final AtomicReferenceArray<SharedListing> shares;
    /** When each record's verification began on its thread, or {@link Long#MIN_VALUE} while it does not run. */
    private final AtomicLongArray verifyingSince;
    private final ArrayDeque<Integer> queued = new ArrayDeque<>();
    private final BlockingQueue<Object> ended = new LinkedBlockingQueue<>();
    private final List<Future<?>> running = new ArrayList<>();
    private int pending;

    Verifications(List<PlannedRecord> records, SharedListing[] shares) {
      this.records = records;
      this.shares = new AtomicReferenceArray<>(shares);
      this.verifyingSince = new AtomicLongArray(records.size());
      for (int slot = 0; slot < records.size(); slot++) {
        verifyingSince.set(slot, Long.MIN_VALUE);
      }
    }

    /** How long the longest of the verifications running on the verifiers has run; 0 when none runs. */
    long longestRunning(long now) {
      long longest = 0;
      for (int slot = 0; slot < verifyingSince.length(); slot++) {
        long since = verifyingSince.get(slot);
        if (since != Long.MIN_VALUE) {
          longest = Math.max(longest, now - since);
        }
      }
      return longest;
    }

    int pending() {
      return pending;
    }

    void submit(int slot) {
      pending++;
      if (verifiers == null) {
        queued.add(slot);
        return;
      }
      PlannedRecord record = records.get(slot);
      running.add(verifiers.submit(() -> {
        try {
          ended.add(timed(slot, record));
        } catch (Error e) {
          ended.add(e);
          throw e;
        }
      }));
    }

    /**
     * The next verification to end; null when none ended within {@code timeoutNanos} (negative: waits for
     * one). Without verifiers, verifies the next record now.
     */
    Ended next(long timeoutNanos) {
      Object next;
      if (verifiers == null) {
        int slot = queued.poll();
        next = timed(slot, records.get(slot));
      } else {
        try {
          next = timeoutNanos < 0 ? ended.take() : ended.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while verifying records", e);
        }
      }
      if (next instanceof Error e) {
        throw new IllegalStateException("verifying a record failed", e);
      }
      if (next != null) {
        pending--;
      }
      return (Ended) next;
    }

    private Ended timed(int slot, PlannedRecord record) {
      long start = nanoTime.getAsLong();
      verifyingSince.set(slot, start);
      try {
        Verification verification = verifyOrFail(record, shares.getAndSet(slot, null));
        return new Ended(slot, verification, nanoTime.getAsLong() - start);
      } finally {
        verifyingSince.set(slot, Long.MIN_VALUE);
      }
    }

    /** Stops what is still verifying (the window failed). */
    void cancel() {
      running.forEach(future -> future.cancel(true));
    }
  }

  private ExecutorService rereaders() {
    if (verifiers != null && rereaders == null) {
      rereaders = threads(verifyThreads, "statesweep-reread");
    }
    return rereaders;
  }

  /** {@code task} for each item, on {@code pool} when there is one, answers in order. */
  private static <T, R> List<R> inParallel(List<T> items, java.util.function.Function<T, R> task,
      ExecutorService pool) {
    List<R> answers = new ArrayList<>(items.size());
    if (pool == null || items.size() < 2) {
      items.forEach(item -> answers.add(task.apply(item)));
      return answers;
    }
    List<Future<R>> futures = new ArrayList<>(items.size());
    for (T item : items) {
      futures.add(pool.submit(() -> task.apply(item)));
    }
    for (Future<R> future : futures) {
      try {
        answers.add(future.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the window's requests", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("a request of the window failed", e.getCause());
      }
    }
    return answers;
  }

  private Verification verifyOrFail(PlannedRecord record, SharedListing share) {
    try {
      return verify(record, share);
    } catch (StoreException e) {
      return new Verification(null, null, null, e);
    } catch (RuntimeException e) {
      // Whatever went wrong, this record keeps everything and the others go on.
      return new Verification(null, null, null, new StoreException("Cannot verify " + record.stateFileKey() + ": "
          + e, errorCode(e), e));
    }
  }

  private Recheck recheck(Verified record) {
    try {
      return new Recheck(store.checkUnchanged(record.plan.stateFileKey(), record.plan.stateFile().etag()), null);
    } catch (RuntimeException e) {
      return new Recheck(null, new DeleteResult.KeyError(errorCode(e), e.getMessage()));
    }
  }

  private static String errorCode(RuntimeException e) {
    return e instanceof StoreException store ? store.errorCode() : e.getClass().getSimpleName();
  }

  @Override
  public void close() {
    if (verifiers != null) {
      verifiers.shutdownNow();
    }
    if (rereaders != null) {
      rereaders.shutdownNow();
    }
  }

  /** Verifies the record, listing it from {@code share} when that covers it (null: on its own). */
  private Verification verify(PlannedRecord record, SharedListing share) {
    StoredObject plannedState = record.stateFile();
    String stateKey = plannedState.key();
    ConditionalRead read = store.readState(stateKey, plannedState.etag());
    if (read.check() == StateCheck.GONE) {
      return record.action() == Action.DELETE_RECORD
          ? Verification.done(Outcome.ALREADY_DELETED,
              "the state file is gone (an earlier attempt, or someone else, deleted it): nothing is done")
          : Verification.done(Outcome.STATE_CHANGED, "the state file is gone since it was planned");
    }
    if (read.check() == StateCheck.CHANGED) {
      return Verification.done(Outcome.STATE_CHANGED,
          "the state file changed since it was planned: nothing is done on the old plan");
    }
    if (!(classifier.classify(stateKey) instanceof Classification.StateFile place)) {
      return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + stateKey
          + ": it is not a state file at a place of layout " + classifier.layout().name()
          + " (was the plan made with another layout?)");
    }
    // The plan is data that anyone with write access to its table could change: the decision is made
    // again from the document just read, and a row may only narrow it.
    ParsedState parsed = read.truncated()
        ? new ParsedState(null, "Invalid state file " + stateKey + ": the document is larger than "
            + read.bytes().length + " bytes")
        : parser.parse(stateKey, read.bytes());
    for (PlannedDelete delete : record.files()) {
      String rule = classifier.listingRefusal(place, delete.key());
      if (rule != null) {
        return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + delete.key() + ": " + rule);
      }
    }
    if (!parsed.isValid()) {
      return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + stateKey
          + ": its state file, read again now, is not a valid document: " + parsed.error());
    }
    StateDocument document = parsed.document();
    Set<String> listed = new LinkedHashSet<>(document.files());
    listed.addAll(document.deleteFiles());
    listed.remove(stateKey);
    for (PlannedDelete delete : record.files()) {
      if (!listed.contains(delete.key())) {
        return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + delete.key()
            + ": its state file does not list it");
      }
    }
    Set<String> keysOfInterest = new LinkedHashSet<>(listed);
    record.files().forEach(delete -> keysOfInterest.add(delete.key()));
    CurrentFiles listing = currentFiles(stateKey, keysOfInterest, share);
    StoredObject stateNow = listing.stateObject() != null ? listing.stateObject() : store.listedObject(stateKey);
    if (stateNow == null || !stateNow.etag().equals(plannedState.etag())) {
      return Verification.done(Outcome.STATE_CHANGED,
          "the state file changed since it was planned: nothing is done on the old plan");
    }

    Map<String, ListedKey> listedKeys = new HashMap<>();
    for (String key : listed) {
      String owner = listing.otherOwners().get(key);
      StoredObject object = owner == null ? listing.files().get(key) : null;
      if (owner == null && object == null && !listing.coversExistence(key)) {
        object = store.listedObject(key);
      }
      listedKeys.put(key, new ListedKey(key, object, owner != null ? owner : object != null ? stateKey : null));
    }
    StoredObject newestOwned = null;
    for (StoredObject object : listing.files().values()) {
      if (newestOwned == null || object.isNewerThan(newestOwned)) {
        newestOwned = object;
      }
    }
    RecordPlan now = planner.plan(new RecordInput(place, stateNow, parsed, listedKeys, newestOwned), clock.instant());
    return narrowed(record, stateNow, document, now, listedKeys, listing.listedFrom());
  }

  /**
   * The plan row's deletes, as far as the decision just made allows them: the row may delete less than the
   * planner would now, never more.
   */
  private Verification narrowed(PlannedRecord record, StoredObject stateNow, StateDocument document, RecordPlan now,
      Map<String, ListedKey> listedKeys, long listedFrom) {
    String stateKey = record.stateFileKey();
    switch (now.action()) {
      case KEPT_NEWER_FILES:
        return Verification.done(Outcome.KEPT_NEWER_FILES, now.reason());
      case KEPT_REFUSED:
      case BAD_STATE:
        return Verification.done(Outcome.KEPT_REFUSED, now.reason());
      default:
        break;
    }
    if (record.action() == Action.DELETE_RECORD && now.action() != Action.DELETE_RECORD) {
      return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + stateKey
          + ": the plan deletes the record, but its state file, read again now, does not make it due ("
          + now.action().label() + ": " + now.reason() + ")");
    }
    Map<String, StoredObject> allowed = new HashMap<>();
    for (PlannedDelete delete : now.deletes()) {
      if (delete.role() != DeleteRole.STATE_FILE) {
        allowed.put(delete.key(), delete.object());
      }
    }
    Set<String> planned = new LinkedHashSet<>();
    record.files().forEach(delete -> planned.add(delete.key()));
    if (record.action() == Action.DELETE_RECORD) {
      // The state file goes last: every file that exists now must be in the row, or the state file would
      // orphan it.
      for (String key : allowed.keySet()) {
        if (!planned.contains(key)) {
          return Verification.done(Outcome.KEPT_NEWER_FILES, "the record is coming back: " + key
              + ", which its state file lists, exists now but is not in the plan");
        }
      }
      // Stricter than "newer": a planned file rewritten in the state file's second is not the planned version.
      for (PlannedDelete delete : record.files()) {
        StoredObject current = allowed.get(delete.key());
        if (current != null && !current.etag().equals(delete.object().etag())) {
          return Verification.done(Outcome.KEPT_NEWER_FILES, "the record is coming back: " + delete.key()
              + " was written again since it was planned (ETag " + current.etag() + ", planned "
              + delete.object().etag() + ")");
        }
      }
    }
    List<DeleteTarget> targets = new ArrayList<>();
    int alreadyGone = 0;
    int newerKept = 0;
    for (PlannedDelete delete : record.files()) {
      if (!planned.remove(delete.key())) {
        continue; // a plan row that names a key twice: it is sent, and counted, once
      }
      StoredObject current = allowed.get(delete.key());
      ListedKey listedKey = listedKeys.get(delete.key());
      if (current != null) {
        if (current.etag().equals(delete.object().etag())) {
          targets.add(new DeleteTarget(delete.key(), etag(current.etag())));
        } else {
          newerKept++; // a removed file written again since the plan
        }
      } else if (!listedKey.exists()) {
        alreadyGone++;
      } else if (document.deleteFiles().contains(delete.key()) && !document.files().contains(delete.key())
          && listedKey.object().isNewerThan(stateNow)) {
        newerKept++; // a removed file written again after its state file: the planner keeps it too
      } else {
        String why = document.files().contains(delete.key())
            ? "its state file lists it in files, and the record is " + now.action().label() + ": " + now.reason()
            : "the planner would not delete it now (" + now.action().label() + ": " + now.reason() + ")";
        return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + delete.key() + ": " + why);
      }
    }
    // Its keys count as seen when their listing began, if a shared listing began before this verification ended.
    long verifiedAt = Math.min(nanoTime.getAsLong(), listedFrom);
    return Verification.ready(new Verified(record, targets, alreadyGone, newerKept, verifiedAt));
  }

  /**
   * The record's files as they are now: for a folder record every key in its folder that no nested
   * record owns (its nested records' other keys are not held: {@link OwnedFiles}, so memory does not
   * grow with them), for a single-file record its {@code <id>.json} (listed or not: one uploaded since
   * the plan means the record is coming back); the state file as the listing shows it; and the nested
   * record that owns each key of interest, if any, whether the key exists or not (as the plan has it).
   */
  private CurrentFiles currentFiles(String stateFileKey, Collection<String> keysOfInterest, SharedListing share) {
    Classification classification = classifier.classify(stateFileKey);
    if (!(classification instanceof Classification.StateFile stateFile)) {
      throw new IllegalStateException(stateFileKey + " is not a state file");
    }
    String prefix = listingPrefix(stateFile, stateFileKey);
    SharedListing.Served served = share == null ? null : share.take(prefix);
    RecordStore lister = served == null ? store : new SharedListing.ServedStore(store, prefix, served.objects());
    long listedFrom = served == null ? Long.MAX_VALUE : served.listedFrom();
    Map<String, StoredObject> current = new LinkedHashMap<>();
    if (stateFile.shape() == RecordShape.SINGLE_FILE) {
      // One listing of "<id>." answers for both "<id>.json" and "<id>.state.json".
      String ownFile = stateFile.scope();
      StoredObject stateObject = null;
      Iterator<StoredObject> objects = lister.list(prefix, null);
      while (objects.hasNext()) {
        StoredObject object = objects.next();
        if (object.key().equals(ownFile)) {
          current.put(ownFile, object);
        } else if (object.key().equals(stateFileKey)) {
          stateObject = object;
        }
      }
      return new CurrentFiles(current, Map.of(), stateObject, ownFile::equals, listedFrom);
    }
    String folder = stateFile.scope();
    OwnedFiles owned = OwnedFiles.list(lister, classifier, stateFileKey, folder, keysOfInterest,
        OwnedFiles.PENDING_LIMIT);
    if (owned.stateObject() == null) {
      // The state file went while its folder was listed: nothing is decided on this listing.
      return new CurrentFiles(Map.of(), Map.of(), null, key -> false, listedFrom);
    }
    current.putAll(owned.files());
    Map<String, String> otherOwners = new HashMap<>(owned.otherOwners());
    for (String key : keysOfInterest) {
      if (key.startsWith(folder) && !owned.exists(key) && !otherOwners.containsKey(key)) {
        // A listed key that does not exist: its owner as the plan has it, the closest nested state file.
        String owner = nestedOwner(stateFileKey, folder, key);
        if (owner != null) {
          otherOwners.put(key, owner);
        }
      }
    }
    return new CurrentFiles(current, otherOwners, owned.stateObject(),
        key -> key.startsWith(folder) && owned.isKeyOfInterest(key), listedFrom);
  }

  /** What a record's verification lists: its folder, or {@code <id>.} of a single-file record; null for no record. */
  private String listingPrefix(String stateFileKey) {
    return classifier.classify(stateFileKey) instanceof Classification.StateFile stateFile
        ? listingPrefix(stateFile, stateFileKey) : null;
  }

  private static String listingPrefix(Classification.StateFile stateFile, String stateFileKey) {
    return stateFile.shape() == RecordShape.SINGLE_FILE ? commonPrefix(stateFile.scope(), stateFileKey)
        : stateFile.scope();
  }

  /** The closest existing nested record boundary above {@code key} inside {@code folder}, or null. */
  private String nestedOwner(String stateFileKey, String folder, String key) {
    OwnerCandidate closest = null;
    for (OwnerCandidate candidate : classifier.ownerCandidates(key)) {
      String candidateKey = candidate.stateFileKey();
      if (candidateKey.startsWith(folder) && !candidateKey.equals(stateFileKey)
          && (closest == null || candidate.depth() > closest.depth())
          && classifier.isRecordBoundary(candidateKey) && store.listedObject(candidateKey) != null) {
        closest = candidate;
      }
    }
    return closest == null ? null : closest.stateFileKey();
  }

  private static String commonPrefix(String a, String b) {
    int length = 0;
    while (length < Math.min(a.length(), b.length()) && a.charAt(length) == b.charAt(length)) {
      length++;
    }
    return a.substring(0, length);
  }

  /**
   * Whether the record came back while its files went: its state file read again as changed, or read unchanged and
   * then refusing its conditional delete.
   */
  private static boolean cameBack(Recheck recheck, DeleteResult.KeyError stateError) {
    return recheck != null && (recheck.check == StateCheck.CHANGED
        || recheck.check == StateCheck.UNCHANGED && stateError != null && stateError.isPreconditionFailed());
  }

  private ExecutionOutcome outcomeOf(Verified record, Recheck recheck, Map<String, Long> deletedAt,
      Map<String, Instant> answeredAt, Map<String, String> markers, Map<String, MarkerRemoval> removals,
      Map<String, DeleteResult.KeyError> errors, Instant started) {
    List<KeyFailure> failures = new ArrayList<>();
    // A changed key is expected; any other failure needs a person, so it decides the outcome.
    KeyFailure firstError = null;
    List<DeletedKey> deletedKeys = new ArrayList<>();
    long lastDelete = 0;
    boolean changed = false;
    for (DeleteTarget target : record.targets) {
      Long at = deletedAt.get(target.key());
      if (at != null) {
        DeletedKey deleted = new DeletedKey(target.key(), record.roleOf(target.key()), record.etagOf(target.key()),
            answeredAt.get(target.key()), markers.get(target.key()));
        MarkerRemoval removal = removals.get(target.key());
        deletedKeys.add(removal != null && removal.fileIsThere() ? deleted.restoredAs(removal.currentVersion())
            : deleted);
        lastDelete = Math.max(lastDelete, at);
      } else {
        DeleteResult.KeyError error = errors.get(target.key());
        String code = error == null ? "Unknown" : error.code();
        KeyFailure failure = new KeyFailure(target.key(), code, error == null ? "no answer for this key" : error.message());
        failures.add(failure);
        if (error != null && error.isPreconditionFailed()) {
          changed = true;
        } else if (firstError == null) {
          firstError = failure;
        }
      }
    }
    long filesDeleted = deletedKeys.size();
    String stateKey = record.plan.stateFileKey();
    Long stateDeletedAt = record.plan.action() == Action.DELETE_RECORD ? deletedAt.get(stateKey) : null;
    if (stateDeletedAt != null) {
      deletedKeys.add(new DeletedKey(stateKey, DeleteRole.STATE_FILE, record.plan.stateFile().etag(),
          answeredAt.get(stateKey), markers.get(stateKey)));
      lastDelete = Math.max(lastDelete, stateDeletedAt);
    }
    DeleteResult.KeyError stateError = errors.get(stateKey);
    // The state file changed while (or right after) the record's files went: the record came back.
    boolean cameBack = cameBack(recheck, stateError);
    if (stateError != null) {
      KeyFailure failure = new KeyFailure(stateKey, stateError.code(), stateError.message());
      failures.add(failure);
      if (stateError.isPreconditionFailed()) {
        changed = true;
      } else if (firstError == null) {
        firstError = failure;
      }
    }
    String kept = record.newerKept > 0 ? "; " + record.newerKept + " removed files newer than the state file kept" : "";
    Outcome outcome;
    String message;
    List<DeletedKey> lost = deletedKeys.stream().filter(key -> !key.restored()).toList();
    if (cameBack && filesDeleted > 0 && lost.isEmpty()) {
      outcome = Outcome.RESTORED_AFTER_COMING_BACK;
      message = "the state file changed while the record's files were deleted: the record came back during its"
          + " deletion, and its " + filesDeleted + " deleted files are current again (" + takenBack(deletedKeys,
          removals) + "); the state file stays"
          + (firstError != null ? "; could not delete " + firstError.key() + ": " + firstError.message() : "");
    } else if (cameBack && filesDeleted > 0) {
      outcome = Outcome.CAME_BACK_DURING_DELETE;
      MarkerRemoval notRestored = lost.stream().map(key -> removals.get(key.key())).filter(java.util.Objects::nonNull)
          .findFirst().orElse(null);
      message = "the state file changed while the record's files were deleted: the record came back during its"
          + " deletion, and " + filesDeleted + " of its files were deleted ("
          + DeletedKey.named(deletedKeys) + ")"
          + (lost.size() < filesDeleted ? "; " + (filesDeleted - lost.size()) + " of them are current again ("
              + takenBack(deletedKeys, removals) + "), " + lost.size() + " not ("
              + DeletedKey.named(lost) + ")" : "")
          + (notRestored != null ? "; " + lost.get(0).key() + " was not restored: " + notRestored.detail() : "")
          + "; run Verify bucket in the exporter"
          + (firstError != null ? "; could not delete " + firstError.key() + ": " + firstError.message() : "");
    } else if (firstError != null) {
      outcome = Outcome.FAILED;
      message = "could not delete " + firstError.key() + ": " + firstError.message() + " ("
          + firstError.code() + ")" + (failures.size() > 1 ? " and " + (failures.size() - 1) + " more keys" : "")
          + "; the state file stays";
    } else if (changed) {
      outcome = Outcome.CHANGED_DURING_DELETE;
      message = "a key changed after it was verified and stays: " + failures.get(0).key() + "; the state file stays";
    } else if (record.plan.action() == Action.DELETE_RECORD) {
      outcome = Outcome.DELETED;
      message = "deleted " + filesDeleted + " files, then the state file";
    } else {
      outcome = Outcome.REMOVED_FILES_DELETED;
      message = "deleted " + filesDeleted + " removed files" + kept;
    }
    Duration window = deletedKeys.isEmpty() ? null : Duration.ofNanos(Math.max(0, lastDelete - record.verifiedAt));
    return finish(record.plan, outcome, message, deletedKeys, stateDeletedAt != null && outcome == Outcome.DELETED,
        record.alreadyGone, failures, started, window);
  }

  /** How the files of a record that came back are current again: restored by removing markers, or written since. */
  private static String takenBack(List<DeletedKey> deletedKeys, Map<String, MarkerRemoval> removals) {
    long restored = deletedKeys.stream().map(key -> removals.get(key.key()))
        .filter(removal -> removal != null && removal.status() == MarkerRemoval.Status.RESTORED).count();
    long writtenSince = deletedKeys.stream().map(key -> removals.get(key.key()))
        .filter(removal -> removal != null && removal.status() == MarkerRemoval.Status.WRITTEN_SINCE).count();
    return restored + " restored by removing the delete markers this execute wrote"
        + (writtenSince > 0 ? ", " + writtenSince + " written again since" : "");
  }

  private ExecutionOutcome finish(PlannedRecord record, Outcome outcome, String message, List<DeletedKey> deletedKeys,
      boolean stateDeleted, int alreadyGone, List<KeyFailure> failures, Instant started, Duration verifiedToDeleted) {
    long childKeys = deletedKeys.size() - (stateDeleted ? 1 : 0);
    return new ExecutionOutcome(record.stateFileKey(), record.action(), outcome, message, childKeys, stateDeleted,
        alreadyGone, failures, started, clock.instant(), deletedKeys, verifiedToDeleted);
  }

  private String etag(String etag) {
    return conditional == ConditionalDeletes.ON ? etag : null;
  }

  /**
   * The record's files as listed just now, the nested records that own keys of interest, the state file
   * as listed (null when the listing did not show it), which keys the listing answers for, and when a
   * shared listing of them began ({@link Long#MAX_VALUE} for the record's own listing).
   */
  private record CurrentFiles(Map<String, StoredObject> files, Map<String, String> otherOwners,
      StoredObject stateObject, java.util.function.Predicate<String> listed, long listedFrom) {
    /** Whether the listing shows whether {@code key} exists (else it is looked up). */
    boolean coversExistence(String key) {
      return listed.test(key);
    }
  }

  private record Verified(PlannedRecord plan, List<DeleteTarget> targets, int alreadyGone, int newerKept,
      long verifiedAt, Map<String, PlannedDelete> plannedByKey) {
    Verified(PlannedRecord plan, List<DeleteTarget> targets, int alreadyGone, int newerKept, long verifiedAt) {
      this(plan, targets, alreadyGone, newerKept, verifiedAt, byKey(plan));
    }

    private static Map<String, PlannedDelete> byKey(PlannedRecord plan) {
      Map<String, PlannedDelete> byKey = new HashMap<>();
      plan.deletes().forEach(delete -> byKey.putIfAbsent(delete.key(), delete));
      return byKey;
    }

    boolean allFilesGone(Map<String, Long> deletedAt) {
      return targets.stream().allMatch(target -> deletedAt.containsKey(target.key()));
    }

    /** The planned role of one of its keys. */
    DeleteRole roleOf(String key) {
      PlannedDelete delete = plannedByKey.get(key);
      return delete == null ? DeleteRole.FILE : delete.role();
    }

    /** The ETag one of its keys was verified with: its planned one, which a target must still have. */
    String etagOf(String key) {
      PlannedDelete delete = plannedByKey.get(key);
      return delete == null ? "" : delete.object().etag();
    }
  }

  /** A state file read again after its record's files went; exactly one of the two is set. */
  private record Recheck(StateCheck check, DeleteResult.KeyError failure) {}

  private record Verification(Verified verified, Outcome outcome, String message, StoreException failure) {
    static Verification ready(Verified verified) {
      return new Verification(verified, null, null, null);
    }

    static Verification done(Outcome outcome, String message) {
      return new Verification(null, outcome, message, null);
    }
  }
}
