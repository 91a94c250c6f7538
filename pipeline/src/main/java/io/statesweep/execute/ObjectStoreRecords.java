package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.StoredObject;
import io.statesweep.s3.ConditionalRead;
import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.ListingDepth;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.StateCheck;
import java.util.Iterator;
import java.util.List;

/** {@link RecordStore} on S3. */
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

  @Override
  public Iterator<StoredObject> list(String folder) {
    return store.iterate(folder, ListingDepth.RECURSIVE);
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
