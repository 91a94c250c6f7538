package io.statesweep.restore;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Keys;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.MarkerRemoval;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.ObjectVersion;
import io.statesweep.store.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The restore of one record of a run (pipeline/README.md, "Undoing a run"): each key it deleted, once, its files first
 * and its state file last, so that a restore that stops in between leaves files without a state file (which no run
 * deletes), never a state file without its files: a record one of whose files is not restored (a removal that failed,
 * no recorded marker, deleted again since) keeps its state file deleted, and says why and what to run.
 *
 * <p>A key whose recorded delete marker is still its latest version gets that marker removed
 * ({@link ObjectStore#removeMarkerIfLatest}: the version it hid is current again); a dry run only reads the key's
 * latest version ({@link ObjectStore#latestVersion}) and says what it would do. A key whose delete was sent and never
 * answered on the record (no marker recorded) is restored only on the proof of its marker
 * ({@link MarkerRemoval#unproven}: written in the window its delete was sent in, directly above the version deleted).
 * Any other key is left as it is, and its {@link KeyRestoration#detail()} says why: written since, deleted again
 * since, restored already, or deleted without a marker recorded or proven (statesweep never guesses which marker is
 * its own).
 *
 * <p>A record's files go in batches of up to {@value #BATCH} keys in UTF-8 order (a record of millions of keys is a
 * backfill's): one walk of ListObjectVersions over the batch's key range reads the newest versions of all of them, one
 * DeleteObjects removes the markers that may go, and a second walk reads what is current after it: about five
 * requests per thousand keys where one at a time takes three per key. The walk reads what lies between the batch's
 * keys too; when that is more than {@value #WALK_BUDGET_PER_KEY} entries per key of the batch (other records' files,
 * many old versions), it stops and the keys it did not reach go one at a time, so a batch never costs more than
 * restoring its keys one by one. The decision per key is the same either way ({@link MarkerRemoval#decide}).
 */
public final class RecordRestore {

  private final ObjectStore store;
  private final boolean dryRun;

  private final int batch;
  private final int page;
  private final int walkBudgetPerKey;

  public RecordRestore(ObjectStore store, boolean dryRun) {
    this(store, dryRun, BATCH, PAGE, WALK_BUDGET_PER_KEY);
  }

  /** With smaller batches, pages and walks than a restore's, to test them on a few keys. */
  RecordRestore(ObjectStore store, boolean dryRun, int batch, int page, int walkBudgetPerKey) {
    this.store = requireNonNull(store, "store is null");
    this.dryRun = dryRun;
    if (batch < MIN_BATCH || batch > BATCH || page < 1 || page > PAGE || walkBudgetPerKey < 1) {
      throw new IllegalArgumentException("batch must be " + MIN_BATCH + " to " + BATCH + ", page 1 to " + PAGE
          + " and the walk's budget positive: " + batch + ", " + page + ", " + walkBudgetPerKey);
    }
    this.batch = batch;
    this.page = page;
    this.walkBudgetPerKey = walkBudgetPerKey;
  }

  /**
   * The deletes to take back, of one record, in order: each key once, by its newest delete (the latest attempt; a
   * key deleted by two attempts was written again in between, and only the newest marker can be its latest version),
   * the files in key order (UTF-8, as S3 lists them), then the state file.
   */
  public static List<Deletion> toRestore(Collection<Deletion> deletions) {
    Map<String, Deletion> newest = new LinkedHashMap<>();
    for (Deletion deletion : deletions) {
      newest.merge(deletion.key(), deletion, (one, other) -> NEWEST_FIRST.compare(one, other) <= 0 ? one : other);
    }
    List<Deletion> ordered = new ArrayList<>(newest.values());
    ordered.sort(Comparator.comparing(Deletion::isStateFile).thenComparing(Deletion::key, Keys.UTF8_ORDER));
    return ordered;
  }

  private static final Comparator<Deletion> NEWEST_FIRST = Comparator
      .comparing(Deletion::attemptId, Comparator.reverseOrder())
      .thenComparing(Deletion::deletedAt, Comparator.nullsLast(Comparator.<Instant>reverseOrder()))
      .thenComparing(Deletion::deleteMarker, Comparator.nullsLast(Comparator.<String>naturalOrder()));

  /**
   * Restores (or in a dry run, looks at) the record's deletes ({@link #toRestore}), in order, its files in batches;
   * one result per delete, in that order.
   */
  public List<KeyRestoration> restore(Collection<Deletion> deletions) {
    List<Deletion> ordered = toRestore(deletions);
    List<KeyRestoration> done = new ArrayList<>(ordered.size());
    String after = null;
    int from = 0;
    while (from < ordered.size()) {
      int to = from;
      while (to < ordered.size() && to - from < batch && !ordered.get(to).isStateFile()) {
        to++;
      }
      if (to - from >= MIN_BATCH) {
        done.addAll(restoreFiles(ordered.subList(from, to), after));
        from = to;
      } else if (ordered.get(from).isStateFile()) {
        Deletion stateFile = ordered.get(from++);
        KeyRestoration missingFile = firstFileNotThere(done);
        done.add(missingFile == null ? restoreKey(stateFile) : keptDeleted(stateFile, missingFile, done));
      } else {
        done.add(restoreKey(ordered.get(from++)));
      }
      after = ordered.get(from - 1).key();
    }
    return done;
  }

  /** The first of the record's files whose file is not there after its restore (a dry run: would not be), or null. */
  private static KeyRestoration firstFileNotThere(List<KeyRestoration> files) {
    for (KeyRestoration file : files) {
      if (file.status() == RestoreStatus.NOT_RESTORED) {
        return file;
      }
    }
    return null;
  }

  /**
   * The state file of a record one of whose files is not there: left deleted (pipeline/README.md, "Undoing a run":
   * never a state file without its files), so that no plan sees the record with a file missing, with why and what to
   * do.
   */
  private KeyRestoration keptDeleted(Deletion stateFile, KeyRestoration missingFile, List<KeyRestoration> files) {
    long missing = files.stream().filter(file -> file.status() == RestoreStatus.NOT_RESTORED).count();
    return left(stateFile, (dryRun ? "would stay" : "stays") + " deleted, since " + (missing == 1 ? "a file" : missing
        + " files") + " of its record " + (dryRun ? "would not be" : missing == 1 ? "is not" : "are not") + " restored ("
        + missingFile.deletion().key() + ": " + missingFile.detail() + (missing > 1 ? "; and " + (missing - 1)
        + " more" : "") + "), and a state file without its files would have the next plan delete the record without"
        + " them, or report them missing; once its files are back (or known lost), restore this record again:"
        + " restore --run-id " + stateFile.runId() + " --record " + stateFile.key() + " --execute");
  }

  /** One key: its marker removed while it is the latest version (a dry run: whether it would be). */
  public KeyRestoration restoreKey(Deletion deletion) {
    if (deletion.deleteMarker() == null) {
      if (deletion.sentAfter() == null || deletion.sentBefore() == null || deletion.etag() == null) {
        return noMarker(deletion);
      }
      return restoreUnanswered(deletion);
    }
    if (dryRun) {
      return looked(deletion);
    }
    return of(deletion, store.removeMarkerIfLatest(deletion.key(), deletion.deleteMarker(), deletion.etag()));
  }

  /**
   * A key whose delete was sent and never answered on the record: its marker removed when the key's newest versions
   * prove it the delete's own ({@link MarkerRemoval#unproven}), as a recorded marker would be (the restore's row names
   * it); otherwise left, with why.
   */
  private KeyRestoration restoreUnanswered(Deletion deletion) {
    return withNewest(deletion, newest -> {
      MarkerRemoval unproven = MarkerRemoval.unproven(newest, deletion.etag(), deletion.sentAfter(),
          deletion.sentBefore());
      if (unproven != null) {
        return leftAs(deletion, unproven);
      }
      // Proven, the marker is the latest version above the version deleted: what a dry run's look would decide.
      Deletion proven = deletion.withMarker(newest.get(0).versionId());
      return dryRun ? new KeyRestoration(proven, RestoreStatus.RESTORED, null, null, false) : restoreKey(proven);
    });
  }


  /** The files of a batch are at most this many: one DeleteObjects. */
  static final int BATCH = 1000;
  /** Entries of a page of ListObjectVersions. */
  static final int PAGE = 1000;
  /** Fewer files than this go one at a time: a walk would save nothing. */
  static final int MIN_BATCH = 4;
  /** How many entries a walk reads per key of its batch at most before it stops ({@link #walk}). */
  static final int WALK_BUDGET_PER_KEY = 100;

  /**
   * A batch of a record's files, distinct keys in UTF-8 order, each after {@code after} (null for the first): their
   * markers removed together where each may go.
   */
  private List<KeyRestoration> restoreFiles(List<Deletion> files, String after) {
    List<Deletion> marked = new ArrayList<>(files.size());
    for (Deletion file : files) {
      if (file.deleteMarker() != null) {
        marked.add(file);
      }
    }
    Map<String, KeyRestoration> done = new HashMap<>();
    if (marked.size() >= MIN_BATCH) {
      try {
        decideAndRemove(marked, after, done);
      } catch (UnsupportedOperationException e) {
        marked.forEach(file -> done.put(file.key(), left(file, "the store keeps no versions")));
      } catch (StoreException e) {
        // The walk failed: each key not done yet goes on its own, whose answer says what failed.
      }
    }
    List<KeyRestoration> ordered = new ArrayList<>(files.size());
    for (Deletion file : files) {
      KeyRestoration result = done.get(file.key());
      ordered.add(result != null ? result : restoreKey(file)); // no marker, or not reached by the walk
    }
    return ordered;
  }

  /** What the walk decides for each key it reached, the markers removed at once, and what is current after it. */
  private void decideAndRemove(List<Deletion> marked, String after, Map<String, KeyRestoration> done) {
    Map<String, List<ObjectVersion>> newest = walk(marked, after, 2);
    Map<String, String> toRemove = new LinkedHashMap<>();
    for (Deletion file : marked) {
      List<ObjectVersion> versions = newest.get(file.key());
      if (versions == null) {
        continue; // beyond where the walk stopped
      }
      MarkerRemoval.Decision decision = MarkerRemoval.decide(versions, file.deleteMarker(), file.etag());
      if (decision.leftAlone() != null) {
        done.put(file.key(), of(file, decision.leftAlone()));
      } else if (dryRun) {
        done.put(file.key(), new KeyRestoration(file, RestoreStatus.RESTORED, null, null, false));
      } else {
        toRemove.put(file.key(), file.deleteMarker());
      }
    }
    if (toRemove.isEmpty()) {
      return;
    }
    List<Deletion> removing = new ArrayList<>(toRemove.size());
    marked.stream().filter(file -> toRemove.containsKey(file.key())).forEach(removing::add);
    DeleteResult removed;
    try {
      removed = store.deleteVersions(toRemove);
    } catch (StoreException e) {
      removing.forEach(file -> done.put(file.key(), of(file, MarkerRemoval.notRestored(MarkerRemoval.FAILED
          + file.deleteMarker() + ": " + e.getMessage()))));
      return;
    }
    Map<String, List<ObjectVersion>> current;
    try {
      current = walk(removing, after, 1);
    } catch (StoreException e) {
      current = Map.of(); // each key's own look below
    }
    for (Deletion file : removing) {
      DeleteResult.KeyError error = removed.errors().get(file.key());
      if (error != null) {
        done.put(file.key(), of(file, MarkerRemoval.notRestored(MarkerRemoval.FAILED + file.deleteMarker() + ": "
            + error)));
        continue;
      }
      List<ObjectVersion> latest = current.get(file.key());
      MarkerRemoval removal;
      if (latest != null) {
        removal = MarkerRemoval.afterRemoval(file.deleteMarker(), latest.isEmpty() ? null : latest.get(0));
      } else {
        try {
          removal = MarkerRemoval.afterRemoval(file.deleteMarker(), store.latestVersion(file.key()));
        } catch (StoreException e) {
          removal = MarkerRemoval.notRestored(MarkerRemoval.FAILED + file.deleteMarker() + ": its removal was"
              + " answered, but what is current after it cannot be read: " + e.getMessage());
        }
      }
      done.put(file.key(), of(file, removal));
    }
  }

  /**
   * The newest {@code most} versions of each of {@code files}' keys (distinct, in UTF-8 order), read by pages of
   * ListObjectVersions under the longest prefix their first and last key share, after {@code after}: every key the
   * walk went past is in the map (with no versions when it has none); the walk stops past the last key, at the end of
   * the listing, or once it has read {@value #WALK_BUDGET_PER_KEY} entries per key, and the keys it did not reach are
   * not in the map.
   */
  private Map<String, List<ObjectVersion>> walk(List<Deletion> files, String after, int most) {
    String first = files.get(0).key();
    String last = files.get(files.size() - 1).key();
    Map<String, List<ObjectVersion>> newest = new HashMap<>();
    for (Deletion file : files) {
      newest.put(file.key(), new ArrayList<>(most));
    }
    long budget = (long) files.size() * walkBudgetPerKey;
    long read = 0;
    String keyMarker = after;
    String versionIdMarker = null;
    while (true) {
      ObjectVersion.Page listed = store.listVersions(commonPrefix(first, last), keyMarker, versionIdMarker, page);
      String reached = null;
      for (ObjectVersion version : listed.versions()) {
        if (Keys.UTF8_ORDER.compare(version.key(), last) > 0) {
          return newest; // past the last key: every key is reached
        }
        List<ObjectVersion> versions = newest.get(version.key());
        if (versions != null && versions.size() < most) {
          versions.add(version);
        }
        reached = version.key();
        read++;
      }
      if (!listed.truncated()) {
        return newest;
      }
      if (read > budget) {
        // Keys from the last one listed on (its older versions may follow) were not reached.
        String stop = reached != null ? reached : listed.nextKeyMarker();
        newest.keySet().removeIf(key -> Keys.UTF8_ORDER.compare(key, stop) >= 0);
        return newest;
      }
      keyMarker = listed.nextKeyMarker();
      versionIdMarker = listed.nextVersionIdMarker();
    }
  }

  private static String commonPrefix(String a, String b) {
    int n = 0;
    int most = Math.min(a.length(), b.length());
    while (n < most && a.charAt(n) == b.charAt(n)) {
      n++;
    }
    if (n > 0 && n < a.length() && Character.isLowSurrogate(a.charAt(n))) {
      n--; // never half of a pair
    }
    return a.substring(0, n);
  }

  /** A key's result from what was done with its marker. */
  private KeyRestoration of(Deletion deletion, MarkerRemoval removal) {
    return switch (removal.status()) {
      case RESTORED -> new KeyRestoration(deletion, RestoreStatus.RESTORED, removal.currentVersion(), null, false);
      case WRITTEN_SINCE -> writtenSince(deletion, removal.currentVersion());
      case NOT_RESTORED -> new KeyRestoration(deletion, RestoreStatus.NOT_RESTORED, null, removal.detail(),
          removal.detail().startsWith(MarkerRemoval.FAILED));
    };
  }

  private static KeyRestoration noMarker(Deletion deletion) {
    return left(deletion, "run " + deletion.runId() + " (attempt " + deletion.attemptId() + ") deleted it but"
        + " recorded no delete marker of that delete (the bucket kept no versions then, or its task stopped before"
        + " it recorded the store's answer): statesweep never guesses which marker is its own, so it stays deleted");
  }

  /** A dry run's look at the key's newest versions: what {@link ObjectStore#removeMarkerIfLatest} would decide. */
  private KeyRestoration looked(Deletion deletion) {
    return withNewest(deletion, newest -> {
      MarkerRemoval.Decision decision = MarkerRemoval.decide(newest, deletion.deleteMarker(), deletion.etag());
      return decision.leftAlone() == null ? new KeyRestoration(deletion, RestoreStatus.RESTORED, null, null, false)
          : leftAs(deletion, decision.leftAlone());
    });
  }

  /**
   * What {@code then} makes of the key's two newest versions; a store without versions, or a read that fails, leaves
   * the key as it is and says so.
   */
  private KeyRestoration withNewest(Deletion deletion,
      java.util.function.Function<List<ObjectVersion>, KeyRestoration> then) {
    List<ObjectVersion> newest;
    try {
      newest = store.newestVersions(deletion.key(), 2);
    } catch (UnsupportedOperationException e) {
      return left(deletion, "the store keeps no versions");
    } catch (StoreException e) {
      return new KeyRestoration(deletion, RestoreStatus.NOT_RESTORED, null, "cannot read its versions: "
          + e.getMessage(), true);
    }
    return then.apply(newest);
  }

  /** A key whose marker is left alone for {@code removal}'s reason: written since, or left with why. */
  private static KeyRestoration leftAs(Deletion deletion, MarkerRemoval removal) {
    return removal.status() == MarkerRemoval.Status.WRITTEN_SINCE ? writtenSince(deletion, removal.currentVersion())
        : left(deletion, removal.detail());
  }


  /** A key whose current version is {@code current}: restored already by this run's restore, or written since. */
  private static KeyRestoration writtenSince(Deletion deletion, String current) {
    if (deletion.restoredBy() != null && current.equals(deletion.restoredVersion())) {
      return new KeyRestoration(deletion, RestoreStatus.ALREADY_RESTORED, null, deletion.restoredBy()
          + " restored it already (version " + current + " is current)", false);
    }
    return new KeyRestoration(deletion, RestoreStatus.WRITTEN_SINCE, null, MarkerRemoval.writtenSince(current)
        .detail(), false);
  }

  private static KeyRestoration left(Deletion deletion, String why) {
    return new KeyRestoration(deletion, RestoreStatus.NOT_RESTORED, null, why, false);
  }
}
