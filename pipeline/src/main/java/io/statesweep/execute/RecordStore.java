package io.statesweep.execute;

import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.store.MarkerRemoval;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoredObject;
import java.util.Iterator;
import java.util.List;

/**
 * The object operations execution needs: the seam that tests replace with a fake ({@code FakeRecordStore}), and
 * that {@link ObjectStoreRecords} provides on any {@link io.statesweep.store.ObjectStore}.
 */
public interface RecordStore {
  /** GET with If-Match: is the state file still the planned version? */
  StateCheck checkUnchanged(String key, String etag);

  /** GET with If-Match, keeping the document (up to the store's limit) when it is still the planned version. */
  ConditionalRead readState(String key, String etag);

  /**
   * Every object whose key starts with {@code prefix} (a folder, recursively, or {@code <id>.}), in key
   * order, from the first key after {@code startAfter} (null: from the first key); fetched a page at a
   * time as the iterator advances, so that a caller that drops what it read holds one page.
   */
  Iterator<StoredObject> list(String prefix, String startAfter);

  /**
   * One ListObjectsV2 page (up to 1,000 keys, maybe none) of the objects under {@code prefix}: the first after
   * {@code startAfter}, or the one at {@code token} (the page before's). What lets one listing verify several
   * records of a window ({@link SharedListing}); a store that answers null lists each record on its own.
   */
  default ListingPage listPage(String prefix, String startAfter, String token) {
    return null;
  }

  /**
   * The object's current version, or null, with its LastModified on the listing's clock, as
   * {@link #list} and the plan have it (never a HEAD's whole seconds beside a listing's milliseconds).
   */
  StoredObject listedObject(String key);

  /** One DeleteObjects request of at most 1,000 keys; per-key errors are data. */
  DeleteResult delete(List<DeleteTarget> targets);

  /**
   * Removes the delete marker {@code markerVersionId} that this execute's delete of {@code key} (of the version with
   * {@code deletedEtag}) wrote, only while it is the key's latest version ({@link io.statesweep.store.ObjectStore#removeMarkerIfLatest}); a store that keeps no
   * versions answers that nothing was restored.
   */
  default MarkerRemoval removeMarkerIfLatest(String key, String markerVersionId, String deletedEtag) {
    return MarkerRemoval.notRestored("the store keeps no versions");
  }
}
