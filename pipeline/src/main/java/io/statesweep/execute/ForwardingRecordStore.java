package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoredObject;
import java.util.Iterator;
import java.util.List;

/** A {@link RecordStore} that sends every request to another; a subclass changes the ones it overrides. */
public abstract class ForwardingRecordStore implements RecordStore {
  private final RecordStore store;

  protected ForwardingRecordStore(RecordStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  @Override
  public StateCheck checkUnchanged(String key, String etag) {
    return store.checkUnchanged(key, etag);
  }

  @Override
  public ConditionalRead readState(String key, String etag) {
    return store.readState(key, etag);
  }

  @Override
  public Iterator<StoredObject> list(String prefix, String startAfter) {
    return store.list(prefix, startAfter);
  }

  @Override
  public ListingPage listPage(String prefix, String startAfter, String token) {
    return store.listPage(prefix, startAfter, token);
  }

  @Override
  public StoredObject listedObject(String key) {
    return store.listedObject(key);
  }

  @Override
  public DeleteResult delete(List<DeleteTarget> targets) {
    return store.delete(targets);
  }

  @Override
  public io.statesweep.store.MarkerRemoval removeMarkerIfLatest(String key, String markerVersionId,
      String deletedEtag) {
    return store.removeMarkerIfLatest(key, markerVersionId, deletedEtag);
  }
}
