package io.statesweep.ledger;

import io.statesweep.store.StoredObject;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The object operations of an execute's ledger: the seam that tests replace with a fake, and that
 * {@link ObjectStoreLedger} provides on any {@link io.statesweep.store.ObjectStore}.
 */
public interface LedgerStore {
  /** Writes an object; durable when it returns. */
  void write(String key, byte[] content);

  /** The object's bytes, or null when it does not exist. */
  byte[] read(String key);

  /** Every object under {@code prefix}, in key order, fetched a page at a time as the iterator advances. */
  Iterator<StoredObject> objects(String prefix);

  /** The keys of {@link #objects}. */
  default Iterator<String> keys(String prefix) {
    Iterator<StoredObject> objects = objects(prefix);
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return objects.hasNext();
      }

      @Override
      public String next() {
        return objects.next().key();
      }
    };
  }

  /** The folders directly under {@code folder}. */
  List<String> folders(String folder);

  /** The object's current version as a listing shows it, or null when it does not exist. */
  StoredObject find(String key);

  /** Deletes up to 1,000 keys; returns those it could not delete, each with why. */
  Map<String, String> delete(List<String> keys);
}
