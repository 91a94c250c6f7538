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
import io.statesweep.plan.StoredObject;
import io.statesweep.s3.ConditionalRead;
import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.StateCheck;
import io.statesweep.s3.StoreException;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateDocument;
import io.statesweep.state.StateParser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Executes written plans, a window of records at a time, so that no live file can go (spec sections
 * 2 to 4):
 *
 * <ol>
 *   <li>takes the throttle's permits for the window's keys first, so that a wait for them never falls
 *       between a record's verification and its deletes;
 *   <li>re-reads each state file with If-Match on the planned ETag (changed or gone: nothing is done on
 *       the old plan), re-lists the record's keys, and makes the {@link Planner}'s decision again from
 *       the document just read and the bucket as it is now. A plan row may only narrow that decision:
 *       a row that would delete more (a live record's row turned into {@code delete_record}, a key the
 *       planner would not delete now) is refused ({@code kept_refused}, naming the key), and a file
 *       newer than the state file keeps the whole record ({@code the record is coming back});
 *   <li>deletes the files of all verified records of the window in DeleteObjects batches, each key
 *       conditional on the ETag just seen (when conditional deletes are on);
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
  private static final AtomicLong BATCHES = new AtomicLong();

  private final RecordStore store;
  private final KeyClassifier classifier;
  private final Planner planner;
  private final StateParser parser;
  private final int batchSize;
  private final ConditionalDeletes conditional;
  private final DeleteThrottle throttle;
  private final ExecutionHook hook;
  private final Clock clock;
  private final ExecutorService verifiers;
  private final DeleteJournal journal;

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
   * As above, writing each window's intent to {@code journal} before its first delete: a window whose intent
   * cannot be written deletes nothing (README, "Every delete on the record").
   */
  public RecordExecutor(RecordStore store, Planner planner, StateParser parser, int batchSize,
      ConditionalDeletes conditional, DeleteThrottle throttle, ExecutionHook hook, Clock clock, int verifyThreads,
      DeleteJournal journal) {
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
    this.throttle = requireNonNull(throttle, "throttle is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.journal = requireNonNull(journal, "journal is null");
    this.verifiers = verifyThreads == 1 ? null : Executors.newFixedThreadPool(verifyThreads, runnable -> {
      Thread thread = new Thread(runnable, "statesweep-verify");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Executes a window of records; returns one outcome per record, in order. */
  public List<ExecutionOutcome> execute(List<PlannedRecord> window) {
    Instant started = clock.instant();
    // The permits first: a wait for them must not widen the window between verification and delete. A
    // window of more keys than a request may carry under the ceiling reserves request by request instead.
    int windowKeys = window.stream().mapToInt(record -> record.deletes().size()).sum();
    DeleteThrottle.Permit permit = windowKeys > 0 && windowKeys <= throttle.maxBatch() ? throttle.reserve(windowKeys)
        : null;
    int[] sent = {0};
    try {
      return verifyAndDelete(window, started, permit, sent);
    } finally {
      if (permit != null) {
        permit.closeAfterSending(Math.min(sent[0], windowKeys));
      }
    }
  }

  private List<ExecutionOutcome> verifyAndDelete(List<PlannedRecord> window, Instant started,
      DeleteThrottle.Permit permit, int[] sent) {
    // By identity: two plan rows of one state file (a duplicated row) still get one outcome each.
    Map<PlannedRecord, ExecutionOutcome> outcomes = new IdentityHashMap<>();
    List<Verified> verified = new ArrayList<>();
    List<Verification> verifications = inParallel(window, this::verifyOrFail);
    for (int i = 0; i < window.size(); i++) {
      PlannedRecord record = window.get(i);
      Verification verification = verifications.get(i);
      if (verification.failure != null) {
        StoreException e = verification.failure;
        outcomes.put(record, finish(record, Outcome.FAILED, e.getMessage(), List.of(), false, 0,
            List.of(new KeyFailure(record.stateFileKey(), e.errorCode(), e.getMessage())), started, null));
      } else if (verification.outcome != null) {
        outcomes.put(record, finish(record, verification.outcome, verification.message, List.of(), false,
            0, List.of(), started, null));
      } else {
        verified.add(verification.verified);
      }
    }

    List<DeleteTarget> fileTargets = new ArrayList<>();
    verified.forEach(record -> fileTargets.addAll(record.targets));
    // What the window is about to delete is durable before its first delete: if it cannot be written, nothing goes.
    String notIntended = intend(verified, started);
    if (notIntended != null) {
      for (Verified record : verified) {
        outcomes.put(record.plan, finish(record.plan, Outcome.FAILED, notIntended, List.of(), false,
            record.alreadyGone, List.of(new KeyFailure(record.plan.stateFileKey(), "LedgerUnavailable", notIntended)),
            started, null));
      }
      return inOrder(window, outcomes);
    }
    hook.beforeDelete(fileTargets.stream().map(DeleteTarget::key).toList());
    Map<String, DeleteResult.KeyError> errors = new HashMap<>();
    Map<String, Long> deletedAt = new HashMap<>();
    Map<String, Instant> answeredAt = new HashMap<>();
    sent[0] += deleteInBatches(fileTargets, deletedAt, answeredAt, errors, permit);

    // Each state file once more, after its record's files went: changed now, the record came back while
    // they went (its files were uploaded again before it, with the same ETags); unchanged, a due record's
    // state file may go last, even where conditional deletes are off.
    List<Verified> toRecheck = verified.stream()
        .filter(record -> record.targets.stream().anyMatch(target -> deletedAt.containsKey(target.key()))
            || record.plan.action() == Action.DELETE_RECORD && record.allFilesGone(deletedAt))
        .toList();
    List<Recheck> rechecks = inParallel(toRecheck, this::recheck);
    Map<Verified, Recheck> recheckOf = new IdentityHashMap<>();
    List<DeleteTarget> stateTargets = new ArrayList<>();
    for (int i = 0; i < toRecheck.size(); i++) {
      Verified record = toRecheck.get(i);
      Recheck recheck = rechecks.get(i);
      recheckOf.put(record, recheck);
      String stateKey = record.plan.stateFileKey();
      if (record.plan.action() != Action.DELETE_RECORD || !record.allFilesGone(deletedAt)) {
        continue;
      }
      if (recheck.failure != null) {
        errors.put(stateKey, recheck.failure);
      } else if (recheck.check == StateCheck.UNCHANGED) {
        stateTargets.add(new DeleteTarget(stateKey, etag(record.plan.stateFile().etag())));
      } else {
        errors.put(stateKey, new DeleteResult.KeyError("PreconditionFailed",
            "the state file " + (recheck.check == StateCheck.GONE ? "is gone" : "changed")
                + " while its record's files were deleted"));
      }
    }
    sent[0] += deleteInBatches(stateTargets, deletedAt, answeredAt, errors, permit);

    for (Verified record : verified) {
      outcomes.put(record.plan, outcomeOf(record, recheckOf.get(record), deletedAt, answeredAt, errors, started));
    }
    return inOrder(window, outcomes);
  }

  private static List<ExecutionOutcome> inOrder(List<PlannedRecord> window, Map<PlannedRecord, ExecutionOutcome> outcomes) {
    List<ExecutionOutcome> ordered = new ArrayList<>(window.size());
    for (PlannedRecord record : window) {
      ordered.add(outcomes.get(record));
    }
    return ordered;
  }

  /**
   * Writes the window's intent (every verified record with a key that may go: its files, then its state file);
   * returns null when it is written or there is nothing to delete, else why nothing of the window is deleted.
   */
  private String intend(List<Verified> verified, Instant started) {
    List<DeleteJournal.IntendedRecord> intents = new ArrayList<>();
    for (Verified record : verified) {
      List<DeleteJournal.IntendedKey> keys = new ArrayList<>();
      for (DeleteTarget target : record.targets) {
        keys.add(new DeleteJournal.IntendedKey(target.key(), record.roleOf(target.key()), record.etagOf(target.key())));
      }
      PlannedRecord plan = record.plan;
      if (plan.action() == Action.DELETE_RECORD) {
        keys.add(new DeleteJournal.IntendedKey(plan.stateFileKey(), DeleteRole.STATE_FILE, plan.stateFile().etag()));
      }
      if (!keys.isEmpty()) {
        intents.add(new DeleteJournal.IntendedRecord(plan.stateFileKey(), plan.action(), plan.stateFile().etag(), keys,
            record.alreadyGone, started));
      }
    }
    if (intents.isEmpty()) {
      return null;
    }
    try {
      journal.intend(intents);
      return null;
    } catch (RuntimeException e) {
      return "cannot record what this window is about to delete, so nothing of it was deleted: " + e.getMessage();
    }
  }

  /** {@code task} for each item, on the verifiers when there are some, answers in order. */
  private <T, R> List<R> inParallel(List<T> items, java.util.function.Function<T, R> task) {
    List<R> answers = new ArrayList<>(items.size());
    if (verifiers == null || items.size() < 2) {
      items.forEach(item -> answers.add(task.apply(item)));
      return answers;
    }
    List<Future<R>> futures = new ArrayList<>(items.size());
    for (T item : items) {
      futures.add(verifiers.submit(() -> task.apply(item)));
    }
    for (Future<R> future : futures) {
      try {
        answers.add(future.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while verifying records", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("verifying a record failed", e.getCause());
      }
    }
    return answers;
  }

  private Verification verifyOrFail(PlannedRecord record) {
    try {
      return verify(record);
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
  }

  private Verification verify(PlannedRecord record) {
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
    CurrentFiles listing = currentFiles(stateKey, keysOfInterest);
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
    return narrowed(record, stateNow, document, now, listedKeys);
  }

  /**
   * The plan row's deletes, as far as the decision just made allows them: the row may delete less than the
   * planner would now, never more.
   */
  private Verification narrowed(PlannedRecord record, StoredObject stateNow, StateDocument document, RecordPlan now,
      Map<String, ListedKey> listedKeys) {
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
    return Verification.ready(new Verified(record, targets, alreadyGone, newerKept, System.nanoTime()));
  }

  /**
   * The record's files as they are now: for a folder record every key in its folder that no nested
   * record owns (its nested records' other keys are not held: {@link OwnedFiles}, so memory does not
   * grow with them), for a single-file record its {@code <id>.json} (listed or not: one uploaded since
   * the plan means the record is coming back); the state file as the listing shows it; and the nested
   * record that owns each key of interest, if any, whether the key exists or not (as the plan has it).
   */
  private CurrentFiles currentFiles(String stateFileKey, Collection<String> keysOfInterest) {
    Classification classification = classifier.classify(stateFileKey);
    if (!(classification instanceof Classification.StateFile stateFile)) {
      throw new IllegalStateException(stateFileKey + " is not a state file");
    }
    Map<String, StoredObject> current = new LinkedHashMap<>();
    if (stateFile.shape() == RecordShape.SINGLE_FILE) {
      // One listing of "<id>." answers for both "<id>.json" and "<id>.state.json".
      String ownFile = stateFile.scope();
      StoredObject stateObject = null;
      Iterator<StoredObject> objects = store.list(commonPrefix(ownFile, stateFileKey), null);
      while (objects.hasNext()) {
        StoredObject object = objects.next();
        if (object.key().equals(ownFile)) {
          current.put(ownFile, object);
        } else if (object.key().equals(stateFileKey)) {
          stateObject = object;
        }
      }
      return new CurrentFiles(current, Map.of(), stateObject, ownFile::equals);
    }
    String folder = stateFile.scope();
    OwnedFiles owned = OwnedFiles.list(store, classifier, stateFileKey, folder, keysOfInterest,
        OwnedFiles.PENDING_LIMIT);
    if (owned.stateObject() == null) {
      // The state file went while its folder was listed: nothing is decided on this listing.
      return new CurrentFiles(Map.of(), Map.of(), null, key -> false);
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
        key -> key.startsWith(folder) && owned.isKeyOfInterest(key));
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
   * Sends {@code targets} in DeleteObjects requests. Under the window's permit (its keys reserved before
   * it was verified), as they are; without one (a window larger than a request under the ceiling), each
   * request reserves its keys right before it goes and gives them back once answered. Returns the keys sent.
   */
  private int deleteInBatches(List<DeleteTarget> targets, Map<String, Long> deletedAt, Map<String, Instant> answeredAt,
      Map<String, DeleteResult.KeyError> errors, DeleteThrottle.Permit windowPermit) {
    int keysPerRequest = windowPermit != null ? batchSize : Math.min(batchSize, throttle.maxBatch());
    for (int from = 0; from < targets.size(); from += keysPerRequest) {
      List<DeleteTarget> batch = targets.subList(from, Math.min(targets.size(), from + keysPerRequest));
      try (DeleteThrottle.Permit permit = windowPermit != null ? null : throttle.reserve(batch.size())) {
        DeleteResult result = store.delete(batch);
        long answered = System.nanoTime();
        Instant answeredWhen = clock.instant();
        result.deleted().forEach(key -> {
          deletedAt.put(key, answered);
          answeredAt.put(key, answeredWhen);
        });
        errors.putAll(result.errors());
      } catch (StoreException e) {
        for (DeleteTarget target : batch) {
          errors.put(target.key(), new DeleteResult.KeyError(e.errorCode(), e.getMessage()));
        }
      }
      hook.afterBatch(BATCHES.incrementAndGet());
    }
    return targets.size();
  }

  private ExecutionOutcome outcomeOf(Verified record, Recheck recheck, Map<String, Long> deletedAt,
      Map<String, Instant> answeredAt, Map<String, DeleteResult.KeyError> errors, Instant started) {
    List<KeyFailure> failures = new ArrayList<>();
    // A changed key is expected; any other failure needs a person, so it decides the outcome.
    KeyFailure firstError = null;
    List<DeletedKey> deletedKeys = new ArrayList<>();
    long lastDelete = 0;
    boolean changed = false;
    for (DeleteTarget target : record.targets) {
      Long at = deletedAt.get(target.key());
      if (at != null) {
        deletedKeys.add(new DeletedKey(target.key(), record.roleOf(target.key()), record.etagOf(target.key()),
            answeredAt.get(target.key())));
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
          answeredAt.get(stateKey)));
      lastDelete = Math.max(lastDelete, stateDeletedAt);
    }
    DeleteResult.KeyError stateError = errors.get(stateKey);
    // The state file changed while (or right after) the record's files went: the record came back.
    // (read again as changed, or unchanged then refused its conditional delete).
    boolean cameBack = recheck != null && (recheck.check == StateCheck.CHANGED
        || recheck.check == StateCheck.UNCHANGED && stateError != null && stateError.isPreconditionFailed());
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
    if (cameBack && filesDeleted > 0) {
      outcome = Outcome.CAME_BACK_DURING_DELETE;
      message = "the state file changed while the record's files were deleted: the record came back during its"
          + " deletion, and " + filesDeleted + " of its files were deleted ("
          + String.join(", ", deletedKeys.stream().map(DeletedKey::key).toList())
          + "); run Verify bucket in the exporter"
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
   * as listed (null when the listing did not show it), and which keys the listing answers for.
   */
  private record CurrentFiles(Map<String, StoredObject> files, Map<String, String> otherOwners,
      StoredObject stateObject, java.util.function.Predicate<String> listed) {
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
