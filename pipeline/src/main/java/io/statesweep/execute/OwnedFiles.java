package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.store.StoredObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The files a folder record owns now, found without holding its nested records' keys: one listing of
 * the record's folder, read a page at a time, in which a key waits only until the listing shows
 * whether the nested state files that could own it exist. Memory is the record's own files, its keys
 * of interest, and at most {@code pendingLimit} waiting keys, however many keys nested records hold.
 *
 * <p>A key's owner is the closest of its candidate state files ({@link KeyClassifier#ownerCandidates})
 * that exists and stands at a record boundary, as the planner decides it. Listings come in key order
 * (UTF-8 bytes on S3, UTF-16 units in tests: the comparisons made here agree in both, since a candidate
 * state file differs from the keys beside it only in ASCII {@code state.json}), so a candidate is known
 * to be absent once the listing has passed it, or left the folder (or {@code <id>.} prefix) it sits in.
 * Keys that wait on a nested folder's {@code state.json} (those that sort before it: {@code files/},
 * {@code attachments/}, {@code messages/}, ...) are bounded: past {@code pendingLimit}, the state file is
 * looked up at once, and a nested record found that way is skipped, the listing going on after its folder.
 *
 * <p>Only keys of interest (the keys the record lists or plans) get an owner or an existence answer;
 * other keys of nested records are dropped as they are listed.
 */
final class OwnedFiles {
  /** Keys that may wait for their owner to show; past it, the owner is looked up. */
  static final int PENDING_LIMIT = 1000;

  /** After every key of a folder in UTF-8 order: U+10FFFF, the largest code point. */
  private static final String AFTER_FOLDER = "\uDBFF\uDFFF";
  private static final String STATE_FILE_NAME = "state.json";

  private static final Comparator<OwnerCandidate> CLOSEST_FIRST =
      Comparator.comparingInt(OwnerCandidate::depth).reversed();

  private final RecordStore store;
  private final KeyClassifier classifier;
  private final String stateFileKey;
  private final String folder;
  private final NavigableSet<String> keysOfInterest;
  private final int pendingLimit;

  private final Map<String, StoredObject> files = new LinkedHashMap<>();
  private final Map<String, String> otherOwners = new HashMap<>();
  private final Set<String> existing = new HashSet<>();
  private boolean stateFileListed;
  private StoredObject stateObject;

  /** Candidates whose existence is known while the listing is inside their region. */
  private final Map<String, Boolean> decided = new HashMap<>();
  /** Keys waiting on a candidate, by candidate. */
  private final Map<String, List<StoredObject>> pending = new LinkedHashMap<>();
  private int pendingCount;
  private int peakPending;
  private Iterator<StoredObject> listing;

  private OwnedFiles(RecordStore store, KeyClassifier classifier, String stateFileKey, String folder,
      Collection<String> keysOfInterest, int pendingLimit) {
    this.store = requireNonNull(store, "store is null");
    this.classifier = requireNonNull(classifier, "classifier is null");
    this.stateFileKey = requireNonNull(stateFileKey, "stateFileKey is null");
    this.folder = requireNonNull(folder, "folder is null");
    this.keysOfInterest = new TreeSet<>(keysOfInterest);
    if (pendingLimit < 1) {
      throw new IllegalArgumentException("pendingLimit must be at least 1: " + pendingLimit);
    }
    this.pendingLimit = pendingLimit;
  }

  /** Lists the folder record of {@code stateFileKey}, whose folder is {@code folder}. */
  static OwnedFiles list(RecordStore store, KeyClassifier classifier, String stateFileKey, String folder,
      Collection<String> keysOfInterest, int pendingLimit) {
    OwnedFiles owned = new OwnedFiles(store, classifier, stateFileKey, folder, keysOfInterest, pendingLimit);
    owned.walk();
    return owned;
  }

  /** Objects the record owns, as listed; empty when its state file was not listed (it went meanwhile). */
  Map<String, StoredObject> files() {
    return files;
  }

  /** Keys of interest that exist and belong to a nested record: key to that record's state file. */
  Map<String, String> otherOwners() {
    return otherOwners;
  }

  /** The record's own state file as listed, or null when it was not (it went meanwhile). */
  StoredObject stateObject() {
    return stateObject;
  }

  /** Whether the record's own state file was listed. */
  boolean stateFileListed() {
    return stateFileListed;
  }

  /** Whether a key of interest inside the folder exists (listed, or looked up inside a skipped nested record). */
  boolean exists(String key) {
    return existing.contains(key);
  }

  boolean isKeyOfInterest(String key) {
    return keysOfInterest.contains(key);
  }

  /** The most keys that waited for their owner at once. */
  int peakPending() {
    return peakPending;
  }

  private void walk() {
    listing = store.list(folder, null);
    while (listing.hasNext()) {
      StoredObject object = listing.next();
      String key = object.key();
      // Passed candidates first, while the owners of the folders just left are still known.
      resolvePassed(key);
      forgetLeft(key);
      if (keysOfInterest.contains(key)) {
        existing.add(key);
      }
      if (Keys.isStateFileName(key) && classifier.isRecordBoundary(key)) {
        if (key.equals(stateFileKey)) {
          stateFileListed = true;
          stateObject = object;
        } else {
          decided.put(key, true);
          resolve(key, true, key);
        }
        continue;
      }
      place(object, key);
      if (pendingCount > pendingLimit) {
        relieve(key);
      }
    }
    while (!pending.isEmpty()) {
      resolve(pending.keySet().iterator().next(), false, null);
    }
    if (!stateFileListed) {
      files.clear();
    }
  }

  /** Gives {@code object} its owner, or makes it wait on the closest candidate not yet known. */
  private void place(StoredObject object, String position) {
    for (OwnerCandidate candidate : nestedCandidates(object.key())) {
      String candidateKey = candidate.stateFileKey();
      Boolean exists = decided.get(candidateKey);
      if (exists == null && !passed(candidateKey, position)) {
        pending.computeIfAbsent(candidateKey, k -> new ArrayList<>()).add(object);
        pendingCount++;
        peakPending = Math.max(peakPending, pendingCount);
        return;
      }
      if (Boolean.TRUE.equals(exists)) {
        assign(object.key(), object, candidateKey);
        return;
      }
    }
    assign(object.key(), object, stateFileKey);
  }

  private void assign(String key, StoredObject object, String owner) {
    if (owner.equals(stateFileKey)) {
      files.put(key, object);
    } else if (keysOfInterest.contains(key)) {
      otherOwners.put(key, owner);
    }
  }

  /** The candidates inside the folder other than the record's own state file, closest first. */
  private List<OwnerCandidate> nestedCandidates(String key) {
    List<OwnerCandidate> nested = new ArrayList<>();
    for (OwnerCandidate candidate : classifier.ownerCandidates(key)) {
      String candidateKey = candidate.stateFileKey();
      if (candidateKey.startsWith(folder) && !candidateKey.equals(stateFileKey)) {
        nested.add(candidate);
      }
    }
    nested.sort(CLOSEST_FIRST);
    return nested;
  }

  /**
   * Where a candidate would be listed: the folder of a {@code state.json}, or {@code <folder>/<id>.} for
   * an {@code <id>.state.json} (its only key, {@code <id>.json}, shares that prefix).
   */
  private static String region(String candidateKey) {
    return Keys.name(candidateKey).equals(STATE_FILE_NAME)
        ? Keys.folder(candidateKey)
        : candidateKey.substring(0, candidateKey.length() - STATE_FILE_NAME.length());
  }

  /** True when the listing, now at {@code position} (null: at its end), is past {@code candidateKey}. */
  private static boolean passed(String candidateKey, String position) {
    return position == null || !position.startsWith(region(candidateKey)) || candidateKey.compareTo(position) < 0;
  }

  private void forgetLeft(String position) {
    decided.keySet().removeIf(candidateKey -> !position.startsWith(region(candidateKey)));
  }

  private void resolvePassed(String position) {
    boolean again = true;
    while (again) {
      again = false;
      for (String candidateKey : pending.keySet()) {
        if (passed(candidateKey, position)) {
          resolve(candidateKey, false, position);
          again = true;
          break;
        }
      }
    }
  }

  private void resolve(String candidateKey, boolean exists, String position) {
    List<StoredObject> waiting = pending.remove(candidateKey);
    if (waiting == null) {
      return;
    }
    pendingCount -= waiting.size();
    for (StoredObject object : waiting) {
      if (exists) {
        assign(object.key(), object, candidateKey);
      } else {
        place(object, position);
      }
    }
  }

  /** Too many keys wait: the candidate most of them wait on is looked up, and skipped if it is a nested record. */
  private void relieve(String position) {
    while (pendingCount > pendingLimit) {
      String candidateKey = null;
      int most = -1;
      for (Map.Entry<String, List<StoredObject>> entry : pending.entrySet()) {
        if (entry.getValue().size() > most) {
          candidateKey = entry.getKey();
          most = entry.getValue().size();
        }
      }
      boolean exists = isBoundaryThatExists(candidateKey);
      decided.put(candidateKey, exists);
      resolve(candidateKey, exists, position);
      String region = region(candidateKey);
      if (exists && Keys.name(candidateKey).equals(STATE_FILE_NAME) && position.startsWith(region)) {
        skip(region, candidateKey);
        return;
      }
    }
  }

  /**
   * Goes on listing after the nested record of {@code nestedStateFile}, whose folder is {@code nestedFolder}.
   * Its keys of interest not listed yet are looked up one by one, with their closest owner.
   */
  private void skip(String nestedFolder, String nestedStateFile) {
    // Keys of the nested record that wait on a state file deeper inside it: the listing will not show it.
    List<String> waitingInside = new ArrayList<>();
    pending.keySet().forEach(candidateKey -> {
      if (candidateKey.startsWith(nestedFolder)) {
        waitingInside.add(candidateKey);
      }
    });
    for (String candidateKey : waitingInside) {
      List<StoredObject> waiting = pending.remove(candidateKey);
      pendingCount -= waiting.size();
      for (StoredObject object : waiting) {
        if (keysOfInterest.contains(object.key())) {
          otherOwners.put(object.key(), closestNestedOwner(object.key(), nestedFolder, nestedStateFile));
        }
      }
    }
    for (String key : keysOfInterest.tailSet(nestedFolder, true)) {
      if (!key.startsWith(nestedFolder)) {
        break;
      }
      if (existing.contains(key)) {
        continue; // listed already: its owner is known
      }
      boolean boundary = Keys.isStateFileName(key) && classifier.isRecordBoundary(key);
      if (boundary) {
        if (key.equals(nestedStateFile) || store.listedObject(key) != null) {
          existing.add(key);
        }
      } else if (store.listedObject(key) != null) {
        existing.add(key);
        otherOwners.put(key, closestNestedOwner(key, nestedFolder, nestedStateFile));
      }
    }
    // Keys of the nested folder that still come (in an order other than UTF-8's) go to its record.
    listing = store.list(folder, nestedFolder + AFTER_FOLDER);
  }

  /** The closest existing owner of a key inside a nested record's folder: a record nested in it, or that record. */
  private String closestNestedOwner(String key, String nestedFolder, String nestedStateFile) {
    for (OwnerCandidate candidate : nestedCandidates(key)) {
      String candidateKey = candidate.stateFileKey();
      if (candidateKey.equals(nestedStateFile)) {
        break;
      }
      Boolean exists = decided.get(candidateKey);
      if (candidateKey.startsWith(nestedFolder)
          && (exists != null ? exists : isBoundaryThatExists(candidateKey))) {
        return candidateKey;
      }
    }
    return nestedStateFile;
  }

  private boolean isBoundaryThatExists(String candidateKey) {
    return classifier.isRecordBoundary(candidateKey) && store.listedObject(candidateKey) != null;
  }
}
