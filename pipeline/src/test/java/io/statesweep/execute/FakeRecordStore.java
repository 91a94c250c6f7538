package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * An in-memory bucket that answers like S3 where execution relies on it: a GET with If-Match is
 * unchanged, changed (412) or gone (404); DeleteObjects honours each key's ETag (PreconditionFailed),
 * counts a missing key as deleted, and rejects an empty request or one of more than 1,000 keys.
 * Tests read back every request and can inject per-key errors, whole-request failures, and rewrites.
 */
final class FakeRecordStore implements RecordStore {
  static final String PRECONDITION_FAILED_MESSAGE = "At least one of the pre-conditions you specified did not hold";

  private final NavigableMap<String, StoredObject> objects = new TreeMap<>();
  private final List<List<DeleteTarget>> deleteRequests = new ArrayList<>();
  private final List<String> listedFolders = new ArrayList<>();
  private final List<String> lookedUpKeys = new ArrayList<>();
  private final List<String> listedKeys = new ArrayList<>();
  private long listRequests;
  private boolean answerPages = true;
  private int pageSize = 1000;
  private final List<String> pagedListings = new ArrayList<>();
  private final Map<String, DeleteResult.KeyError> keyErrors = new HashMap<>();
  private final Map<String, StoreException> failingRequests = new HashMap<>();
  private final Map<String, StoreException> failingReads = new HashMap<>();
  /** State documents by ETag: a rewrite (a new ETag) needs its own. */
  private final Map<String, byte[]> documents = new HashMap<>();
  private final List<String> readStates = new ArrayList<>();
  private int etags;
  /** On a versioned bucket: the key's latest delete marker and the object it hides (null when none), by key. */
  private boolean versioned;
  private final Map<String, String> latestMarkers = new HashMap<>();
  private final Map<String, StoredObject> hidden = new HashMap<>();
  private int markerIds;

  /** Makes the bucket versioned: a delete writes a delete marker, which hides the object until it is removed. */
  synchronized FakeRecordStore versioned() {
    versioned = true;
    return this;
  }

  /** Another writer deletes {@code key} on the versioned bucket: its own delete marker goes on top. */
  synchronized String deleteAgain(String key) {
    StoredObject object = objects.remove(key);
    if (object != null) {
      hidden.put(key, object);
    }
    String marker = "marker-" + ++markerIds;
    latestMarkers.put(key, marker);
    return marker;
  }

  @Override
  public synchronized io.statesweep.store.MarkerRemoval removeMarkerIfLatest(String key, String markerVersionId,
      String deletedEtag) {
    if (!versioned) {
      return io.statesweep.store.MarkerRemoval.notRestored("the store keeps no versions");
    }
    StoredObject current = objects.get(key);
    if (current != null) {
      return io.statesweep.store.MarkerRemoval.writtenSince("v-" + current.etag());
    }
    String latest = latestMarkers.get(key);
    if (latest == null) {
      return io.statesweep.store.MarkerRemoval.notRestored("no version of it is left");
    }
    if (!latest.equals(markerVersionId)) {
      return io.statesweep.store.MarkerRemoval.notRestored("its latest version is another delete marker (" + latest
          + "), not the one statesweep wrote (" + markerVersionId + "): it was deleted again since");
    }
    latestMarkers.remove(key);
    StoredObject restored = hidden.remove(key);
    objects.put(key, restored);
    return io.statesweep.store.MarkerRemoval.restored("v-" + restored.etag());
  }

  /** The document that {@code stateFile}'s version holds. */
  synchronized void describe(StoredObject stateFile, String json) {
    documents.put(stateFile.etag(), json.getBytes(StandardCharsets.UTF_8));
  }

  /** {@link #describe}, unless a test described that version already. */
  synchronized void describeIfAbsent(StoredObject stateFile, String json) {
    documents.putIfAbsent(stateFile.etag(), json.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes a state file holding {@code json}. */
  StoredObject putState(String key, Instant lastModified, String json) {
    StoredObject object = put(key, lastModified);
    describe(object, json);
    return object;
  }

  /** The state files read with their documents, in order. */
  synchronized List<String> readStates() {
    return List.copyOf(readStates);
  }

  /** Writes an object of 10 bytes with a fresh ETag. */
  StoredObject put(String key, Instant lastModified) {
    requireNonNull(key, "key is null");
    StoredObject object = new StoredObject(key, "etag-" + ++etags, lastModified, 10);
    objects.put(key, object);
    return object;
  }

  /** Writes an existing object again: a new ETag and the given (later) LastModified. */
  StoredObject rewrite(String key, Instant lastModified) {
    StoredObject old = objects.get(key);
    if (old == null) {
      throw new IllegalStateException("cannot rewrite " + key + ": it does not exist");
    }
    if (!lastModified.isAfter(old.lastModified())) {
      throw new IllegalArgumentException("a rewrite of " + key + " must be later than " + old.lastModified());
    }
    return put(key, lastModified);
  }

  /** Uploads an object again byte for byte: the same ETag, a later LastModified. */
  synchronized StoredObject reupload(String key, Instant lastModified) {
    StoredObject old = objects.get(key);
    if (old == null) {
      throw new IllegalStateException("cannot upload " + key + " again: it does not exist");
    }
    StoredObject again = new StoredObject(key, old.etag(), lastModified, old.size());
    objects.put(key, again);
    return again;
  }

  void remove(String key) {
    objects.remove(key);
  }

  boolean exists(String key) {
    return objects.containsKey(key);
  }

  StoredObject object(String key) {
    return objects.get(key);
  }

  Set<String> keys() {
    return new LinkedHashSet<>(objects.keySet());
  }

  /** Every DeleteObjects of {@code key} answers this error until cleared (as S3 does for AccessDenied). */
  void failKey(String key, String code, String message) {
    keyErrors.put(key, new DeleteResult.KeyError(code, message));
  }

  /** Any DeleteObjects request that contains {@code key} fails as a whole, with nothing deleted. */
  void failRequestsContaining(String key, StoreException failure) {
    failingRequests.put(key, failure);
  }

  /** Conditional reads of {@code key} fail. */
  void failReadsOf(String key, StoreException failure) {
    failingReads.put(key, failure);
  }

  void clearFailures() {
    keyErrors.clear();
    failingRequests.clear();
    failingReads.clear();
  }

  /** Every DeleteObjects request received, in order, failed ones included. */
  List<List<DeleteTarget>> deleteRequests() {
    return List.copyOf(deleteRequests);
  }

  /** The keys of each DeleteObjects request, in order. */
  List<List<String>> deleteRequestKeys() {
    return deleteRequests.stream().map(request -> request.stream().map(DeleteTarget::key).toList()).toList();
  }

  /** Every key sent for deletion, in the order sent. */
  List<String> sentKeys() {
    return deleteRequests.stream().flatMap(List::stream).map(DeleteTarget::key).toList();
  }

  /** The index of the request that carried {@code key}; fails when no request or several did. */
  int requestIndexOf(String key) {
    int found = -1;
    for (int i = 0; i < deleteRequests.size(); i++) {
      for (DeleteTarget target : deleteRequests.get(i)) {
        if (target.key().equals(key)) {
          if (found >= 0) {
            throw new AssertionError(key + " was sent in requests " + found + " and " + i);
          }
          found = i;
        }
      }
    }
    if (found < 0) {
      throw new AssertionError(key + " was never sent for deletion");
    }
    return found;
  }

  List<String> listedFolders() {
    return List.copyOf(listedFolders);
  }

  List<String> lookedUpKeys() {
    return List.copyOf(lookedUpKeys);
  }

  @Override
  public synchronized StateCheck checkUnchanged(String key, String etag) {
    requireNonNull(etag, "etag is null");
    StoreException failure = failingReads.get(key);
    if (failure != null) {
      throw failure;
    }
    StoredObject object = objects.get(key);
    if (object == null) {
      return StateCheck.GONE;
    }
    return object.etag().equals(etag) ? StateCheck.UNCHANGED : StateCheck.CHANGED;
  }

  @Override
  public synchronized ConditionalRead readState(String key, String etag) {
    readStates.add(key);
    StateCheck check = checkUnchanged(key, etag);
    if (check != StateCheck.UNCHANGED) {
      return ConditionalRead.of(check);
    }
    byte[] document = documents.get(etag);
    if (document == null) {
      throw new IllegalStateException("the test wrote no document for " + key + " (ETag " + etag + ")");
    }
    return new ConditionalRead(StateCheck.UNCHANGED, document, false);
  }

  /**
   * A snapshot in key order, so that a test may change the bucket while the caller iterates; counts
   * the keys the caller reads ({@link #listedKeyCount()}) and the 1,000-key pages S3 would have answered
   * for them ({@link #listRequests()}).
   */
  @Override
  public synchronized Iterator<StoredObject> list(String folder, String startAfter) {
    listedFolders.add(startAfter == null ? folder : folder + " after " + startAfter);
    listRequests++;
    List<StoredObject> listed = new ArrayList<>();
    String from = startAfter == null || startAfter.compareTo(folder) < 0 ? folder : startAfter;
    for (StoredObject object : objects.tailMap(from, startAfter == null || !from.equals(startAfter)).values()) {
      if (!object.key().startsWith(folder)) {
        break;
      }
      listed.add(object);
    }
    Iterator<StoredObject> snapshot = listed.iterator();
    return new Iterator<>() {
      private int read;

      @Override
      public boolean hasNext() {
        return snapshot.hasNext();
      }

      @Override
      public StoredObject next() {
        StoredObject object = snapshot.next();
        synchronized (FakeRecordStore.this) {
          listedKeys.add(object.key());
          if (++read % 1000 == 1 && read > 1) {
            listRequests++;
          }
        }
        return object;
      }
    };
  }

  /** Whether {@link #listPage} answers (a store without pages lists each record on its own). */
  synchronized void answerPages(boolean answer) {
    answerPages = answer;
  }

  /** Sets the most keys a {@link #listPage} page holds (S3's is 1,000). */
  synchronized void pageSize(int keys) {
    pageSize = keys;
  }

  /** The listings that pages answered, as {@code <prefix> after <startAfter>}, once per listing. */
  synchronized List<String> pagedListings() {
    return List.copyOf(pagedListings);
  }

  /**
   * One page of the objects under {@code prefix} after {@code startAfter}, or at {@code token} (the key the page
   * before ended with); counts one request ({@link #listRequests()}) and the keys it hands over.
   */
  @Override
  public synchronized ListingPage listPage(String prefix, String startAfter, String token) {
    if (!answerPages) {
      return null;
    }
    listRequests++;
    String after = token != null ? token : startAfter;
    if (token == null) {
      pagedListings.add(prefix + " after " + startAfter);
    }
    List<StoredObject> page = new ArrayList<>();
    NavigableMap<String, StoredObject> tail = after == null || after.compareTo(prefix) < 0
        ? objects.tailMap(prefix, true) : objects.tailMap(after, false);
    boolean more = false;
    for (StoredObject object : tail.values()) {
      if (!object.key().startsWith(prefix)) {
        break;
      }
      if (page.size() == pageSize) {
        more = true;
        break;
      }
      page.add(object);
      listedKeys.add(object.key());
    }
    return new ListingPage(page, more, more ? page.get(page.size() - 1).key() : null);
  }

  /** Keys that listings handed to their callers, every time one was read. */
  synchronized long listedKeyCount() {
    return listedKeys.size();
  }

  /** Keys that listings handed to their callers, in order, as often as read. */
  synchronized List<String> listedKeys() {
    return List.copyOf(listedKeys);
  }

  /** ListObjectsV2 requests that the listings read would have taken, at 1,000 keys a page. */
  synchronized long listRequests() {
    return listRequests;
  }

  @Override
  public synchronized StoredObject listedObject(String key) {
    lookedUpKeys.add(key);
    return objects.get(key);
  }

  @Override
  public synchronized DeleteResult delete(List<DeleteTarget> targets) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("DeleteObjects needs at least one key");
    }
    if (targets.size() > 1000) {
      throw new IllegalArgumentException("DeleteObjects takes at most 1000 keys, not " + targets.size());
    }
    deleteRequests.add(List.copyOf(targets));
    for (DeleteTarget target : targets) {
      StoreException failure = failingRequests.get(target.key());
      if (failure != null) {
        throw failure;
      }
    }
    Set<String> deleted = new LinkedHashSet<>();
    Map<String, DeleteResult.KeyError> errors = new LinkedHashMap<>();
    Map<String, String> markers = new LinkedHashMap<>();
    for (DeleteTarget target : targets) {
      DeleteResult.KeyError injected = keyErrors.get(target.key());
      StoredObject object = objects.get(target.key());
      if (injected != null) {
        errors.put(target.key(), injected);
      } else if (object == null) {
        deleted.add(target.key());
      } else if (target.etag() != null && !target.etag().equals(object.etag())) {
        errors.put(target.key(), new DeleteResult.KeyError("PreconditionFailed", PRECONDITION_FAILED_MESSAGE));
      } else {
        objects.remove(target.key());
        deleted.add(target.key());
        if (versioned) {
          hidden.put(target.key(), object);
          String marker = "marker-" + ++markerIds;
          latestMarkers.put(target.key(), marker);
          markers.put(target.key(), marker);
        }
      }
    }
    return new DeleteResult(deleted, errors, markers);
  }
}
