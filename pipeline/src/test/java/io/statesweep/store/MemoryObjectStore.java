package io.statesweep.store;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * An {@link ObjectStore} in memory, for tests of the core without a server: one bucket, S3's answers where the
 * contract ({@code ObjectStoreContract}) pins them. ETags are the MD5 of the content, as S3 gives a single-part
 * upload's; LastModified is the write's time to the millisecond, in listings and reads alike; a listing page holds
 * at most {@code pageSize} keys and its continuation token is opaque. Every condition is honoured.
 */
public final class MemoryObjectStore implements ObjectStore {
  private static final String TOKEN = "memory-token:";

  private final String bucket;
  private final int pageSize;
  private final NavigableMap<String, Stored> objects = new TreeMap<>();
  private Instant lastWrite = Instant.EPOCH;

  private record Stored(byte[] content, StoredObject object) {}

  public MemoryObjectStore(String bucket) {
    this(bucket, 1000);
  }

  public MemoryObjectStore(String bucket, int pageSize) {
    this.bucket = requireNonNull(bucket, "bucket is null");
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
    }
    this.pageSize = pageSize;
  }

  @Override
  public String bucket() {
    return bucket;
  }

  @Override
  public synchronized FolderListing listFolder(String folder) {
    Set<String> folders = new TreeSet<>();
    List<StoredObject> direct = new ArrayList<>();
    for (Stored stored : under(folder).values()) {
      String sub = subFolder(folder, stored.object().key());
      if (sub == null) {
        direct.add(stored.object());
      } else {
        folders.add(sub);
      }
    }
    return new FolderListing(new ArrayList<>(folders), direct);
  }

  @Override
  public long listLevel(String folder, Consumer<String> subFolders) {
    FolderListing listing = listFolder(folder);
    listing.folders().forEach(subFolders);
    return listing.objects().size();
  }

  @Override
  public synchronized Iterator<StoredObject> iterate(String prefix, ListingDepth depth) {
    List<StoredObject> listed = new ArrayList<>();
    for (Stored stored : under(prefix).values()) {
      if (depth == ListingDepth.RECURSIVE || subFolder(prefix, stored.object().key()) == null) {
        listed.add(stored.object());
      }
    }
    return listed.iterator();
  }

  @Override
  public synchronized ListingPage listPage(String prefix, String startAfter, String continuationToken) {
    String after = startAfter;
    if (continuationToken != null) {
      if (!continuationToken.startsWith(TOKEN)) {
        throw new StoreException("Cannot list memory://" + bucket + "/" + prefix + ": the continuation token "
            + continuationToken + " is not one this store gave", "InvalidArgument", null);
      }
      after = continuationToken.substring(TOKEN.length());
    }
    NavigableMap<String, Stored> rest = under(prefix);
    if (after != null) {
      rest = rest.tailMap(after, false);
    }
    List<StoredObject> page = new ArrayList<>();
    for (Stored stored : rest.values()) {
      if (page.size() == pageSize) {
        return new ListingPage(page, true, TOKEN + page.get(page.size() - 1).key());
      }
      page.add(stored.object());
    }
    return new ListingPage(page, false, null);
  }

  @Override
  public synchronized ObjectContent read(String key, int maxBytes) {
    Stored stored = objects.get(key);
    if (stored == null) {
      return null;
    }
    byte[] bytes = Arrays.copyOf(stored.content(), Math.min(maxBytes, stored.content().length));
    return new ObjectContent(stored.object(), bytes, stored.content().length > maxBytes);
  }

  @Override
  public StateCheck checkUnchanged(String key, String etag) {
    return readIfMatch(key, etag, 0).check();
  }

  @Override
  public synchronized ConditionalRead readIfMatch(String key, String etag, int maxBytes) {
    requireNonNull(etag, "etag is null");
    Stored stored = objects.get(key);
    if (stored == null) {
      return ConditionalRead.of(StateCheck.GONE);
    }
    if (!stored.object().etag().equals(etag)) {
      return ConditionalRead.of(StateCheck.CHANGED);
    }
    byte[] bytes = Arrays.copyOf(stored.content(), Math.min(maxBytes, stored.content().length));
    return new ConditionalRead(StateCheck.UNCHANGED, bytes, stored.content().length > maxBytes);
  }

  @Override
  public synchronized boolean refusesGetIfMatch(String key, String otherEtag) {
    if (!objects.containsKey(key)) {
      throw new StoreException("Cannot read memory://" + bucket + "/" + key + ": NoSuchKey", "NoSuchKey", null);
    }
    return true;
  }

  @Override
  public StoredObject head(String key) {
    return listedObject(key);
  }

  @Override
  public synchronized StoredObject listedObject(String key) {
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key is empty");
    }
    Stored stored = objects.get(key);
    return stored == null ? null : stored.object();
  }

  @Override
  public synchronized DeleteResult delete(List<DeleteTarget> targets) {
    if (targets.size() > 1000) {
      throw new IllegalArgumentException("DeleteObjects takes at most 1000 keys, not " + targets.size());
    }
    Set<String> deleted = new LinkedHashSet<>();
    Map<String, DeleteResult.KeyError> errors = new LinkedHashMap<>();
    for (DeleteTarget target : targets) {
      Stored stored = objects.get(target.key());
      if (stored != null && target.etag() != null && !stored.object().etag().equals(target.etag())) {
        errors.put(target.key(), new DeleteResult.KeyError("PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold"));
      } else {
        objects.remove(target.key());
        deleted.add(target.key());
      }
    }
    return new DeleteResult(deleted, errors);
  }

  @Override
  public synchronized String write(String key, byte[] content) {
    requireNonNull(key, "key is null");
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    // Later writes are never older than earlier ones, however the clock steps.
    lastWrite = now.isAfter(lastWrite) ? now : lastWrite;
    byte[] copy = content.clone();
    StoredObject object = new StoredObject(key, md5(copy), lastWrite, copy.length, STANDARD);
    objects.put(key, new Stored(copy, object));
    return object.etag();
  }

  @Override
  public synchronized String createIfAbsent(String key, byte[] content) {
    return objects.containsKey(key) ? null : write(key, content);
  }

  @Override
  public synchronized String replaceIfMatch(String key, byte[] content, String etag) {
    requireNonNull(etag, "etag is null");
    Stored stored = objects.get(key);
    return stored == null || !stored.object().etag().equals(etag) ? null : write(key, content);
  }

  @Override
  public BucketVersioning bucketVersioning() {
    return new BucketVersioning(BucketVersioning.OFF, null);
  }

  /** Writes {@code content} as UTF-8; returns the ETag. */
  public String write(String key, String content) {
    return write(key, content.getBytes(StandardCharsets.UTF_8));
  }

  /** The objects whose keys start with {@code prefix}: those from it up to the first key after all of them. */
  private NavigableMap<String, Stored> under(String prefix) {
    int end = prefix.length();
    while (end > 0 && prefix.charAt(end - 1) == Character.MAX_VALUE) {
      end--;
    }
    if (end == 0) {
      return objects.tailMap(prefix, true);
    }
    String past = prefix.substring(0, end - 1) + (char) (prefix.charAt(end - 1) + 1);
    return objects.subMap(prefix, true, past, false);
  }

  /** The sub-folder of {@code folder} that holds {@code key} (with its trailing slash), or null when directly in it. */
  private static String subFolder(String folder, String key) {
    int slash = key.indexOf('/', folder.length());
    return slash < 0 ? null : key.substring(0, slash + 1);
  }

  private static String md5(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no MD5", e);
    }
  }
}
