package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Keys;
import io.statesweep.store.ListingContinuation;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StoredObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One listing that verifies several records of a window at once (pipeline/README.md "Deleting"): records whose listings
 * (their folders, or {@code <id>.} of single-file records) sit side by side in one parent folder are listed by one
 * ListObjectsV2 walk of that folder, from just before the first record's keys to past the last one's, instead of one
 * listing each. A record is served from it only when the walk went past every key its own listing would have shown
 * (keys in UTF-8 order, as S3 lists them); the others list on their own, as without it.
 *
 * <p>The walk is made once, by the first of its records to ask, and each record is served from it once:
 * a record verified again lists on its own, so no listing is used twice. Its records' keys count as seen
 * when the walk began ({@link Served#listedFrom}), which is what a record's bound from verification to
 * deletes is measured from. It asks for at most one page more than the records it has served so far (a
 * walk over other records' keys stops), so it never costs more than one request beyond what its records'
 * own listings would; it holds only its records' keys.
 */
final class SharedListing {
  /** A record's keys as the walk listed them, and when the walk began (on the executor's monotonic clock). */
  record Served(List<StoredObject> objects, long listedFrom) {}

  private final RecordStore store;
  private final String parent;
  /** The records' listing prefixes, in UTF-8 order. */
  private final List<String> prefixes;
  private final LongSupplier nanoTime;
  private Map<String, List<StoredObject>> served;
  private long listedFrom;

  /**
   * @param parent the folder that holds every one of {@code prefixes} ({@link #parentOf})
   * @param prefixes the listing prefixes of at least two records
   */
  SharedListing(RecordStore store, String parent, List<String> prefixes, LongSupplier nanoTime) {
    this.store = requireNonNull(store, "store is null");
    this.parent = requireNonNull(parent, "parent is null");
    List<String> sorted = new ArrayList<>(prefixes);
    sorted.sort(Keys.UTF8_ORDER);
    for (String prefix : sorted) {
      if (!parent.equals(parentOf(prefix))) {
        throw new IllegalArgumentException(prefix + " is not a listing prefix directly in " + parent);
      }
    }
    if (sorted.size() < 2) {
      throw new IllegalArgumentException("a shared listing serves at least two records: " + sorted);
    }
    this.prefixes = List.copyOf(sorted);
    this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
  }

  /**
   * The folder that a listing prefix ({@code <folder>/<name>/} or {@code <folder>/<id>.}) sits directly in, with
   * its trailing slash; null for a prefix that names no folder inside one.
   */
  static String parentOf(String prefix) {
    if (prefix.length() < 2) {
      return null;
    }
    int slash = prefix.lastIndexOf('/', prefix.length() - 2);
    return slash < 0 ? null : prefix.substring(0, slash + 1);
  }

  /**
   * The keys under {@code prefix} as the walk listed them (walking now if no record asked before), or null when
   * the walk did not cover them or served them already: the record then lists on its own.
   */
  synchronized Served take(String prefix) {
    if (served == null) {
      walk();
    }
    List<StoredObject> objects = served.remove(prefix);
    return objects == null ? null : new Served(objects, listedFrom);
  }

  private void walk() {
    served = new HashMap<>();
    Map<String, List<StoredObject>> open = new LinkedHashMap<>();
    prefixes.forEach(prefix -> open.put(prefix, new ArrayList<>()));
    String first = prefixes.get(0);
    // Every key that starts with the first prefix sorts after the prefix less its last character.
    String startAfter = first.substring(0, first.length() - 1);
    ListingContinuation continuation = new ListingContinuation(parent + " after " + startAfter);
    listedFrom = nanoTime.getAsLong();
    String token = null;
    int pages = 0;
    while (true) {
      ListingPage page = store.listPage(parent, startAfter, token);
      if (page == null) {
        return; // the store lists no pages: every record lists on its own
      }
      pages++;
      for (StoredObject object : page.objects()) {
        String key = object.key();
        for (var entries = open.entrySet().iterator(); entries.hasNext(); ) {
          var entry = entries.next();
          String prefix = entry.getKey();
          if (key.startsWith(prefix)) {
            entry.getValue().add(object);
          } else if (Keys.UTF8_ORDER.compare(key, prefix) > 0) {
            // Past every key that starts with the prefix: its record's listing is whole.
            served.put(prefix, entry.getValue());
            entries.remove();
          }
        }
      }
      token = continuation.next(page.truncated(), page.nextToken());
      if (token == null) {
        open.forEach(served::put); // the folder's last page: nothing follows any of them
        return;
      }
      if (open.isEmpty() || pages > served.size()) {
        return; // the rest list on their own
      }
    }
  }

  /**
   * A record's store whose listing of its own prefix (from the start) is what the walk served; every other request
   * goes to the store.
   */
  static final class ServedStore extends ForwardingRecordStore {
    private final String prefix;
    private final List<StoredObject> objects;

    ServedStore(RecordStore store, String prefix, List<StoredObject> objects) {
      super(store);
      this.prefix = requireNonNull(prefix, "prefix is null");
      this.objects = List.copyOf(objects);
    }

    @Override
    public Iterator<StoredObject> list(String listed, String startAfter) {
      return listed.equals(prefix) && startAfter == null ? objects.iterator() : super.list(listed, startAfter);
    }
  }
}
