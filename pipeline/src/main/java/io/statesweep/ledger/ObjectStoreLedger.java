package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingDepth;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link LedgerStore} on an {@link ObjectStore}. */
public final class ObjectStoreLedger implements LedgerStore {
  private final ObjectStore store;

  public ObjectStoreLedger(ObjectStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  @Override
  public void write(String key, byte[] content) {
    store.write(key, content);
  }

  @Override
  public byte[] read(String key) {
    ObjectContent content = store.read(key, LedgerCodec.MAX_OBJECT_BYTES);
    if (content == null) {
      return null;
    }
    if (content.truncated()) {
      throw new IllegalArgumentException("Invalid ledger object s3://" + store.bucket() + "/" + key + ": larger than "
          + LedgerCodec.MAX_OBJECT_BYTES + " bytes");
    }
    return content.bytes();
  }

  @Override
  public Iterator<StoredObject> objects(String prefix) {
    return store.iterate(prefix, ListingDepth.RECURSIVE);
  }

  @Override
  public List<String> folders(String folder) {
    return store.listFolder(folder).folders();
  }

  @Override
  public StoredObject find(String key) {
    return store.listedObject(key);
  }

  @Override
  public Map<String, String> delete(List<String> keys) {
    DeleteResult result = store.delete(keys.stream().map(key -> new DeleteTarget(key, null)).toList());
    Map<String, String> failed = new LinkedHashMap<>();
    result.errors().forEach((key, error) -> failed.put(key, error.toString()));
    return failed;
  }
}
