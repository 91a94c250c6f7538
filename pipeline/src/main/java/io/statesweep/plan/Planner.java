package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.state.StateDocument;
import io.statesweep.store.StoredObject;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides exactly one {@link Action} per record from its state file, the listing of its keys, the
 * time and the grace period: README, "Actions (one per record)". Pure: no I/O, no clock.
 *
 * <p>Safe by default: a bad document, a key the state file may not list, or any file newer than the
 * state file keeps the whole record. A key that does not exist is never planned for deletion.
 */
public final class Planner implements Serializable {
  private static final long serialVersionUID = 1L;

  private final KeyClassifier classifier;
  private final Grace grace;

  /** A planner with one grace period for every record. */
  public Planner(KeyClassifier classifier, Duration grace) {
    this(classifier, Grace.of(wholeDays(grace)));
  }

  public Planner(KeyClassifier classifier, Grace grace) {
    this.classifier = requireNonNull(classifier, "classifier is null");
    this.grace = requireNonNull(grace, "grace is null");
  }

  private static int wholeDays(Duration grace) {
    requireNonNull(grace, "grace is null");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must not be negative: " + grace);
    }
    if (!grace.equals(Duration.ofDays(grace.toDays()))) {
      throw new IllegalArgumentException("grace must be whole days: " + grace);
    }
    return Math.toIntExact(grace.toDays());
  }

  /** The layout's rules the planner applies. */
  public KeyClassifier classifier() {
    return classifier;
  }

  /** The grace period of a record: its kind's, or the global one. */
  public Grace.Applied graceFor(Classification.StateFile stateFile) {
    return grace.forKind(stateFile.kind());
  }

  /** The plan of a record whose keys were listed at {@code now} (see {@link #plan(RecordInput, Instant, Instant)}). */
  public RecordPlan plan(RecordInput record, Instant now) {
    return plan(record, now, now);
  }

  /**
   * The plan of one record at {@code now}, from a listing that began at {@code listedAt}.
   *
   * <p>A live record's files that the listing lacks are {@link RecordPlan#missingFiles() named} (a
   * loss: {@code missing <key>}, pipeline/README.md, "What a run does") only when its state file was last modified
   * before the listing began. The exporter uploads a record's files before it writes the state file that lists them, so
   * those files were there to be listed; a state file written since (an inventory report is a day old, a LIST takes
   * hours) may list files the listing could not see yet, and they are checked by the next plan instead.
   */
  public RecordPlan plan(RecordInput record, Instant now, Instant listedAt) {
    requireNonNull(record, "record is null");
    requireNonNull(now, "now is null");
    requireNonNull(listedAt, "listedAt is null");
    String stateKey = record.stateFileKey();
    if (!record.parsed().isValid()) {
      return keepWhole(record, Action.BAD_STATE, record.parsed().error(), null);
    }
    StateDocument document = record.parsed().document();
    Set<String> files = distinct(document.files(), stateKey);
    Set<String> removedFiles = distinct(document.deleteFiles(), stateKey);

    Set<String> everyKey = new LinkedHashSet<>(files);
    everyKey.addAll(removedFiles);
    for (String key : everyKey) {
      String rule = refusal(record, key);
      if (rule != null) {
        return keepWhole(record, Action.KEPT_REFUSED, "refused to delete " + key + ": " + rule, null);
      }
    }

    Duration grace = graceFor(record.stateFile()).period();
    Instant dueAt = dueAt(document, record.stateObject(), grace);
    boolean leaving = document.delete()
        || document.expiresAt() != null && !now.isBefore(document.expiresAt());
    // With no grace, delete: true is due at once: a store clock a little ahead of ours must not delay it.
    boolean due = dueAt != null && !now.isBefore(dueAt) || document.delete() && grace.isZero();

    if (due) {
      StoredObject newer = newestNewerFile(record, everyKey);
      if (newer != null) {
        return keepWhole(record, Action.KEPT_NEWER_FILES, "the record is coming back: " + newer.key()
            + " (" + newer.lastModified() + ") is newer than its state file ("
            + record.stateObject().lastModified() + ")", dueAt);
      }
      List<PlannedDelete> deletes = new ArrayList<>();
      int missing = 0;
      for (String key : everyKey) {
        ListedKey listed = record.listed(key);
        if (!listed.exists()) {
          missing++;
          continue;
        }
        DeleteRole role = files.contains(key) ? DeleteRole.FILE : DeleteRole.REMOVED_FILE;
        deletes.add(new PlannedDelete(listed.object(), role));
      }
      deletes.add(new PlannedDelete(record.stateObject(), DeleteRole.STATE_FILE));
      return new RecordPlan(stateKey, Action.DELETE_RECORD, dueReason(document, now, grace), dueAt, deletes, missing,
          0);
    }

    // Live or not yet due: only removed files go, and only those that still exist (no delete marker on
    // a versioned bucket every run), are not also in files, and were not written again after the state file.
    List<PlannedDelete> deletes = new ArrayList<>();
    int missing = (int) everyKey.stream().filter(key -> !record.listed(key).exists()).count();
    int keptRemoved = 0;
    int newerRemoved = 0;
    for (String key : removedFiles) {
      ListedKey listed = record.listed(key);
      if (files.contains(key)) {
        keptRemoved++;
      } else if (!listed.exists()) {
        continue;
      } else if (listed.object().isNewerThan(record.stateObject())) {
        newerRemoved++;
      } else {
        deletes.add(new PlannedDelete(listed.object(), DeleteRole.REMOVED_FILE));
      }
    }
    int existingFiles = (int) files.stream().filter(key -> record.listed(key).exists()).count();
    int kept = existingFiles + newerRemoved;
    String standing = leaving
        ? "not yet due: grace of " + grace.toDays() + " days ends at " + dueAt
        : "live record";
    // A live record keeps every key of files, those also in delete_files too: each one absent is lost.
    List<String> missingFiles = leaving
        ? List.of()
        : files.stream().filter(key -> !record.listed(key).exists()).toList();
    boolean listedAfterStateFile = record.stateObject().lastModified().isBefore(listedAt);
    String notes = (keptRemoved > 0 ? "; " + keptRemoved + " removed files also in files are kept" : "")
        + (newerRemoved > 0 ? "; " + newerRemoved + " removed files newer than the state file are kept" : "")
        + (!missingFiles.isEmpty() && !listedAfterStateFile ? "; " + missingFiles.size() + " listed files are not"
            + " in the listing, which began before the state file was written: the next plan checks them" : "");
    if (!listedAfterStateFile) {
      missingFiles = List.of();
    }
    if (!deletes.isEmpty()) {
      return new RecordPlan(stateKey, Action.DELETE_REMOVED_FILES,
          standing + ": " + deletes.size() + " removed files still exist" + notes, dueAt, deletes, missing,
          missingFiles, kept);
    }
    return new RecordPlan(stateKey, leaving ? Action.NOT_YET_DUE : Action.KEEP, standing + notes,
        dueAt, List.of(), missing, missingFiles, kept);
  }

  /**
   * When the record is or becomes due: the earlier of (marked + grace) for {@code delete: true} and
   * (expires_at + grace); null for a live record. The mark is the document's marked-at timestamp when
   * it has one, else the state file's LastModified.
   */
  static Instant dueAt(StateDocument document, StoredObject stateObject, Duration grace) {
    Instant dueAt = null;
    if (document.delete()) {
      Instant markedAt = document.markedAt() != null ? document.markedAt() : stateObject.lastModified();
      dueAt = markedAt.plus(grace);
    }
    if (document.expiresAt() != null) {
      Instant expiryDue = document.expiresAt().plus(grace);
      dueAt = dueAt == null || expiryDue.isBefore(dueAt) ? expiryDue : dueAt;
    }
    return dueAt;
  }

  private static String dueReason(StateDocument document, Instant now, Duration grace) {
    String why = document.delete() ? "delete: true" : "expired at " + document.expiresAt();
    if (document.delete() && document.expiresAt() != null && !now.isBefore(document.expiresAt())) {
      why = "delete: true, expired at " + document.expiresAt();
    }
    return grace.isZero() ? why : why + "; grace of " + grace.toDays() + " days passed";
  }

  /** Why the record's state file may not list {@code key}, or null when it may (README, "Actions (one per record)"). */
  String refusal(RecordInput record, String key) {
    Classification.StateFile stateFile = record.stateFile();
    String rule = classifier.listingRefusal(stateFile, key);
    if (rule != null) {
      return rule;
    }
    String owner = record.listed(key).owner();
    if (owner != null && !owner.equals(stateFile.key())) {
      return "it belongs to another record, whose state file is " + owner;
    }
    return null;
  }


  private static StoredObject newestNewerFile(RecordInput record, Set<String> keys) {
    StoredObject newest = null;
    for (String key : keys) {
      StoredObject object = record.listed(key).object();
      if (object != null && (newest == null || object.isNewerThan(newest))) {
        newest = object;
      }
    }
    StoredObject owned = record.newestOwnedFile();
    if (owned != null && (newest == null || owned.isNewerThan(newest))) {
      newest = owned;
    }
    return newest != null && newest.isNewerThan(record.stateObject()) ? newest : null;
  }

  private static RecordPlan keepWhole(RecordInput record, Action action, String reason, Instant dueAt) {
    int existing = (int) record.listedKeys().values().stream().filter(ListedKey::exists).count();
    int missing = 0;
    if (record.parsed().isValid()) {
      Set<String> everyKey = distinct(record.parsed().document().files(), record.stateFileKey());
      everyKey.addAll(distinct(record.parsed().document().deleteFiles(), record.stateFileKey()));
      missing = (int) everyKey.stream().filter(key -> !record.listed(key).exists()).count();
    }
    return new RecordPlan(record.stateFileKey(), action, reason, dueAt, List.of(), missing, existing);
  }

  /** The keys in document order without duplicates; the record's own state file goes last anyway. */
  private static Set<String> distinct(List<String> keys, String stateFileKey) {
    Set<String> distinct = new LinkedHashSet<>(keys);
    distinct.remove(stateFileKey);
    return distinct;
  }
}
