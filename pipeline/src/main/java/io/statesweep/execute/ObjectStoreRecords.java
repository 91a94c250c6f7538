package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingContinuation;
import io.statesweep.store.ListingDepth;
import io.statesweep.store.ListingPage;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoredObject;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** {@link RecordStore} on an {@link ObjectStore}: the views execution needs of the store. */
public final class ObjectStoreRecords implements RecordStore {
  private final ObjectStore store;
  private final int maxStateBytes;

  /** @param maxStateBytes the largest state document read (a larger one is a bad document) */
  public ObjectStoreRecords(ObjectStore store, int maxStateBytes) {
    this.store = requireNonNull(store, "store is null");
    if (maxStateBytes < 1) {
      throw new IllegalArgumentException("maxStateBytes must be positive: " + maxStateBytes);
    }
    this.maxStateBytes = maxStateBytes;
  }

  @Override
  public ConditionalRead readState(String key, String etag) {
    return store.readIfMatch(key, etag, maxStateBytes);
  }

  @Override
  public StateCheck checkUnchanged(String key, String etag) {
    return store.checkUnchanged(key, etag);
  }

  /** ListObjectsV2 pages of up to 1,000 keys, each asked for when the one before is used up. */
  @Override
  public Iterator<StoredObject> list(String folder, String startAfter) {
    if (startAfter == null) {
      return store.iterate(folder, ListingDepth.RECURSIVE);
    }
    ListingContinuation continuation = new ListingContinuation("s3://" + store.bucket() + "/" + folder + " after "
        + startAfter);
    return new Iterator<>() {
      private Iterator<StoredObject> objects = java.util.Collections.emptyIterator();
      private String token;
      private boolean last;

      @Override
      public boolean hasNext() {
        // Pages without keys (truncated or not) are passed over.
        while (!objects.hasNext() && !last) {
          ListingPage page = store.listPage(folder, startAfter, token);
          token = continuation.next(page.truncated(), page.nextToken());
          last = token == null;
          objects = page.objects().iterator();
        }
        return objects.hasNext();
      }

      @Override
      public StoredObject next() {
        if (!hasNext()) {
          throw new NoSuchElementException("no more objects under " + folder + " after " + startAfter);
        }
        return objects.next();
      }
    };
  }

  @Override
  public io.statesweep.store.MarkerRemoval removeMarkerIfLatest(String key, String markerVersionId,
      String deletedEtag) {
    return store.removeMarkerIfLatest(key, markerVersionId, deletedEtag);
  }

  @Override
  public ListingPage listPage(String prefix, String startAfter, String token) {
    return store.listPage(prefix, startAfter, token);
  }

  /** A one-key listing, not a HEAD: the times execution compares all come from listings. */
  @Override
  public StoredObject listedObject(String key) {
    return store.listedObject(key);
  }

  @Override
  public DeleteResult delete(List<DeleteTarget> targets) {
    return store.delete(targets);
  }
}
