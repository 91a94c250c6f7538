package io.statesweep.ledger;

import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/** An in-memory bucket for the ledger's tests: keys in order, objects with an ETag, reads counted. */
class MemoryLedgerStore implements LedgerStore {
  private final NavigableMap<String, byte[]> objects = new TreeMap<>();
  private final NavigableMap<String, String> etags = new TreeMap<>();
  private final Map<String, Instant> writtenAt = new java.util.HashMap<>();
  /** When the next writes happen, as their LastModified says. */
  private Instant now = Instant.EPOCH;
  private final List<String> reads = new ArrayList<>();
  private int written;
  private final List<Integer> deleteRequests = new ArrayList<>();
  /** How the next delete requests are answered: R refused whole, anything else as asked; after its end, as asked. */
  private String script = "";
  private final java.util.Set<String> refusedKeys = new java.util.HashSet<>();

  /** An object of the export (not the ledger's), as a listing shows it. */
  void putExportObject(String key, String etag) {
    objects.put(key, new byte[0]);
    etags.put(key, etag);
  }

  void remove(String key) {
    objects.remove(key);
    etags.remove(key);
  }

  boolean exists(String key) {
    return objects.containsKey(key);
  }

  List<String> reads() {
    return List.copyOf(reads);
  }

  NavigableMap<String, byte[]> objects() {
    return objects;
  }

  /** Writes from now on happen at {@code now}. */
  void at(Instant now) {
    this.now = now;
  }

  @Override
  public void write(String key, byte[] content) {
    writtenAt.put(key, now);
    objects.put(key, content.clone());
    etags.put(key, "written-" + ++written);
  }

  @Override
  public byte[] read(String key) {
    reads.add(key);
    byte[] bytes = objects.get(key);
    return bytes == null ? null : bytes.clone();
  }

  @Override
  public Iterator<StoredObject> objects(String prefix) {
    List<StoredObject> listed = new ArrayList<>();
    for (String key : objects.subMap(prefix, prefix + Character.MAX_VALUE).keySet()) {
      listed.add(new StoredObject(key, etags.get(key), writtenAt.getOrDefault(key, Instant.EPOCH), objects.get(key).length));
    }
    return listed.iterator();
  }

  @Override
  public List<String> folders(String folder) {
    TreeSet<String> folders = new TreeSet<>();
    for (String key : objects.subMap(folder, folder + Character.MAX_VALUE).keySet()) {
      int slash = key.indexOf('/', folder.length());
      if (slash >= 0) {
        folders.add(key.substring(0, slash + 1));
      }
    }
    return List.copyOf(folders);
  }

  @Override
  public StoredObject find(String key) {
    String etag = etags.get(key);
    return etag == null ? null : new StoredObject(key, etag, Instant.EPOCH, 0);
  }

  /** The next {@code requests} deletes are refused whole, as S3 refuses one with SlowDown past the SDK's retries. */
  void refuseDeleteRequests(int requests) {
    script = "R".repeat(requests);
  }

  /** The next delete requests answered as {@code script} says: {@code R} refused whole, {@code .} as asked. */
  void answerDeleteRequests(String script) {
    this.script = script;
  }

  /** Deletes of {@code key} are answered with an error for the key alone, as DeleteObjects answers per key. */
  void refuseKey(String key) {
    refusedKeys.add(key);
  }

  /** The keys of each delete request sent, refused ones included. */
  List<Integer> deleteRequests() {
    return List.copyOf(deleteRequests);
  }

  @Override
  public Map<String, String> delete(List<String> keys) {
    deleteRequests.add(keys.size());
    boolean refused = script.startsWith("R");
    script = script.isEmpty() ? script : script.substring(1);
    if (refused) {
      throw new StoreException("Cannot delete " + keys.get(0) + " and " + (keys.size() - 1) + " more keys: SlowDown",
          "SlowDown", null, 4);
    }
    Map<String, String> failed = new LinkedHashMap<>();
    for (String key : keys) {
      if (refusedKeys.contains(key)) {
        failed.put(key, "InternalError: We encountered an internal error. Please try again.");
      } else {
        remove(key);
      }
    }
    return failed;
  }
}
