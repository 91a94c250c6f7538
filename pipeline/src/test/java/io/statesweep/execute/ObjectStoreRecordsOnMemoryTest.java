package io.statesweep.execute;

import io.statesweep.store.DeleteTarget;
import io.statesweep.store.MemoryObjectStore;
import io.statesweep.store.StoredObject;
import java.util.List;

/** The record-store contract on {@link ObjectStoreRecords} over {@link MemoryObjectStore}. */
class ObjectStoreRecordsOnMemoryTest extends RecordStoreContract {
  private final MemoryObjectStore store = new MemoryObjectStore("records");
  private final ObjectStoreRecords records = new ObjectStoreRecords(store, 1 << 20);

  @Override
  protected RecordStore records() {
    return records;
  }

  @Override
  protected StoredObject put(String key, String json) {
    store.write(key, json);
    return store.listedObject(key);
  }

  @Override
  protected StoredObject rewrite(String key, String json) {
    return put(key, json);
  }

  @Override
  protected void remove(String key) {
    store.delete(List.of(new DeleteTarget(key, null)));
  }
}
