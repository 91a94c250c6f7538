package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.layout.RecordShape;
import io.statesweep.plan.Action;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.StoredObject;
import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.StateCheck;
import io.statesweep.s3.StoreException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
 *   <li>re-reads each state file with If-Match on the planned ETag: changed or gone, nothing is done
 *       on the old plan;
 *   <li>re-lists the record's keys (its folder, less nested records; or its {@code <id>.json}): a file
 *       newer than the state file keeps the whole record ({@code the record is coming back}), and a
 *       planned key that now belongs to a nested record refuses it (its state file appeared since);
 *   <li>deletes the files of all verified records of the window in DeleteObjects batches, each key
 *       conditional on the ETag just seen (when conditional deletes are on);
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
  private final int batchSize;
  private final ConditionalDeletes conditional;
  private final DeleteThrottle throttle;
  private final ExecutionHook hook;
  private final Clock clock;
  private final ExecutorService verifiers;

  /** Verifies one record at a time. */
  public RecordExecutor(RecordStore store, KeyClassifier classifier, int batchSize, ConditionalDeletes conditional,
      DeleteThrottle throttle, ExecutionHook hook, Clock clock) {
    this(store, classifier, batchSize, conditional, throttle, hook, clock, 1);
  }

  /**
   * Verifies up to {@code verifyThreads} records of a window at once (each is a GET and a folder listing or
   * one-key listings: I/O that a single thread would wait on); deletes still go in order, state files last.
   */
  public RecordExecutor(RecordStore store, KeyClassifier classifier, int batchSize, ConditionalDeletes conditional,
      DeleteThrottle throttle, ExecutionHook hook, Clock clock, int verifyThreads) {
    if (verifyThreads < 1) {
      throw new IllegalArgumentException("verifyThreads must be at least 1: " + verifyThreads);
    }
    this.verifiers = verifyThreads == 1 ? null : Executors.newFixedThreadPool(verifyThreads, runnable -> {
      Thread thread = new Thread(runnable, "statesweep-verify");
      thread.setDaemon(true);
      return thread;
    });
    this.store = requireNonNull(store, "store is null");
    this.classifier = requireNonNull(classifier, "classifier is null");
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("batchSize must be from 1 to 1000: " + batchSize);
    }
    this.batchSize = batchSize;
    this.conditional = requireNonNull(conditional, "conditional is null");
    this.throttle = requireNonNull(throttle, "throttle is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** Executes a window of records; returns one outcome per record, in order. */
  public List<ExecutionOutcome> execute(List<PlannedRecord> window) {
    Instant started = clock.instant();
    // By identity: two plan rows of one state file (a duplicated row) still get one outcome each.
    Map<PlannedRecord, ExecutionOutcome> outcomes = new java.util.IdentityHashMap<>();
    List<Verified> verified = new ArrayList<>();
    List<Verification> verifications = verifyAll(window);
    for (int i = 0; i < window.size(); i++) {
      PlannedRecord record = window.get(i);
      Verification verification = verifications.get(i);
      if (verification.failure != null) {
        StoreException e = verification.failure;
        outcomes.put(record, finish(record, Outcome.FAILED, e.getMessage(), 0, false, 0,
            List.of(new KeyFailure(record.stateFileKey(), e.errorCode(), e.getMessage())), started));
      } else if (verification.outcome != null) {
        outcomes.put(record, finish(record, verification.outcome, verification.message, 0, false,
            0, List.of(), started));
      } else {
        verified.add(verification.verified);
      }
    }

    List<DeleteTarget> fileTargets = new ArrayList<>();
    verified.forEach(record -> fileTargets.addAll(record.targets));
    hook.beforeDelete(fileTargets.stream().map(DeleteTarget::key).toList());
    Map<String, DeleteResult.KeyError> errors = new HashMap<>();
    Set<String> deleted = new HashSet<>();
    deleteInBatches(fileTargets, deleted, errors);

    List<DeleteTarget> stateTargets = new ArrayList<>();
    Map<String, String> stateEtags = new HashMap<>();
    for (Verified record : verified) {
      stateEtags.put(record.plan.stateFileKey(), record.plan.stateFile().etag());
      boolean allFilesGone = record.targets.stream().allMatch(target -> deleted.contains(target.key()));
      if (record.plan.action() == Action.DELETE_RECORD && allFilesGone) {
        stateTargets.add(new DeleteTarget(record.plan.stateFileKey(), etag(record.plan.stateFile().etag())));
      }
    }
    // The state file goes last; read it once more right before, so that a record rewritten while its
    // files went keeps its state file even where conditional deletes are off.
    List<DeleteTarget> unchanged = new ArrayList<>();
    for (DeleteTarget target : stateTargets) {
      StateCheck check;
      try {
        check = store.checkUnchanged(target.key(), stateEtags.get(target.key()));
      } catch (RuntimeException e) {
        errors.put(target.key(), new DeleteResult.KeyError(errorCode(e), e.getMessage()));
        continue;
      }
      if (check == StateCheck.UNCHANGED) {
        unchanged.add(target);
      } else {
        errors.put(target.key(), new DeleteResult.KeyError("PreconditionFailed",
            "the state file changed while its record's files were deleted"));
      }
    }
    deleteInBatches(unchanged, deleted, errors);

    for (Verified record : verified) {
      outcomes.put(record.plan, outcomeOf(record, deleted, errors, started));
    }
    List<ExecutionOutcome> ordered = new ArrayList<>(window.size());
    for (PlannedRecord record : window) {
      ordered.add(outcomes.get(record));
    }
    return ordered;
  }

  private List<Verification> verifyAll(List<PlannedRecord> window) {
    List<Verification> verifications = new ArrayList<>(window.size());
    if (verifiers == null) {
      window.forEach(record -> verifications.add(verifyOrFail(record)));
      return verifications;
    }
    List<Future<Verification>> futures = new ArrayList<>(window.size());
    for (PlannedRecord record : window) {
      futures.add(verifiers.submit(() -> verifyOrFail(record)));
    }
    for (Future<Verification> future : futures) {
      try {
        verifications.add(future.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while verifying records", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("verifying a record failed", e.getCause());
      }
    }
    return verifications;
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
    StoredObject stateFile = record.stateFile();
    StateCheck check = store.checkUnchanged(stateFile.key(), stateFile.etag());
    if (check == StateCheck.GONE) {
      return record.action() == Action.DELETE_RECORD
          ? Verification.done(Outcome.ALREADY_DELETED,
              "the state file is gone (an earlier attempt, or someone else, deleted it): nothing is done")
          : Verification.done(Outcome.STATE_CHANGED, "the state file is gone since it was planned");
    }
    if (check == StateCheck.CHANGED) {
      return Verification.done(Outcome.STATE_CHANGED,
          "the state file changed since it was planned: nothing is done on the old plan");
    }
    if (!(classifier.classify(stateFile.key()) instanceof Classification.StateFile place)) {
      return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + stateFile.key()
          + ": it is not a state file at a place of layout " + classifier.layout().name()
          + " (was the plan made with another layout?)");
    }
    // The plan is data that anyone with write access to its table could change: every rule about what
    // a state file may list is checked again, and every planned key must be one the state file lists.
    for (PlannedDelete delete : record.files()) {
      String rule = classifier.listingRefusal(place, delete.key());
      if (rule == null && !record.listedKeys().contains(delete.key())) {
        rule = "its state file does not list it";
      }
      if (rule != null) {
        return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + delete.key() + ": " + rule);
      }
    }
    CurrentFiles listing = currentFiles(record);
    for (PlannedDelete delete : record.files()) {
      String owner = listing.otherOwners.get(delete.key());
      if (owner != null) {
        return Verification.done(Outcome.KEPT_REFUSED, "refused to delete " + delete.key()
            + ": it belongs to another record, whose state file is " + owner);
      }
    }
    Map<String, StoredObject> current = listing.files;
    List<DeleteTarget> targets = new ArrayList<>();
    int alreadyGone = 0;
    int newerKept = 0;
    if (record.action() == Action.DELETE_RECORD) {
      StoredObject newest = null;
      for (StoredObject object : current.values()) {
        if (object.isNewerThan(stateFile) && (newest == null || object.isNewerThan(newest))) {
          newest = object;
        }
      }
      if (newest != null) {
        return Verification.done(Outcome.KEPT_NEWER_FILES, "the record is coming back: " + newest.key() + " ("
            + newest.lastModified() + ") is newer than its state file (" + stateFile.lastModified() + ")");
      }
      // A listed key that was missing when planned and exists now: deleting the state file would orphan it.
      Set<String> planned = new HashSet<>();
      record.files().forEach(delete -> planned.add(delete.key()));
      for (String key : record.listedKeys()) {
        // A state file that lists its own key: ignored, as the planner does (it goes last anyway).
        boolean ownKey = key.equals(record.stateFileKey());
        if (!planned.contains(key) && !ownKey && (current.containsKey(key) || listing.existsOutsideCurrent(key, store))) {
          return Verification.done(Outcome.KEPT_NEWER_FILES, "the record is coming back: " + key
              + ", which its state file lists, exists now but did not when the plan was made");
        }
      }
      // Stricter than "newer": a planned file rewritten in the state file's second is not the planned version.
      for (PlannedDelete delete : record.files()) {
        StoredObject now = current.get(delete.key());
        if (now != null && !now.etag().equals(delete.object().etag())) {
          return Verification.done(Outcome.KEPT_NEWER_FILES, "the record is coming back: " + delete.key()
              + " was written again since it was planned (ETag " + now.etag() + ", planned " + delete.object().etag()
              + ")");
        }
      }
    }
    Set<String> targeted = new HashSet<>();
    for (PlannedDelete delete : record.files()) {
      if (!targeted.add(delete.key())) {
        continue; // a plan row that names a key twice: it is sent, and counted, once
      }
      StoredObject now = current.get(delete.key());
      if (now == null) {
        alreadyGone++;
      } else if (now.isNewerThan(stateFile) || !now.etag().equals(delete.object().etag())) {
        newerKept++;
      } else {
        targets.add(new DeleteTarget(delete.key(), etag(now.etag())));
      }
    }
    return Verification.ready(new Verified(record, targets, alreadyGone, newerKept));
  }

  /**
   * The record's files as they are now: for a folder record every key in its folder that no nested
   * record owns (plus any planned key outside it), for a single-file record its {@code <id>.json}
   * (planned or not: one uploaded since the plan means the record is coming back). Listed keys of
   * nested records are kept apart with their owner, and never fetched again as this record's.
   */
  private CurrentFiles currentFiles(PlannedRecord record) {
    Map<String, StoredObject> current = new LinkedHashMap<>();
    Map<String, String> otherOwners = new HashMap<>();
    String listedFolder = null;
    Set<String> listedKeys = new HashSet<>();
    Set<String> toLookUp = new LinkedHashSet<>();
    record.files().forEach(delete -> toLookUp.add(delete.key()));
    Classification classification = classifier.classify(record.stateFileKey());
    if (classification instanceof Classification.StateFile stateFile && stateFile.shape() == RecordShape.SINGLE_FILE) {
      toLookUp.add(stateFile.scope());
    }
    if (classification instanceof Classification.StateFile stateFile && stateFile.shape() == RecordShape.FOLDER) {
      List<StoredObject> listed = new ArrayList<>();
      Set<String> boundaries = new HashSet<>();
      listedFolder = stateFile.scope();
      Iterator<StoredObject> objects = store.list(stateFile.scope());
      while (objects.hasNext()) {
        StoredObject object = objects.next();
        listed.add(object);
        listedKeys.add(object.key());
        if (Keys.isStateFileName(object.key()) && classifier.isRecordBoundary(object.key())) {
          boundaries.add(object.key());
        }
      }
      for (StoredObject object : listed) {
        if (boundaries.contains(object.key())) {
          continue;
        }
        String owner = owner(object.key(), boundaries);
        if (record.stateFileKey().equals(owner)) {
          current.put(object.key(), object);
        } else if (owner != null) {
          otherOwners.put(object.key(), owner);
        }
      }
    }
    for (String key : toLookUp) {
      if (!current.containsKey(key) && !otherOwners.containsKey(key)) {
        StoredObject object = store.listedObject(key);
        if (object != null) {
          current.put(key, object);
        }
      }
    }
    return new CurrentFiles(current, otherOwners, listedFolder, listedKeys);
  }

  private String owner(String key, Set<String> boundaries) {
    OwnerCandidate closest = null;
    for (OwnerCandidate candidate : classifier.ownerCandidates(key)) {
      if (boundaries.contains(candidate.stateFileKey()) && (closest == null || candidate.depth() > closest.depth())) {
        closest = candidate;
      }
    }
    return closest == null ? null : closest.stateFileKey();
  }

  private void deleteInBatches(List<DeleteTarget> targets, Set<String> deleted,
      Map<String, DeleteResult.KeyError> errors) {
    // Under a small ceiling, smaller requests: no request may carry more keys than the throttle allows.
    int keysPerRequest = Math.min(batchSize, throttle.maxBatch());
    for (int from = 0; from < targets.size(); from += keysPerRequest) {
      List<DeleteTarget> batch = targets.subList(from, Math.min(targets.size(), from + keysPerRequest));
      // Reserved right before sending, given back once answered: the keys count in the second they go.
      try (DeleteThrottle.Permit permit = throttle.reserve(batch.size())) {
        DeleteResult result = store.delete(batch);
        deleted.addAll(result.deleted());
        errors.putAll(result.errors());
      } catch (StoreException e) {
        for (DeleteTarget target : batch) {
          errors.put(target.key(), new DeleteResult.KeyError(e.errorCode(), e.getMessage()));
        }
      }
      hook.afterBatch(BATCHES.incrementAndGet());
    }
  }

  private ExecutionOutcome outcomeOf(Verified record, Set<String> deleted, Map<String, DeleteResult.KeyError> errors,
      Instant started) {
    List<KeyFailure> failures = new ArrayList<>();
    // A changed key is expected; any other failure needs a person, so it decides the outcome.
    KeyFailure firstError = null;
    long filesDeleted = 0;
    boolean changed = false;
    for (DeleteTarget target : record.targets) {
      if (deleted.contains(target.key())) {
        filesDeleted++;
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
    String stateKey = record.plan.stateFileKey();
    boolean stateDeleted = record.plan.action() == Action.DELETE_RECORD && deleted.contains(stateKey);
    DeleteResult.KeyError stateError = errors.get(stateKey);
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
    if (firstError != null) {
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
    return finish(record.plan, outcome, message, filesDeleted, stateDeleted && outcome == Outcome.DELETED,
        record.alreadyGone, failures, started);
  }

  private ExecutionOutcome finish(PlannedRecord record, Outcome outcome, String message, long filesDeleted,
      boolean stateDeleted, int alreadyGone, List<KeyFailure> failures, Instant started) {
    return new ExecutionOutcome(record.stateFileKey(), record.action(), outcome, message, filesDeleted, stateDeleted,
        alreadyGone, failures, started, clock.instant());
  }

  private String etag(String etag) {
    return conditional == ConditionalDeletes.ON ? etag : null;
  }

  /** {@code listedFolder} (or null) was listed whole just now: its keys are {@code listedKeys}, no lookup needed. */
  private record CurrentFiles(Map<String, StoredObject> files, Map<String, String> otherOwners, String listedFolder,
      Set<String> listedKeys) {
    boolean existsOutsideCurrent(String key, RecordStore store) {
      if (listedFolder != null && key.startsWith(listedFolder)) {
        return listedKeys.contains(key);
      }
      return store.listedObject(key) != null;
    }
  }

  private record Verified(PlannedRecord plan, List<DeleteTarget> targets, int alreadyGone, int newerKept) {}

  private record Verification(Verified verified, Outcome outcome, String message, StoreException failure) {
    static Verification ready(Verified verified) {
      return new Verification(verified, null, null, null);
    }

    static Verification done(Outcome outcome, String message) {
      return new Verification(null, outcome, message, null);
    }
  }
}
