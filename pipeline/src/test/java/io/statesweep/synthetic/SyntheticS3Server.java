package io.statesweep.synthetic;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An HTTP server on 127.0.0.1 that speaks the part of the S3 protocol statesweep and Hadoop's S3A
 * use (path style): ListObjectsV2 (prefix, delimiter, start-after, continuation, max-keys,
 * encoding-type=url) and ListObjects V1 (marker), GetObject and HeadObject (If-Match,
 * If-None-Match, a single byte Range), HeadBucket, GetBucketLocation, ListMultipartUploads (always
 * empty), ListBuckets, DeleteObjects (per-object ETag), DeleteObject (If-Match), PutObject
 * (If-None-Match: *, If-Match; an aws-chunked body decoded), over a
 * {@link SyntheticArchive} that it never holds in memory: deletions and writes are a small overlay.
 * A big record's state file is generated as it is sent ({@link SyntheticArchive#stream}).
 *
 * <p>With S3 Versioning ({@link #versioning}, or PutBucketVersioning) it keeps versions as S3 does: PUT writes a
 * version, a delete without a version id writes a delete marker (named in DeleteObjects' verbose answer by DeleteMarker
 * and DeleteMarkerVersionId, in DeleteObject's by x-amz-delete-marker and x-amz-version-id), a delete with a version id
 * removes that version (a marker's removal makes the version behind it current again), GET and HEAD answer
 * x-amz-version-id (a key whose latest version is a marker: 404 with x-amz-delete-marker), ListObjectVersions pages
 * with key-marker and version-id-marker, GetBucketVersioning reads the status; Suspended writes {@code null} versions
 * and markers, each replacing the key's {@code null} version. Every generated object is a version of its own
 * ({@code g...}). A generated key deleted once holds one small entry (its marker's id and time: about 50 bytes, so
 * millions of deletes fit in a few hundred MB); a key with any other history holds the list of its versions.
 * CreateBucket adds an empty bucket beside the archive's (versioned or not as its own PutBucketVersioning says).
 *
 * <p>Other sub-resources of a bucket or object are answered 501 NotImplemented, as S3 does for what it
 * does not implement.
 *
 * <p>It can add a fixed latency to every request and answer 503 SlowDown above a request rate per
 * prefix (the first three segments of a key), like S3's per-prefix limits; delay the listings of chosen
 * prefixes ({@link #delayListings}, a slow store under a large folder) and act at a chosen page of them
 * ({@link #whenListed}), for example write a file again byte for byte ({@link #put}: the same ETag) as the
 * exporter does for a record that comes back. Like S3, it gives LastModified
 * to the millisecond in listings and in whole seconds in the Last-Modified header. Its ListObjectsV2 can answer
 * as S3 may and clients often do not expect: empty truncated pages ({@link #emptyTruncatedPages}),
 * fewer keys than asked ({@link #shortPages}); and as a broken store would, without a continuation
 * token or with one it was given before ({@link #continuationTokens}). Signatures are not checked.
 * Test scope only: an instrument for benchmarks at scales no local store can hold.
 */
public final class SyntheticS3Server implements AutoCloseable {
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter XML_DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final String MAX = "\uffff";
  private static final String REGION = "us-east-1";
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");
  /** Query parameters of a listing (V1 or V2); any other makes the request another operation. */
  private static final Set<String> LIST_PARAMETERS = Set.of("list-type", "prefix", "delimiter", "max-keys",
      "start-after", "continuation-token", "fetch-owner", "encoding-type", "marker", "x-id");

  private static final Pattern OBJECT = Pattern.compile("<Object>(.*?)</Object>", Pattern.DOTALL);
  private static final Pattern OBJECT_KEY = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);
  private static final Pattern OBJECT_ETAG = Pattern.compile("<ETag>(.*?)</ETag>", Pattern.DOTALL);
  private static final Pattern OBJECT_VERSION = Pattern.compile("<VersionId>(.*?)</VersionId>", Pattern.DOTALL);
  private static final Pattern VERSIONING_STATUS = Pattern.compile("<Status>\\s*(\\w+)\\s*</Status>");
  /** Query parameters of ListObjectVersions. */
  private static final Set<String> LIST_VERSIONS_PARAMETERS = Set.of("versions", "prefix", "delimiter", "max-keys",
      "key-marker", "version-id-marker", "encoding-type", "x-id");
  /** The version id S3 gives what is written while versioning is suspended (or was never enabled). */
  private static final String NULL_VERSION = "null";

  private final String bucket;
  private final SyntheticArchive archive;
  private final Duration latency;
  private final int requestsPerSecondPerPrefix;
  private final HttpServer server;
  private final ExecutorService threads;
  /** Buckets created by CreateBucket, beside this one (an empty archive each); empty in such a bucket. */
  private final Map<String, SyntheticS3Server> otherBuckets = new ConcurrentHashMap<>();
  /** S3 Versioning: null until it is set, then ENABLED or SUSPENDED (never off again, as on S3). */
  private volatile Versioning versioning;
  /**
   * Under versioning, every version of each key that has more history than its generated version and one marker, newest
   * first (an empty list: a generated key none of whose versions is left). Keys here are hidden from the generated
   * archive; {@link #written} holds those whose latest version is not a marker (content null: the generated one).
   */
  private final NavigableMap<String, List<Version>> history = new ConcurrentSkipListMap<>();
  /** Under versioning, the one delete marker over a generated key (no history of its own), by position. */
  private final MarkerTable markers = new MarkerTable();
  private final AtomicLong versionSequence = new AtomicLong();
  private final NavigableMap<String, Written> written = new ConcurrentSkipListMap<>();
  private final Set<String> deleted = ConcurrentHashMap.newKeySet();
  private final Map<String, RateWindow> rates = new ConcurrentHashMap<>();
  private volatile LongSupplier rateClock = System::nanoTime;
  private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
  private volatile boolean echoXmlInvalidStartAfter;
  private volatile int emptyTruncatedPages;
  private volatile int shortPages;
  private volatile ContinuationTokens continuationTokens = ContinuationTokens.CORRECT;
  private final Map<String, Duration> listingDelays = new ConcurrentHashMap<>();
  private final Queue<ListingTrigger> listingTriggers = new ConcurrentLinkedQueue<>();
  private final Queue<String> unsupported = new ConcurrentLinkedQueue<>();
  private final DeleteLog deleteLog = new DeleteLog();
  private volatile PartitionModel partitions;

  /** A key's current content; null content: the generated one (a versioned key whose generated version is current). */
  private record Written(byte[] content, String etag, Instant lastModified) {}

  /** S3 Versioning of a bucket, as PutBucketVersioning sets it. */
  public enum Versioning {
    ENABLED("Enabled"),
    SUSPENDED("Suspended");

    private final String status;

    Versioning(String status) {
      this.status = status;
    }

    /** As GetBucketVersioning answers it. */
    public String status() {
      return status;
    }
  }

  /** One version of a key: an object (content null: the generated one) or a delete marker (no content, no ETag). */
  private record Version(String id, boolean marker, byte[] content, String etag, Instant lastModified) {}

  /** An action to run once, before the {@code page}-th listing request of a prefix under {@code prefix} is answered. */
  private static final class ListingTrigger {
    final String prefix;
    final int page;
    final Runnable action;
    final AtomicLong requests = new AtomicLong();

    ListingTrigger(String prefix, int page, Runnable action) {
      this.prefix = prefix;
      this.page = page;
      this.action = action;
    }
  }

  /** Requests of one prefix in the current second. */
  private static final class RateWindow {
    long second;
    int count;
  }

  static {
    // Without TCP_NODELAY, the JDK server's answer waits for the client's delayed ACK: ~40 ms a request.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  public SyntheticS3Server(String bucket, SyntheticArchive archive, Duration latency, int requestsPerSecondPerPrefix)
      throws IOException {
    this.bucket = requireNonNull(bucket, "bucket is null");
    this.archive = requireNonNull(archive, "archive is null");
    this.latency = requireNonNull(latency, "latency is null");
    this.requestsPerSecondPerPrefix = requestsPerSecondPerPrefix;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
    this.threads = Executors.newFixedThreadPool(256, runnable -> {
      Thread thread = new Thread(runnable, "synthetic-s3");
      thread.setDaemon(true);
      return thread;
    });
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A bucket that CreateBucket made: empty, answered by the server that holds it. */
  private SyntheticS3Server(String bucket) {
    this.bucket = bucket;
    this.archive = SyntheticArchive.empty("");
    this.latency = Duration.ZERO;
    this.requestsPerSecondPerPrefix = 0;
    this.server = null;
    this.threads = null;
  }

  /**
   * Turns S3 Versioning on ({@link Versioning#ENABLED}) or suspends it, as PutBucketVersioning does: what was
   * written before is the {@code null} version of its key, a key deleted before has no version.
   */
  public synchronized SyntheticS3Server versioning(Versioning status) {
    requireNonNull(status, "status is null");
    if (versioning == null) {
      written.forEach((key, write) -> history.put(key,
          List.of(new Version(NULL_VERSION, false, write.content, write.etag, write.lastModified))));
      deleted.forEach(key -> history.put(key, List.of()));
      deleted.clear();
    }
    versioning = status;
    return this;
  }

  /** The bucket's versioning, or null when it was never set. */
  public Versioning versioning() {
    return versioning;
  }

  /**
   * Takes writes (DeleteObjects, DeleteObject, PUT) as {@code model}'s partitions do, answering 503 SlowDown above
   * their capacity (counted as SLOWDOWN); null takes every write.
   */
  public SyntheticS3Server partitions(PartitionModel model) {
    this.partitions = model;
    return this;
  }

  /** A write the partitions refuse: answered 503 SlowDown, counted as SLOWDOWN and SLOWDOWN_{operation}. */
  private boolean refusedByPartitions(HttpExchange exchange, String operation, List<String> keys) throws IOException {
    PartitionModel model = partitions;
    if (model == null || model.admit(keys)) {
      return false;
    }
    count("SLOWDOWN");
    // Keys outside the archive (the ledger's, the lock's, the exporter's own folder is inside) counted apart.
    count("SLOWDOWN_" + operation + (keys.isEmpty() || keys.get(0).startsWith(archive.prefix()) ? ""
        : "_OUTSIDE_ARCHIVE"));
    error(exchange, 503, "SlowDown", "Please reduce your request rate.", true);
    return true;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public SyntheticArchive archive() {
    return archive;
  }

  /**
   * Requests answered so far, by operation: LIST (V2), LIST_V1, GET, HEAD, PUT, DELETE (DeleteObjects),
   * DELETE_OBJECT, DELETE_VERSION (DeleteObject with a version id), LIST_VERSIONS, GET_VERSIONING, PUT_VERSIONING,
   * CREATE_BUCKET, HEAD_BUCKET, LOCATION, LIST_UPLOADS, LIST_BUCKETS, OTHER (answered 501); throttled
   * ones as SLOWDOWN, and those {@link #partitions} refused also as SLOWDOWN_PUT, SLOWDOWN_DELETE (DeleteObjects) or
   * SLOWDOWN_DELETE_OBJECT, with _OUTSIDE_ARCHIVE after it for keys outside the archive's prefix.
   */
  public Map<String, Long> requestCounts() {
    Map<String, Long> counts = new HashMap<>();
    requests.forEach((operation, count) -> counts.put(operation, count.get()));
    return counts;
  }

  /**
   * S3 echoes a ListObjectsV2 request's StartAfter in its answer, characters that XML 1.0 cannot carry
   * (U+FFFF, control characters) included, so that no XML parser reads the answer unless the request
   * asked for {@code encoding-type=url}. By default this server leaves such a StartAfter out of its
   * answer (the one place it departs from S3 on purpose, so that clients that do not ask for URL
   * encoding keep working here); {@code true} answers as S3 does.
   */
  public SyntheticS3Server echoXmlInvalidStartAfter(boolean echo) {
    this.echoXmlInvalidStartAfter = echo;
    return this;
  }

  /**
   * Answers {@code run} empty truncated ListObjectsV2 pages (no keys, IsTruncated true, a continuation
   * token) before every page that holds keys, and before the last page: S3 answers such pages, for
   * example over runs of delete markers on a versioned bucket. 1 makes every other page empty; 0 (the
   * default) answers none.
   */
  public SyntheticS3Server emptyTruncatedPages(int run) {
    if (run < 0) {
      throw new IllegalArgumentException("run must not be negative: " + run);
    }
    this.emptyTruncatedPages = run;
    return this;
  }

  /**
   * Answers ListObjectsV2 pages of fewer entries (keys and common prefixes) than max-keys asks: between
   * 1 and {@code keys}, varying with where the page starts, truncated while more follow. S3 may answer
   * fewer keys than asked. 0 (the default) answers max-keys.
   */
  public SyntheticS3Server shortPages(int keys) {
    if (keys < 0) {
      throw new IllegalArgumentException("keys must not be negative: " + keys);
    }
    this.shortPages = keys;
    return this;
  }

  /** How a truncated ListObjectsV2 page tells where the listing goes on. */
  public enum ContinuationTokens {
    /** A NextContinuationToken that lists the next page, as S3 answers. */
    CORRECT,
    /** No NextContinuationToken at all: a broken store. */
    MISSING,
    /** The first page answers a token; every later page answers the token it was asked with: a store that loops. */
    REPEATED
  }

  /** Breaks the continuation of ListObjectsV2 listings on purpose ({@link ContinuationTokens#CORRECT} by default). */
  /**
   * The clock, in nanoseconds, whose seconds the per-prefix request rate counts in ({@code System::nanoTime}
   * unless set): a test that sets one decides which requests share a second.
   */
  public SyntheticS3Server rateClock(LongSupplier nanoTime) {
    this.rateClock = requireNonNull(nanoTime, "nanoTime is null");
    return this;
  }

  public SyntheticS3Server continuationTokens(ContinuationTokens tokens) {
    this.continuationTokens = requireNonNull(tokens, "tokens is null");
    return this;
  }

  /**
   * Answers every listing request (ListObjectsV2 or V1) whose prefix starts with {@code prefix} {@code delay}
   * later than others (on top of the latency): a store slow under a large folder. {@link Duration#ZERO} ends it.
   */
  public SyntheticS3Server delayListings(String prefix, Duration delay) {
    requireNonNull(prefix, "prefix is null");
    if (requireNonNull(delay, "delay is null").isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    if (delay.isZero()) {
      listingDelays.remove(prefix);
    } else {
      listingDelays.put(prefix, delay);
    }
    return this;
  }

  /**
   * Runs {@code action} once, on the server's thread, before it answers the {@code page}-th listing request
   * (1 for the first) whose prefix starts with {@code prefix}, after that request's delay: something that
   * happens while a client pages through a folder.
   */
  public SyntheticS3Server whenListed(String prefix, int page, Runnable action) {
    if (page < 1) {
      throw new IllegalArgumentException("page must be at least 1: " + page);
    }
    listingTriggers.add(new ListingTrigger(requireNonNull(prefix, "prefix is null"), page,
        requireNonNull(action, "action is null")));
    return this;
  }

  /** The first (up to 20) requests answered 501 NotImplemented: method and URI. */
  public List<String> unsupportedRequests() {
    return List.copyOf(unsupported);
  }

  /** Clears the request counts and the {@link #deleteLog()}. */
  public void resetCounts() {
    requests.clear();
    deleteLog.clear();
  }

  /** When each key was deleted here, and each record's state file first read, since {@link #resetCounts}. */
  public DeleteLog deleteLog() {
    return deleteLog;
  }

  /**
   * The archive's keys deleted here and not written again since (under versioning: whose latest version is a delete
   * marker, or that have no version left), as a count and a digest.
   */
  public KeyDigest deletedKeys() {
    KeyDigest digest = new KeyDigest();
    deleted.forEach(digest::add);
    markers.forEach(code -> digest.add(archive.key(code >>> FILE_BITS, (int) (code & FILE_MASK))));
    history.forEach((key, versions) -> {
      if (archive.position(key) != null && !written.containsKey(key)) {
        digest.add(key);
      }
    });
    return digest;
  }

  /** Rewrites a key as the exporter would: new content, a new ETag, LastModified now. */
  public void put(String key, byte[] content) {
    put(key, content, Instant.now());
  }

  /**
   * Writes a key with a chosen LastModified. As on S3, listings show it to the millisecond and the
   * Last-Modified header of GET and HEAD in whole seconds; the ETag is the content's MD5, so a
   * byte-identical rewrite keeps its ETag and changes only its time.
   */
  public void put(String key, byte[] content, Instant lastModified) {
    write(key, content, md5(content), lastModified);
  }

  /** Writes a key: its new current version, whose id it answers (null without versioning). */
  private synchronized String write(String key, byte[] content, String etag, Instant lastModified) {
    if (versioning == null) {
      written.put(key, new Written(content, etag, lastModified));
      deleted.remove(key);
      return null;
    }
    List<Version> versions = new ArrayList<>(versionsOf(key));
    String id = nextVersionId(versions);
    versions.add(0, new Version(id, false, content, etag, lastModified));
    setVersions(key, versions);
    return id;
  }

  /**
   * The id of a version about to go on top of {@code versions}: a new one, or while versioning is suspended
   * {@code null}, whose earlier version (object or marker) it replaces, as S3 does.
   */
  private String nextVersionId(List<Version> versions) {
    if (versioning == Versioning.SUSPENDED) {
      versions.removeIf(version -> version.id().equals(NULL_VERSION));
      return NULL_VERSION;
    }
    return versionId(versionSequence.incrementAndGet());
  }

  private static String versionId(long sequence) {
    String digits = Long.toString(sequence, 36);
    return "v" + "0".repeat(Math.max(0, 12 - digits.length())) + digits;
  }

  /** A delete without a version id under versioning: a delete marker on top of the key; its id. */
  private synchronized String writeMarker(String key) {
    logDeleted(key);
    SyntheticArchive.Position position = archive.position(key);
    Instant now = Instant.now();
    if (versioning == Versioning.ENABLED && position != null && !history.containsKey(key)
        && !markers.contains(code(position))) {
      // The common case, kept small: a generated key's first marker.
      long sequence = versionSequence.incrementAndGet();
      markers.put(code(position), sequence, now.toEpochMilli());
      return versionId(sequence);
    }
    List<Version> versions = new ArrayList<>(versionsOf(key));
    String id = nextVersionId(versions);
    versions.add(0, new Version(id, true, null, null, now));
    setVersions(key, versions);
    return id;
  }

  /** Removes version {@code id} of a key for good: the version removed, or null when the key has none of that id. */
  private synchronized Version removeVersion(String key, String id) {
    SyntheticArchive.Position position = archive.position(key);
    if (position != null && !history.containsKey(key)) {
      long[] marker = markers.get(code(position));
      if (marker != null && versionId(marker[0]).equals(id)) {
        markers.remove(code(position));
        return new Version(id, true, null, null, Instant.ofEpochMilli(marker[1]));
      }
    }
    List<Version> versions = new ArrayList<>(versionsOf(key));
    for (int i = 0; i < versions.size(); i++) {
      if (versions.get(i).id().equals(id)) {
        Version removed = versions.remove(i);
        setVersions(key, versions);
        return removed;
      }
    }
    return null;
  }

  /** A key's versions from now on, newest first; {@link #written} follows its latest. */
  private void setVersions(String key, List<Version> versions) {
    SyntheticArchive.Position position = archive.position(key);
    if (versions.isEmpty() && position == null) {
      history.remove(key);
    } else {
      history.put(key, List.copyOf(versions));
    }
    if (position != null) {
      markers.remove(code(position));
    }
    Version latest = versions.isEmpty() ? null : versions.get(0);
    if (latest == null || latest.marker()) {
      written.remove(key);
    } else {
      written.put(key, new Written(latest.content(), latest.etag(), latest.lastModified()));
    }
  }

  /**
   * A key's versions, newest first: its history, else the generated version (under its marker, if any); without
   * versioning, the current object as the {@code null} version.
   */
  private List<Version> versionsOf(String key) {
    List<Version> listed = history.get(key);
    if (listed != null) {
      return listed;
    }
    if (versioning == null) {
      Stored current = lookup(key);
      return current == null ? List.of()
          : List.of(new Version(NULL_VERSION, false, current.content, current.etag, current.lastModified));
    }
    SyntheticArchive.Position position = archive.position(key);
    if (position == null) {
      return List.of();
    }
    Version generated = new Version("g" + Long.toString(code(position), 36), false, null,
        archive.etag(position.record(), position.file()), archive.lastModified(position.record(), position.file()));
    long[] marker = markers.get(code(position));
    return marker == null ? List.of(generated)
        : List.of(new Version(versionId(marker[0]), true, null, null, Instant.ofEpochMilli(marker[1])), generated);
  }

  private static final int FILE_BITS = 24;
  private static final long FILE_MASK = (1L << FILE_BITS) - 1;

  /** A generated key's position as one number: its record and its file. */
  private static long code(SyntheticArchive.Position position) {
    return position.record() << FILE_BITS | position.file();
  }

  /** Whether versioning hides a generated key: its history (then {@link #written} shows it, if anything) or a marker. */
  private boolean hiddenByVersions(String key, SyntheticArchive.Position position) {
    return versioning != null && (history.containsKey(key) || markers.contains(code(position)));
  }

  /**
   * Positions of generated keys to the one delete marker over each (its sequence number and time), in three arrays of
   * an open-addressing table: 2,000,000 markers take about 100 MB, where a map of objects would take three times that.
   */
  private static final class MarkerTable {
    private long[] codes = new long[1 << 10]; // code + 1; 0 is an empty slot
    private long[] sequences = new long[1 << 10];
    private long[] millis = new long[1 << 10];
    private int size;

    synchronized boolean contains(long code) {
      return size > 0 && slot(code) >= 0;
    }

    /** {sequence, millis}, or null. */
    synchronized long[] get(long code) {
      int slot = size == 0 ? -1 : slot(code);
      return slot < 0 ? null : new long[] {sequences[slot], millis[slot]};
    }

    synchronized void put(long code, long sequence, long at) {
      if ((size + 1) * 2 > codes.length) {
        grow();
      }
      int slot = slot(code);
      if (slot < 0) {
        slot = -slot - 1;
        codes[slot] = code + 1;
        size++;
      }
      sequences[slot] = sequence;
      millis[slot] = at;
    }

    synchronized void remove(long code) {
      int slot = size == 0 ? -1 : slot(code);
      if (slot < 0) {
        return;
      }
      int mask = codes.length - 1;
      codes[slot] = 0;
      size--;
      // Backward shift: an entry after the hole that its probe would not find any more moves into it.
      for (int next = (slot + 1) & mask; codes[next] != 0; next = (next + 1) & mask) {
        int home = home(codes[next] - 1);
        boolean reachable = slot <= next ? home > slot && home <= next : home > slot || home <= next;
        if (!reachable) {
          codes[slot] = codes[next];
          sequences[slot] = sequences[next];
          millis[slot] = millis[next];
          codes[next] = 0;
          slot = next;
        }
      }
    }

    synchronized int size() {
      return size;
    }

    synchronized void forEach(java.util.function.LongConsumer action) {
      for (long stored : codes) {
        if (stored != 0) {
          action.accept(stored - 1);
        }
      }
    }

    /** The slot of {@code code}, or {@code -(free slot) - 1}. */
    private int slot(long code) {
      int mask = codes.length - 1;
      for (int slot = home(code); ; slot = (slot + 1) & mask) {
        if (codes[slot] == 0) {
          return -slot - 1;
        }
        if (codes[slot] == code + 1) {
          return slot;
        }
      }
    }

    private int home(long code) {
      long h = code * 0x9E3779B97F4A7C15L;
      return (int) (h ^ (h >>> 32)) & (codes.length - 1);
    }

    private void grow() {
      long[] oldCodes = codes;
      long[] oldSequences = sequences;
      long[] oldMillis = millis;
      codes = new long[oldCodes.length * 2];
      sequences = new long[codes.length];
      millis = new long[codes.length];
      for (int i = 0; i < oldCodes.length; i++) {
        if (oldCodes[i] != 0) {
          int slot = -slot(oldCodes[i] - 1) - 1;
          codes[slot] = oldCodes[i];
          sequences[slot] = oldSequences[i];
          millis[slot] = oldMillis[i];
        }
      }
    }
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  private void count(String operation) {
    requests.computeIfAbsent(operation, o -> new AtomicLong()).incrementAndGet();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!latency.isZero()) {
        Thread.sleep(latency.toMillis());
      }
      // The path's percent-escapes decoded, a '+' kept as it is (it is not a space in a path).
      String path = exchange.getRequestURI().getPath();
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      String method = exchange.getRequestMethod();
      if (path.equals("/") || path.isEmpty()) {
        count("LIST_BUCKETS");
        listBuckets(exchange);
        return;
      }
      int slash = path.indexOf('/', 1);
      String name = slash < 0 ? path.substring(1) : path.substring(1, slash);
      String key = slash < 0 ? "" : path.substring(slash + 1);
      if (key.isEmpty() && method.equals("PUT") && query.isEmpty()) {
        // CreateBucket: in us-east-1, S3 answers 200 to the owner of a bucket that exists already.
        count("CREATE_BUCKET");
        if (!name.equals(bucket)) {
          otherBuckets.computeIfAbsent(name, SyntheticS3Server::new);
        }
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().set("Location", "/" + name);
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      SyntheticS3Server target = name.equals(bucket) ? this : otherBuckets.get(name);
      if (target == null) {
        error(exchange, 404, "NoSuchBucket", "The specified bucket does not exist", !"HEAD".equals(method));
        return;
      }
      target.answer(exchange, method, key, query);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      error(exchange, 500, "InternalError", String.valueOf(e));
    }
  }

  /** A request to this bucket: {@code key} empty for the bucket itself. */
  private void answer(HttpExchange exchange, String method, String key, Map<String, String> query)
      throws IOException, InterruptedException {
    String operation = key.isEmpty() ? bucketOperation(method, query) : objectOperation(method, query);
    if (throttled(key.isEmpty() ? query.getOrDefault("prefix", "") : key)) {
      count("SLOWDOWN");
      error(exchange, 503, "SlowDown", "Please reduce your request rate.", !"HEAD".equals(method));
      return;
    }
    count(operation);
    switch (operation) {
      case "LIST" -> {
        beforeListing(query.getOrDefault("prefix", ""));
        list(exchange, query);
      }
      case "LIST_V1" -> {
        beforeListing(query.getOrDefault("prefix", ""));
        listV1(exchange, query);
      }
      case "HEAD_BUCKET" -> {
        exchange.getResponseHeaders().set("x-amz-bucket-region", REGION);
        exchange.sendResponseHeaders(200, -1);
      }
      case "LOCATION" -> send(exchange, 200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          // us-east-1 is the empty constraint, as S3 answers it.
          + "<LocationConstraint xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"/>");
      case "LIST_UPLOADS" -> send(exchange, 200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          + "<ListMultipartUploadsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>" + bucket
          + "</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><Prefix>"
          + escape(query.getOrDefault("prefix", "")) + "</Prefix><MaxUploads>1000</MaxUploads>"
          + "<IsTruncated>false</IsTruncated></ListMultipartUploadsResult>");
      case "GET" -> get(exchange, key, query.get("versionId"), true);
      case "HEAD" -> get(exchange, key, query.get("versionId"), false);
      case "PUT" -> put(exchange, key);
      case "DELETE" -> deleteObjects(exchange);
      case "DELETE_OBJECT", "DELETE_VERSION" -> deleteObject(exchange, key, query.get("versionId"));
      case "LIST_VERSIONS" -> listVersions(exchange, query);
      case "GET_VERSIONING" -> {
        Versioning status = versioning;
        send(exchange, 200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            + (status == null ? "" : "<Status>" + status.status() + "</Status>") + "</VersioningConfiguration>");
      }
      case "PUT_VERSIONING" -> {
        Matcher status = VERSIONING_STATUS.matcher(new String(body(exchange), StandardCharsets.UTF_8));
        Versioning asked = null;
        for (Versioning candidate : Versioning.values()) {
          if (status.find(0) && candidate.status().equals(status.group(1))) {
            asked = candidate;
          }
        }
        if (asked == null) {
          error(exchange, 400, "MalformedXML", "The XML you provided was not well-formed or did not validate");
          return;
        }
        versioning(asked);
        exchange.sendResponseHeaders(200, -1);
      }
      default -> {
        if (unsupported.size() < 20) {
          unsupported.add(method + " " + exchange.getRequestURI());
        }
        error(exchange, 501, "NotImplemented",
            "A header or query you provided implies functionality that is not implemented", !"HEAD".equals(method));
      }
    }
  }

  /** The listing's delay ({@link #delayListings}) and its triggers ({@link #whenListed}). */
  private void beforeListing(String prefix) throws InterruptedException {
    long delay = 0;
    for (Map.Entry<String, Duration> entry : listingDelays.entrySet()) {
      if (prefix.startsWith(entry.getKey())) {
        delay = Math.max(delay, entry.getValue().toMillis());
      }
    }
    if (delay > 0) {
      Thread.sleep(delay);
    }
    for (ListingTrigger trigger : listingTriggers) {
      if (prefix.startsWith(trigger.prefix) && trigger.requests.incrementAndGet() == trigger.page) {
        trigger.action.run();
      }
    }
  }

  /** The operation on the bucket itself: its name is the counter's too. */
  private static String bucketOperation(String method, Map<String, String> query) {
    return switch (method) {
      case "HEAD" -> "HEAD_BUCKET";
      case "GET" -> {
        if (query.containsKey("location")) {
          yield "LOCATION";
        }
        if (query.containsKey("uploads")) {
          yield "LIST_UPLOADS";
        }
        if (query.containsKey("versioning")) {
          yield "GET_VERSIONING";
        }
        if (query.containsKey("versions")) {
          yield LIST_VERSIONS_PARAMETERS.containsAll(query.keySet()) ? "LIST_VERSIONS" : "OTHER";
        }
        if (!LIST_PARAMETERS.containsAll(query.keySet())) {
          yield "OTHER";
        }
        yield "2".equals(query.get("list-type")) ? "LIST" : "LIST_V1";
      }
      case "POST" -> query.containsKey("delete") ? "DELETE" : "OTHER";
      case "PUT" -> query.containsKey("versioning") ? "PUT_VERSIONING" : "OTHER";
      default -> "OTHER";
    };
  }

  private static String objectOperation(String method, Map<String, String> query) {
    boolean versionId = query.containsKey("versionId") && !method.equals("PUT");
    if (!Set.of("x-id", "versionId").containsAll(query.keySet()) || (query.containsKey("versionId") && !versionId)) {
      return "OTHER"; // ?acl, ?tagging, ?uploads, ?partNumber...: not implemented here.
    }
    return switch (method) {
      case "GET" -> "GET";
      case "HEAD" -> "HEAD";
      case "PUT" -> "PUT";
      case "DELETE" -> versionId ? "DELETE_VERSION" : "DELETE_OBJECT";
      default -> "OTHER";
    };
  }

  private void listBuckets(HttpExchange exchange) throws IOException {
    send(exchange, 200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Owner><ID>synthetic</ID>"
        + "<DisplayName>synthetic</DisplayName></Owner><Buckets>" + bucketEntry(bucket)
        + String.join("", otherBuckets.keySet().stream().sorted().map(SyntheticS3Server::bucketEntry).toList())
        + "</Buckets></ListAllMyBucketsResult>");
  }

  private static String bucketEntry(String name) {
    return "<Bucket><Name>" + name + "</Name><CreationDate>" + XML_DATE.format(SyntheticArchive.BASE)
        + "</CreationDate></Bucket>";
  }

  private boolean throttled(String keyOrPrefix) {
    if (requestsPerSecondPerPrefix <= 0) {
      return false;
    }
    String[] segments = keyOrPrefix.split("/", 4);
    String partition = segments.length >= 3 ? segments[0] + "/" + segments[1] + "/" + segments[2] : keyOrPrefix;
    RateWindow window = rates.computeIfAbsent(partition, p -> new RateWindow());
    long second = rateClock.getAsLong() / 1_000_000_000L;
    synchronized (window) {
      if (window.second != second) {
        window.second = second;
        window.count = 0;
      }
      return ++window.count > requestsPerSecondPerPrefix;
    }
  }

  /** The visible version of a key, or null. */
  private Stored lookup(String key) {
    Written write = written.get(key);
    if (write != null) {
      return new Stored(key, write.etag, write.lastModified, write.content);
    }
    if (deleted.contains(key) || (versioning != null && history.containsKey(key))) {
      return null;
    }
    SyntheticArchive.Position position = archive.position(key);
    if (position == null || hiddenByVersions(key, position)) {
      return null;
    }
    return generated(position);
  }

  private Stored generated(SyntheticArchive.Position position) {
    return new Stored(archive.key(position.record(), position.file()), archive.etag(position.record(), position.file()),
        archive.lastModified(position.record(), position.file()), null);
  }

  private long size(Stored stored) {
    if (stored.content != null) {
      return stored.content.length;
    }
    SyntheticArchive.Position position = archive.position(stored.key);
    return archive.size(position.record(), position.file());
  }

  private record Stored(String key, String etag, Instant lastModified, byte[] content) {}

  private void get(HttpExchange exchange, String key, String versionId, boolean body) throws IOException {
    if (body && key.endsWith("state.json")) {
      deleteLog.stateFileRead(key, System.nanoTime());
    }
    Stored stored;
    if (versioning == null) {
      if (versionId != null && !versionId.equals(NULL_VERSION)) {
        error(exchange, 400, "InvalidArgument", "Invalid version id specified", body);
        return;
      }
      stored = lookup(key);
    } else {
      List<Version> versions = versionsOf(key);
      Version version = versions.isEmpty() ? null : versions.get(0);
      if (versionId != null) {
        version = versions.stream().filter(candidate -> candidate.id().equals(versionId)).findFirst().orElse(null);
        if (version == null) {
          error(exchange, 404, "NoSuchVersion", "The specified version does not exist.", body);
          return;
        }
      }
      if (version != null && version.marker()) {
        exchange.getResponseHeaders().set("x-amz-delete-marker", "true");
        exchange.getResponseHeaders().set("x-amz-version-id", version.id());
        if (versionId != null) {
          error(exchange, 405, "MethodNotAllowed", "The specified method is not allowed against this resource.", body);
          return;
        }
        version = null;
      }
      if (version != null) {
        exchange.getResponseHeaders().set("x-amz-version-id", version.id());
      }
      stored = version == null ? null : new Stored(key, version.etag(), version.lastModified(), version.content());
    }
    if (stored == null) {
      error(exchange, 404, "NoSuchKey", "The specified key does not exist.", body);
      return;
    }
    String ifMatch = exchange.getRequestHeaders().getFirst("If-Match");
    if (ifMatch != null && !unquote(ifMatch).equals(stored.etag)) {
      error(exchange, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", body);
      return;
    }
    exchange.getResponseHeaders().set("ETag", "\"" + stored.etag + "\"");
    exchange.getResponseHeaders().set("Last-Modified", HTTP_DATE.format(stored.lastModified));
    exchange.getResponseHeaders().set("Accept-Ranges", "bytes");
    String ifNoneMatch = exchange.getRequestHeaders().getFirst("If-None-Match");
    if (ifNoneMatch != null && (ifNoneMatch.trim().equals("*") || unquote(ifNoneMatch).equals(stored.etag))) {
      exchange.sendResponseHeaders(304, -1);
      return;
    }
    long size = size(stored);
    exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
    long[] range = range(exchange.getRequestHeaders().getFirst("Range"), size);
    if (range != null && range.length == 0) {
      exchange.getResponseHeaders().set("Content-Range", "bytes */" + size);
      error(exchange, 416, "InvalidRange", "The requested range is not satisfiable", body);
      return;
    }
    long from = range == null ? 0 : range[0];
    long length = range == null ? size : range[1] - range[0] + 1;
    int status = range == null ? 200 : 206;
    if (range != null) {
      exchange.getResponseHeaders().set("Content-Range", "bytes " + range[0] + "-" + range[1] + "/" + size);
    }
    if (body) {
      exchange.sendResponseHeaders(status, length == 0 ? -1 : length);
      // A big state file is generated as it goes out: never held whole.
      try (OutputStream out = exchange.getResponseBody(); InputStream in = open(stored)) {
        in.skipNBytes(from);
        byte[] buffer = new byte[64 * 1024];
        for (long left = length; left > 0; ) {
          int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
          if (read < 0) {
            throw new IOException("the content of " + stored.key + " ended " + left + " bytes early");
          }
          out.write(buffer, 0, read);
          left -= read;
        }
      }
    } else {
      exchange.getResponseHeaders().set("Content-Length", Long.toString(length));
      exchange.sendResponseHeaders(status, -1);
    }
  }

  /** An object's bytes as a stream: held ones, or generated ones as they are read. */
  private InputStream open(Stored stored) {
    if (stored.content != null) {
      return new ByteArrayInputStream(stored.content);
    }
    SyntheticArchive.Position position = archive.position(stored.key);
    return archive.stream(position.record(), position.file());
  }

  /**
   * A single byte range as S3 reads it: null for no (or an unparsable, or a multi-range) header,
   * which S3 answers with the whole object; an empty array when it is not satisfiable (416); else the
   * first and last byte, clipped to the object.
   */
  static long[] range(String header, long size) {
    if (header == null) {
      return null;
    }
    Matcher matcher = RANGE.matcher(header.trim());
    if (!matcher.matches() || (matcher.group(1).isEmpty() && matcher.group(2).isEmpty())) {
      return null;
    }
    long first;
    long last;
    if (matcher.group(1).isEmpty()) {
      long suffix = Long.parseLong(matcher.group(2));
      if (suffix == 0 || size == 0) {
        return new long[0];
      }
      first = Math.max(0, size - suffix);
      last = size - 1;
    } else {
      first = Long.parseLong(matcher.group(1));
      long requestedLast = matcher.group(2).isEmpty() ? Long.MAX_VALUE : Long.parseLong(matcher.group(2));
      if (requestedLast < first) {
        return null; // bytes=5-3 is invalid: ignored, the whole object (RFC 9110)
      }
      if (first >= size) {
        return new long[0];
      }
      last = Math.min(size - 1, requestedLast);
    }
    return new long[] {first, last};
  }

  /**
   * The payload of an {@code aws-chunked} body, as S3 stores it: chunks of {@code <hex size>[;chunk-signature=...]\r\n
   * <bytes>\r\n} up to a chunk of size 0 (trailers after it, such as a checksum, are left out).
   */
  public static byte[] decodeAwsChunked(byte[] body) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(body.length);
    int at = 0;
    while (at < body.length) {
      int lineEnd = indexOf(body, at);
      if (lineEnd < 0) {
        throw new IllegalArgumentException("aws-chunked body without a chunk header at byte " + at);
      }
      String header = new String(body, at, lineEnd - at, StandardCharsets.US_ASCII);
      int semicolon = header.indexOf(';');
      int size = Integer.parseInt((semicolon < 0 ? header : header.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        break;
      }
      out.write(body, lineEnd + 2, size);
      at = lineEnd + 2 + size + 2;
    }
    return out.toByteArray();
  }

  private static int indexOf(byte[] body, int from) {
    for (int i = from; i + 1 < body.length; i++) {
      if (body[i] == '\r' && body[i + 1] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /**
   * DeleteObject: 204 whether or not the key existed; with If-Match, 412 on another ETag, 404 when gone. Under
   * versioning it writes a delete marker (x-amz-delete-marker, x-amz-version-id), and with a version id it removes that
   * version for good (a marker's removal answers x-amz-delete-marker too).
   */
  private void deleteObject(HttpExchange exchange, String key, String versionId) throws IOException {
    if (refusedByPartitions(exchange, versionId == null ? "DELETE_OBJECT" : "DELETE_VERSION", List.of(key))) {
      return;
    }
    String ifMatch = exchange.getRequestHeaders().getFirst("If-Match");
    synchronized (this) {
      if (versionId != null && versioning == null && !versionId.equals(NULL_VERSION)) {
        error(exchange, 400, "InvalidArgument", "Invalid version id specified");
        return;
      }
      if (versionId != null && versioning != null) {
        Version removed = removeVersion(key, versionId);
        exchange.getResponseHeaders().set("x-amz-version-id", versionId);
        if (removed != null && removed.marker()) {
          exchange.getResponseHeaders().set("x-amz-delete-marker", "true");
        }
        exchange.sendResponseHeaders(204, -1);
        return;
      }
      Stored stored = lookup(key);
      if (ifMatch != null && stored == null) {
        error(exchange, 404, "NoSuchKey", "The specified key does not exist.");
        return;
      }
      if (ifMatch != null && !unquote(ifMatch).equals(stored.etag)) {
        error(exchange, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
        return;
      }
      if (versioning != null) {
        exchange.getResponseHeaders().set("x-amz-delete-marker", "true");
        exchange.getResponseHeaders().set("x-amz-version-id", writeMarker(key));
      } else if (stored != null) {
        remove(key);
      }
    }
    exchange.sendResponseHeaders(204, -1);
  }

  /** The archive's keys only: statesweep's own objects beside it (its ledger, its probe) are not what it cleans. */
  private void logDeleted(String key) {
    if (key.startsWith(archive.prefix())) {
      deleteLog.deleted(key, System.nanoTime());
    }
  }

  private void remove(String key) {
    logDeleted(key);
    written.remove(key);
    if (archive.position(key) != null) {
      deleted.add(key);
    }
  }

  /** A request's body, an {@code aws-chunked} one decoded. */
  private static byte[] body(HttpExchange exchange) throws IOException {
    byte[] content = exchange.getRequestBody().readAllBytes();
    String payload = exchange.getRequestHeaders().getFirst("x-amz-content-sha256");
    String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
    if ((payload != null && payload.startsWith("STREAMING-")) || (encoding != null && encoding.contains("aws-chunked"))) {
      return decodeAwsChunked(content);
    }
    return content;
  }

  private void put(HttpExchange exchange, String key) throws IOException {
    byte[] content = body(exchange);
    if (refusedByPartitions(exchange, "PUT", List.of(key))) {
      return;
    }
    String etag = md5(content);
    String version;
    String ifNoneMatch = exchange.getRequestHeaders().getFirst("If-None-Match");
    String ifMatch = exchange.getRequestHeaders().getFirst("If-Match");
    synchronized (this) {
      Stored current = lookup(key);
      if ("*".equals(ifNoneMatch) && current != null) {
        error(exchange, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
        return;
      }
      if (ifMatch != null && current == null) {
        error(exchange, 404, "NoSuchKey", "The specified key does not exist.");
        return;
      }
      if (ifMatch != null && !unquote(ifMatch).equals(current.etag)) {
        error(exchange, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
        return;
      }
      version = write(key, content, etag, Instant.now());
    }
    exchange.getResponseHeaders().set("ETag", "\"" + etag + "\"");
    if (version != null) {
      exchange.getResponseHeaders().set("x-amz-version-id", version);
    }
    exchange.sendResponseHeaders(200, -1);
  }

  /** One object of a DeleteObjects request: its key, and its ETag and version id when it names them. */
  private record Deletion(String key, String etag, String versionId) {}

  /**
   * DeleteObjects: per key, a PreconditionFailed error when it names another ETag than the current one; under
   * versioning, a delete marker (named in the verbose answer) or, with a version id, that version removed for good.
   */
  private void deleteObjects(HttpExchange exchange) throws IOException {
    String body = new String(body(exchange), StandardCharsets.UTF_8);
    boolean quiet = body.contains("<Quiet>true</Quiet>");
    List<Deletion> deletions = new ArrayList<>();
    Matcher object = OBJECT.matcher(body);
    while (object.find()) {
      Matcher key = OBJECT_KEY.matcher(object.group(1));
      if (key.find()) {
        Matcher etag = OBJECT_ETAG.matcher(object.group(1));
        Matcher version = OBJECT_VERSION.matcher(object.group(1));
        deletions.add(new Deletion(unescape(key.group(1)), etag.find() ? unquote(unescape(etag.group(1))) : null,
            version.find() ? unescape(version.group(1)) : null));
      }
    }
    if (partitions != null && refusedByPartitions(exchange, "DELETE", deletions.stream().map(Deletion::key).toList())) {
      return;
    }
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    for (Deletion deletion : deletions) {
      String key = deletion.key();
      String answer; // what the Deleted entry says beside the key
      synchronized (this) {
        if (deletion.versionId() != null && versioning != null) {
          Version removed = removeVersion(key, deletion.versionId());
          answer = "<VersionId>" + escape(deletion.versionId()) + "</VersionId>" + (removed != null && removed.marker()
              ? "<DeleteMarker>true</DeleteMarker><DeleteMarkerVersionId>" + escape(removed.id())
                  + "</DeleteMarkerVersionId>" : "");
        } else {
          Stored stored = lookup(key);
          if (stored != null && deletion.etag() != null && !deletion.etag().equals(stored.etag)) {
            xml.append("<Error><Key>").append(escape(key)).append("</Key><Code>PreconditionFailed</Code><Message>")
                .append("At least one of the pre-conditions you specified did not hold</Message></Error>");
            continue;
          }
          if (versioning != null && (stored != null || deletion.etag() == null)) {
            // As on S3, a key without a current version gets a marker too; one whose ETag is asked for does not.
            answer = "<DeleteMarker>true</DeleteMarker><DeleteMarkerVersionId>" + writeMarker(key)
                + "</DeleteMarkerVersionId>";
          } else {
            if (stored != null) {
              remove(key);
            }
            answer = deletion.versionId() == null ? "" : "<VersionId>" + NULL_VERSION + "</VersionId>";
          }
        }
      }
      if (!quiet) {
        xml.append("<Deleted><Key>").append(escape(key)).append("</Key>").append(answer).append("</Deleted>");
      }
    }
    xml.append("</DeleteResult>");
    send(exchange, 200, xml.toString());
  }

  /**
   * ListObjectVersions: every version and delete marker of each key, keys in order and a key's newest first, paged by
   * key-marker and version-id-marker (the next page starts after that version of that key, or after every version of
   * the key when no version id is given); with a delimiter, common prefixes as ListObjectsV2 rolls them up.
   */
  private void listVersions(HttpExchange exchange, Map<String, String> query) throws IOException {
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = emptyToNull(query.get("delimiter"));
    boolean url = "url".equals(query.get("encoding-type"));
    int maxKeys = maxKeys(query);
    String keyMarker = emptyToNull(query.get("key-marker"));
    String versionIdMarker = keyMarker == null ? null : emptyToNull(query.get("version-id-marker"));
    String from = keyMarker != null && keyMarker.compareTo(prefix) > 0 ? keyMarker : prefix;
    if (keyMarker != null && delimiter != null && keyMarker.startsWith(prefix) && keyMarker.endsWith(delimiter)
        && keyMarker.indexOf(delimiter, prefix.length()) == keyMarker.length() - delimiter.length()) {
      from = keyMarker + MAX; // the common prefix a page ended on
    }
    StringBuilder entries = new StringBuilder();
    int count = 0;
    boolean truncated = false;
    String lastKey = null;
    String lastVersion = null;
    VersionedKeys keys = new VersionedKeys(from);
    listing:
    while (maxKeys > 0 && keys.hasNext()) {
      String key = keys.next();
      if (!key.startsWith(prefix)) {
        if (key.compareTo(prefix) > 0) {
          break;
        }
        continue;
      }
      boolean atMarker = key.equals(keyMarker);
      if (atMarker && versionIdMarker == null) {
        continue;
      }
      int at = delimiter == null ? -1 : key.indexOf(delimiter, prefix.length());
      if (at >= 0) {
        if (count == maxKeys) {
          truncated = true;
          break;
        }
        String common = key.substring(0, at + delimiter.length());
        entries.append("<CommonPrefixes><Prefix>").append(text(common, url)).append("</Prefix></CommonPrefixes>");
        count++;
        lastKey = common;
        lastVersion = null;
        keys.skipTo(common + MAX);
        continue;
      }
      List<Version> versions = versionsOf(key);
      int first = 0;
      if (atMarker) {
        first = versions.size();
        for (int i = 0; i < versions.size(); i++) {
          first = versions.get(i).id().equals(versionIdMarker) ? i + 1 : first;
        }
      }
      for (int i = first; i < versions.size(); i++) {
        if (count == maxKeys) {
          truncated = true;
          break listing;
        }
        appendVersion(entries, key, versions.get(i), i == 0, url);
        count++;
        lastKey = key;
        lastVersion = versions.get(i).id();
      }
    }
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<ListVersionsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>").append(bucket)
        .append("</Name><Prefix>").append(text(prefix, url)).append("</Prefix><KeyMarker>")
        .append(keyMarker == null ? "" : text(keyMarker, url)).append("</KeyMarker><VersionIdMarker>")
        .append(versionIdMarker == null ? "" : escape(versionIdMarker)).append("</VersionIdMarker>");
    if (truncated) {
      xml.append("<NextKeyMarker>").append(text(lastKey, url)).append("</NextKeyMarker>");
      if (lastVersion != null) {
        xml.append("<NextVersionIdMarker>").append(escape(lastVersion)).append("</NextVersionIdMarker>");
      }
    }
    xml.append("<MaxKeys>").append(maxKeys).append("</MaxKeys>");
    if (delimiter != null) {
      xml.append("<Delimiter>").append(text(delimiter, url)).append("</Delimiter>");
    }
    if (url) {
      xml.append("<EncodingType>url</EncodingType>");
    }
    xml.append("<IsTruncated>").append(truncated).append("</IsTruncated>").append(entries);
    send(exchange, 200, xml.append("</ListVersionsResult>").toString());
  }

  private void appendVersion(StringBuilder xml, String key, Version version, boolean latest, boolean url) {
    String element = version.marker() ? "DeleteMarker" : "Version";
    xml.append('<').append(element).append("><Key>").append(text(key, url)).append("</Key><VersionId>")
        .append(escape(version.id())).append("</VersionId><IsLatest>").append(latest).append("</IsLatest><LastModified>")
        .append(XML_DATE.format(version.lastModified())).append("</LastModified>");
    if (!version.marker()) {
      xml.append("<ETag>&quot;").append(version.etag()).append("&quot;</ETag><Size>")
          .append(size(new Stored(key, version.etag(), version.lastModified(), version.content())))
          .append("</Size><StorageClass>STANDARD</StorageClass>");
    }
    xml.append("<Owner><ID>synthetic</ID><DisplayName>synthetic</DisplayName></Owner></").append(element).append('>');
  }

  /**
   * Every key that may have versions, in order, from a key on: the generated ones (deleted or not) merged with those
   * of the history (without versioning: those written).
   */
  private final class VersionedKeys {
    private Iterator<SyntheticArchive.Position> generated;
    private Iterator<String> recorded;
    private String nextGenerated;
    private String nextRecorded;

    VersionedKeys(String from) {
      skipTo(from);
    }

    void skipTo(String from) {
      SyntheticArchive.Position start = archive.ceiling(from);
      generated = start == null ? Collections.emptyIterator() : archive.from(start);
      recorded = (versioning == null ? written : history).tailMap(from, true).keySet().iterator();
      nextGenerated = generated.hasNext() ? keyOf(generated.next()) : null;
      nextRecorded = recorded.hasNext() ? recorded.next() : null;
    }

    private String keyOf(SyntheticArchive.Position position) {
      return archive.key(position.record(), position.file());
    }

    boolean hasNext() {
      return nextGenerated != null || nextRecorded != null;
    }

    String next() {
      String key;
      if (nextRecorded == null || (nextGenerated != null && nextGenerated.compareTo(nextRecorded) < 0)) {
        key = nextGenerated;
      } else {
        key = nextRecorded;
      }
      if (key.equals(nextGenerated)) {
        nextGenerated = generated.hasNext() ? keyOf(generated.next()) : null;
      }
      if (key.equals(nextRecorded)) {
        nextRecorded = recorded.hasNext() ? recorded.next() : null;
      }
      return key;
    }
  }

  /** ListObjectsV2. */
  private void list(HttpExchange exchange, Map<String, String> query) throws IOException {
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = emptyToNull(query.get("delimiter"));
    boolean url = "url".equals(query.get("encoding-type"));
    int maxKeys = maxKeys(query);
    String startAfter = query.get("start-after");
    String token = query.get("continuation-token");
    // A token (base64) holds where the listing goes on: "k:" + the last key listed, or "p:" + the last
    // common prefix; "e<n>:" before it counts the empty pages already answered there.
    String after = startAfter;
    boolean afterIsPrefix = false;
    int empties = 0;
    if (token != null) {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (decoded.startsWith("e")) {
        int colon = decoded.indexOf(':');
        empties = Integer.parseInt(decoded.substring(1, colon));
        decoded = decoded.substring(colon + 1);
      }
      after = decoded.substring(2);
      afterIsPrefix = decoded.startsWith("p:");
    }
    String position = (afterIsPrefix ? "p:" : "k:") + (after == null ? "" : after);
    Page page;
    String next = null;
    if (maxKeys > 0 && empties < emptyTruncatedPages) {
      page = new Page();
      page.truncated = true;
      next = "e" + (empties + 1) + ":" + position;
    } else {
      int limit = shortPages > 0 ? Math.min(maxKeys, 1 + Math.floorMod(position.hashCode(), shortPages)) : maxKeys;
      page = page(prefix, delimiter, limit, after, afterIsPrefix);
      if (page.truncated) {
        next = (page.lastIsPrefix ? "p:" : "k:") + page.last;
      }
    }
    String nextToken = next == null ? null : Base64.getUrlEncoder().encodeToString(next.getBytes(StandardCharsets.UTF_8));
    if (nextToken != null && continuationTokens == ContinuationTokens.MISSING) {
      nextToken = null;
    } else if (nextToken != null && token != null && continuationTokens == ContinuationTokens.REPEATED) {
      nextToken = token;
    }
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>").append(bucket)
        .append("</Name><Prefix>").append(text(prefix, url)).append("</Prefix>");
    if (startAfter != null && (url || echoXmlInvalidStartAfter || xmlCarries(startAfter))) {
      xml.append("<StartAfter>").append(text(startAfter, url)).append("</StartAfter>");
    }
    xml.append("<KeyCount>").append(page.count).append("</KeyCount><MaxKeys>").append(maxKeys).append("</MaxKeys>");
    if (delimiter != null) {
      xml.append("<Delimiter>").append(text(delimiter, url)).append("</Delimiter>");
    }
    if (url) {
      xml.append("<EncodingType>url</EncodingType>");
    }
    xml.append("<IsTruncated>").append(page.truncated).append("</IsTruncated>");
    if (token != null) {
      xml.append("<ContinuationToken>").append(token).append("</ContinuationToken>");
    }
    if (nextToken != null) {
      xml.append("<NextContinuationToken>").append(nextToken).append("</NextContinuationToken>");
    }
    page.appendTo(xml, url);
    send(exchange, 200, xml.append("</ListBucketResult>").toString());
  }

  /** ListObjects (V1): a marker instead of a token; NextMarker only with a delimiter, as S3 does. */
  private void listV1(HttpExchange exchange, Map<String, String> query) throws IOException {
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = emptyToNull(query.get("delimiter"));
    boolean url = "url".equals(query.get("encoding-type"));
    int maxKeys = maxKeys(query);
    String marker = emptyToNull(query.get("marker"));
    // A marker that is a common prefix of this listing (the NextMarker of a page that ended on one)
    // covers every key under it.
    boolean markerIsPrefix = marker != null && delimiter != null && marker.startsWith(prefix)
        && marker.endsWith(delimiter) && marker.indexOf(delimiter, prefix.length()) == marker.length() - delimiter.length();
    Page page = page(prefix, delimiter, maxKeys, marker, markerIsPrefix);
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>").append(bucket)
        .append("</Name><Prefix>").append(text(prefix, url)).append("</Prefix><Marker>")
        .append(marker == null ? "" : text(marker, url)).append("</Marker><MaxKeys>").append(maxKeys)
        .append("</MaxKeys>");
    if (delimiter != null) {
      xml.append("<Delimiter>").append(text(delimiter, url)).append("</Delimiter>");
    }
    if (url) {
      xml.append("<EncodingType>url</EncodingType>");
    }
    xml.append("<IsTruncated>").append(page.truncated).append("</IsTruncated>");
    if (page.truncated && delimiter != null) {
      xml.append("<NextMarker>").append(text(page.last, url)).append("</NextMarker>");
    }
    page.appendTo(xml, url);
    send(exchange, 200, xml.append("</ListBucketResult>").toString());
  }

  private static int maxKeys(Map<String, String> query) {
    try {
      return Math.max(0, Math.min(1000, Integer.parseInt(query.getOrDefault("max-keys", "1000"))));
    } catch (NumberFormatException e) {
      return 1000;
    }
  }

  private static String emptyToNull(String value) {
    return value == null || value.isEmpty() ? null : value;
  }

  /** Up to {@code maxKeys} entries (objects and common prefixes) of a listing after {@code after}. */
  private Page page(String prefix, String delimiter, int maxKeys, String after, boolean afterIsPrefix) {
    String start = prefix;
    boolean exclusive = false;
    if (after != null && afterIsPrefix) {
      start = after + MAX;
    } else if (after != null && after.compareTo(start) >= 0) {
      start = after;
      exclusive = true;
    }
    Page page = new Page();
    if (maxKeys == 0) {
      return page;
    }
    Merged keys = new Merged(start);
    while (keys.hasNext()) {
      Stored stored = keys.peek();
      if (exclusive && stored.key.equals(start)) {
        keys.next();
        continue;
      }
      if (!stored.key.startsWith(prefix)) {
        if (stored.key.compareTo(prefix) > 0) {
          break;
        }
        keys.next();
        continue;
      }
      if (page.count == maxKeys) {
        page.truncated = true;
        break;
      }
      int at = delimiter == null ? -1 : stored.key.indexOf(delimiter, prefix.length());
      if (at >= 0) {
        String common = stored.key.substring(0, at + delimiter.length());
        page.prefixes.add(common);
        page.last = common;
        page.lastIsPrefix = true;
        keys.skipTo(common + MAX);
      } else {
        keys.next();
        page.objects.add(stored);
        page.last = stored.key;
        page.lastIsPrefix = false;
      }
      page.count++;
    }
    return page;
  }

  private final class Page {
    final List<Stored> objects = new ArrayList<>();
    final List<String> prefixes = new ArrayList<>();
    int count;
    boolean truncated;
    String last;
    boolean lastIsPrefix;

    void appendTo(StringBuilder xml, boolean url) {
      for (Stored stored : objects) {
        xml.append("<Contents><Key>").append(text(stored.key, url)).append("</Key><LastModified>")
            .append(XML_DATE.format(stored.lastModified)).append("</LastModified><ETag>&quot;").append(stored.etag)
            .append("&quot;</ETag><Size>").append(size(stored))
            .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
      }
      for (String common : prefixes) {
        xml.append("<CommonPrefixes><Prefix>").append(text(common, url)).append("</Prefix></CommonPrefixes>");
      }
    }
  }

  /** Whether XML 1.0 can carry every character of {@code text} (its Char production). */
  static boolean xmlCarries(String text) {
    return text.codePoints().allMatch(c -> c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF)
        || (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF));
  }

  /** A key or prefix in a listing: escaped for XML, or URL-encoded when the client asked for it. */
  private static String text(String value, boolean url) {
    return url ? urlEncode(value) : escape(value);
  }

  /** S3's encoding-type=url: every byte but unreserved characters and '/' as %XX. */
  static String urlEncode(String value) {
    StringBuilder out = new StringBuilder(value.length() + 16);
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
          || c == '.' || c == '~' || c == '/') {
        out.append(c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }

  /** The generated keys and the overlay, merged in key order, deleted keys left out. */
  private final class Merged {
    private Iterator<SyntheticArchive.Position> generated;
    private Iterator<Map.Entry<String, Written>> overlay;
    private Stored nextGenerated;
    private Map.Entry<String, Written> nextOverlay;

    Merged(String from) {
      skipTo(from);
    }

    void skipTo(String from) {
      SyntheticArchive.Position start = archive.ceiling(from);
      generated = start == null ? Collections.emptyIterator() : archive.from(start);
      overlay = written.tailMap(from, true).entrySet().iterator();
      nextGenerated = null;
      nextOverlay = null;
      advanceGenerated();
      nextOverlay = overlay.hasNext() ? overlay.next() : null;
    }

    private void advanceGenerated() {
      nextGenerated = null;
      while (generated.hasNext()) {
        SyntheticArchive.Position position = generated.next();
        Stored candidate = generated(position);
        if (!deleted.contains(candidate.key) && !written.containsKey(candidate.key)
            && !hiddenByVersions(candidate.key, position)) {
          nextGenerated = candidate;
          return;
        }
      }
    }

    boolean hasNext() {
      return nextGenerated != null || nextOverlay != null;
    }

    Stored peek() {
      if (nextOverlay != null && (nextGenerated == null || nextOverlay.getKey().compareTo(nextGenerated.key) <= 0)) {
        Written write = nextOverlay.getValue();
        return new Stored(nextOverlay.getKey(), write.etag, write.lastModified, write.content);
      }
      return nextGenerated;
    }

    void next() {
      if (nextOverlay != null && (nextGenerated == null || nextOverlay.getKey().compareTo(nextGenerated.key) <= 0)) {
        nextOverlay = overlay.hasNext() ? overlay.next() : null;
      } else {
        advanceGenerated();
      }
    }
  }

  private void error(HttpExchange exchange, int status, String code, String message) throws IOException {
    error(exchange, status, code, message, true);
  }

  private void error(HttpExchange exchange, int status, String code, String message, boolean body) {
    try {
      if (!body) {
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      send(exchange, status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
          + escape(message) + "</Message></Error>");
    } catch (IOException e) {
      // The client went away; nothing to answer.
    }
  }

  private static void send(HttpExchange exchange, int status, String xml) throws IOException {
    byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/xml");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> query = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return query;
    }
    for (String pair : raw.split("&")) {
      int equals = pair.indexOf('=');
      String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
      String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
      query.put(name, value);
    }
    return query;
  }

  private static String unquote(String etag) {
    String trimmed = etag.trim();
    return trimmed.length() >= 2 && trimmed.startsWith("\"") && trimmed.endsWith("\"")
        ? trimmed.substring(1, trimmed.length() - 1)
        : trimmed;
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  private static String unescape(String text) {
    return text.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
  }

  private static String md5(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
