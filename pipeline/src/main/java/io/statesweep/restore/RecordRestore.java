package io.statesweep.restore;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.MarkerRemoval;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.ObjectVersion;
import io.statesweep.store.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The restore of one record of a run (README, "Undoing a run"): each key it deleted, once, its files first and its
 * state file last, so that a restore that stops in between leaves files without a state file (which no run deletes),
 * never a state file without its files.
 *
 * <p>A key whose recorded delete marker is still its latest version gets that marker removed
 * ({@link ObjectStore#removeMarkerIfLatest}: the version it hid is current again); a dry run only reads the key's
 * latest version ({@link ObjectStore#latestVersion}) and says what it would do. Any other key is left as it is, and
 * its {@link KeyRestoration#detail()} says why: written since, deleted again since, restored already, or deleted
 * without a recorded marker (statesweep never guesses which marker is its own).
 */
public final class RecordRestore {

  private final ObjectStore store;
  private final boolean dryRun;

  public RecordRestore(ObjectStore store, boolean dryRun) {
    this.store = requireNonNull(store, "store is null");
    this.dryRun = dryRun;
  }

  /**
   * The deletes to take back, of one record, in order: each key once, by its newest delete (the latest attempt; a
   * key deleted by two attempts was written again in between, and only the newest marker can be its latest version),
   * the files in key order, then the state file.
   */
  public static List<Deletion> toRestore(Collection<Deletion> deletions) {
    Map<String, Deletion> newest = new LinkedHashMap<>();
    for (Deletion deletion : deletions) {
      newest.merge(deletion.key(), deletion, (one, other) -> NEWEST_FIRST.compare(one, other) <= 0 ? one : other);
    }
    List<Deletion> ordered = new ArrayList<>(newest.values());
    ordered.sort(Comparator.comparing(Deletion::isStateFile).thenComparing(Deletion::key));
    return ordered;
  }

  private static final Comparator<Deletion> NEWEST_FIRST = Comparator
      .comparing(Deletion::attemptId, Comparator.reverseOrder())
      .thenComparing(Deletion::deletedAt, Comparator.nullsLast(Comparator.<Instant>reverseOrder()))
      .thenComparing(Deletion::deleteMarker, Comparator.nullsLast(Comparator.<String>naturalOrder()));

  /** Restores (or in a dry run, looks at) the record's deletes ({@link #toRestore}), in order. */
  public List<KeyRestoration> restore(Collection<Deletion> deletions) {
    List<KeyRestoration> done = new ArrayList<>();
    for (Deletion deletion : toRestore(deletions)) {
      done.add(restoreKey(deletion));
    }
    return done;
  }

  /** One key: its marker removed while it is the latest version (a dry run: whether it would be). */
  public KeyRestoration restoreKey(Deletion deletion) {
    if (deletion.deleteMarker() == null) {
      return left(deletion, "run " + deletion.runId() + " (attempt " + deletion.attemptId() + ") deleted it but"
          + " recorded no delete marker of that delete (the bucket kept no versions then, or its task stopped before"
          + " it recorded the store's answer): statesweep never guesses which marker is its own, so it stays deleted");
    }
    if (dryRun) {
      return looked(deletion);
    }
    MarkerRemoval removal = store.removeMarkerIfLatest(deletion.key(), deletion.deleteMarker(), deletion.etag());
    return switch (removal.status()) {
      case RESTORED -> new KeyRestoration(deletion, RestoreStatus.RESTORED, removal.currentVersion(), null, false);
      case WRITTEN_SINCE -> writtenSince(deletion, removal.currentVersion());
      case NOT_RESTORED -> new KeyRestoration(deletion, RestoreStatus.NOT_RESTORED, null, removal.detail(),
          removal.detail().startsWith(MarkerRemoval.FAILED));
    };
  }

  /** A dry run's look at the key's newest versions: what {@link ObjectStore#removeMarkerIfLatest} would decide. */
  private KeyRestoration looked(Deletion deletion) {
    List<ObjectVersion> newest;
    try {
      newest = store.newestVersions(deletion.key(), 2);
    } catch (UnsupportedOperationException e) {
      return left(deletion, "the store keeps no versions");
    } catch (StoreException e) {
      return new KeyRestoration(deletion, RestoreStatus.NOT_RESTORED, null, "cannot read its versions: "
          + e.getMessage(), true);
    }
    MarkerRemoval.Decision decision = MarkerRemoval.decide(newest, deletion.deleteMarker(), deletion.etag());
    if (decision.leftAlone() == null) {
      return new KeyRestoration(deletion, RestoreStatus.RESTORED, null, null, false);
    }
    MarkerRemoval left = decision.leftAlone();
    return left.status() == MarkerRemoval.Status.WRITTEN_SINCE ? writtenSince(deletion, left.currentVersion())
        : left(deletion, left.detail());
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
