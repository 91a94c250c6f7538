package io.statesweep.synthetic;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
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
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An HTTP server on 127.0.0.1 that speaks the part of the S3 protocol statesweep uses (path style):
 * ListObjectsV2 (prefix, delimiter, start-after, continuation, max-keys), GetObject and HeadObject
 * (If-Match), DeleteObjects (per-object ETag), PutObject (If-None-Match: *), over a
 * {@link SyntheticArchive} that it never holds in memory: deletions and writes are a small overlay.
 *
 * <p>It can add a fixed latency to every request and answer 503 SlowDown above a request rate per
 * prefix (the first three segments of a key), like S3's per-prefix limits. Signatures are not checked.
 * Test scope only: an instrument for benchmarks at scales no local store can hold.
 */
public final class SyntheticS3Server implements AutoCloseable {
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter XML_DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final Pattern DELETE_OBJECT = Pattern.compile(
      "<Object>\\s*<Key>(.*?)</Key>\\s*(?:<ETag>(.*?)</ETag>)?\\s*</Object>", Pattern.DOTALL);
  private static final String MAX = "\uffff";

  private final String bucket;
  private final SyntheticArchive archive;
  private final Duration latency;
  private final int requestsPerSecondPerPrefix;
  private final HttpServer server;
  private final ExecutorService threads;
  private final NavigableMap<String, Written> written = new ConcurrentSkipListMap<>();
  private final Set<String> deleted = ConcurrentHashMap.newKeySet();
  private final Map<String, RateWindow> rates = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();

  private record Written(byte[] content, String etag, Instant lastModified) {}

  /** Requests of one prefix in the current second. */
  private static final class RateWindow {
    long second;
    int count;
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

  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public SyntheticArchive archive() {
    return archive;
  }

  /** Requests answered so far, by operation (LIST, GET, HEAD, PUT, DELETE), throttled ones as SLOWDOWN. */
  public Map<String, Long> requestCounts() {
    Map<String, Long> counts = new HashMap<>();
    requests.forEach((operation, count) -> counts.put(operation, count.get()));
    return counts;
  }

  public void resetCounts() {
    requests.clear();
  }

  /** Rewrites a key as the exporter would: new content, a new ETag, LastModified now. */
  public void put(String key, byte[] content) {
    written.put(key, new Written(content, md5(content), Instant.now()));
    deleted.remove(key);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  private void count(String operation) {
    requests.computeIfAbsent(operation, o -> new AtomicLong()).incrementAndGet();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!latency.isZero()) {
        Thread.sleep(latency.toMillis());
      }
      String path = URLDecoder.decode(exchange.getRequestURI().getRawPath(), StandardCharsets.UTF_8);
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      String method = exchange.getRequestMethod();
      String expected = "/" + bucket;
      if (!path.equals(expected) && !path.startsWith(expected + "/")) {
        error(exchange, 404, "NoSuchBucket", "The specified bucket does not exist");
        return;
      }
      String key = path.length() > expected.length() + 1 ? path.substring(expected.length() + 1) : "";
      String operation = switch (method) {
        case "GET" -> key.isEmpty() ? "LIST" : "GET";
        case "HEAD" -> "HEAD";
        case "PUT" -> "PUT";
        case "POST" -> "DELETE";
        default -> "OTHER";
      };
      if (throttled(key.isEmpty() ? query.getOrDefault("prefix", "") : key)) {
        count("SLOWDOWN");
        error(exchange, 503, "SlowDown", "Please reduce your request rate.");
        return;
      }
      count(operation);
      switch (operation) {
        case "LIST" -> list(exchange, query);
        case "GET" -> get(exchange, key, true);
        case "HEAD" -> get(exchange, key, false);
        case "PUT" -> put(exchange, key);
        case "DELETE" -> {
          if (!query.containsKey("delete")) {
            error(exchange, 400, "InvalidRequest", "only DeleteObjects is supported");
          } else {
            deleteObjects(exchange);
          }
        }
        default -> error(exchange, 405, "MethodNotAllowed", method + " is not supported");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      error(exchange, 500, "InternalError", String.valueOf(e));
    }
  }

  private boolean throttled(String keyOrPrefix) {
    if (requestsPerSecondPerPrefix <= 0) {
      return false;
    }
    String[] segments = keyOrPrefix.split("/", 4);
    String partition = segments.length >= 3 ? segments[0] + "/" + segments[1] + "/" + segments[2] : keyOrPrefix;
    RateWindow window = rates.computeIfAbsent(partition, p -> new RateWindow());
    long second = System.nanoTime() / 1_000_000_000L;
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
    if (deleted.contains(key)) {
      return null;
    }
    SyntheticArchive.Position position = archive.position(key);
    if (position == null) {
      return null;
    }
    return generated(position);
  }

  private Stored generated(SyntheticArchive.Position position) {
    return new Stored(archive.key(position.record(), position.file()), archive.etag(position.record(), position.file()),
        archive.lastModified(position.record(), position.file()), null);
  }

  private byte[] content(Stored stored) {
    if (stored.content != null) {
      return stored.content;
    }
    SyntheticArchive.Position position = archive.position(stored.key);
    return archive.content(position.record(), position.file());
  }

  private long size(Stored stored) {
    if (stored.content != null) {
      return stored.content.length;
    }
    SyntheticArchive.Position position = archive.position(stored.key);
    return archive.size(position.record(), position.file());
  }

  private record Stored(String key, String etag, Instant lastModified, byte[] content) {}

  private void get(HttpExchange exchange, String key, boolean body) throws IOException {
    Stored stored = lookup(key);
    if (stored == null) {
      error(exchange, 404, "NoSuchKey", "The specified key does not exist.", body);
      return;
    }
    String ifMatch = exchange.getRequestHeaders().getFirst("If-Match");
    if (ifMatch != null && !unquote(ifMatch).equals(stored.etag)) {
      error(exchange, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", body);
      return;
    }
    byte[] content = content(stored);
    exchange.getResponseHeaders().set("ETag", "\"" + stored.etag + "\"");
    exchange.getResponseHeaders().set("Last-Modified", HTTP_DATE.format(stored.lastModified));
    exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
    if (body) {
      exchange.sendResponseHeaders(200, content.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(content);
      }
    } else {
      exchange.getResponseHeaders().set("Content-Length", Integer.toString(content.length));
      exchange.sendResponseHeaders(200, -1);
    }
  }

  private void put(HttpExchange exchange, String key) throws IOException {
    byte[] content = exchange.getRequestBody().readAllBytes();
    String ifNoneMatch = exchange.getRequestHeaders().getFirst("If-None-Match");
    synchronized (this) {
      if ("*".equals(ifNoneMatch) && lookup(key) != null) {
        error(exchange, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
        return;
      }
      put(key, content);
    }
    exchange.getResponseHeaders().set("ETag", "\"" + written.get(key).etag + "\"");
    exchange.sendResponseHeaders(200, -1);
  }

  private void deleteObjects(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    boolean quiet = body.contains("<Quiet>true</Quiet>");
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    Matcher matcher = DELETE_OBJECT.matcher(body);
    while (matcher.find()) {
      String key = unescape(matcher.group(1));
      String etag = matcher.group(2) == null ? null : unquote(unescape(matcher.group(2)));
      synchronized (this) {
        Stored stored = lookup(key);
        if (stored != null && etag != null && !etag.equals(stored.etag)) {
          xml.append("<Error><Key>").append(escape(key)).append("</Key><Code>PreconditionFailed</Code><Message>")
              .append("At least one of the pre-conditions you specified did not hold</Message></Error>");
          continue;
        }
        if (stored != null) {
          written.remove(key);
          if (archive.position(key) != null) {
            deleted.add(key);
          }
        }
      }
      if (!quiet) {
        xml.append("<Deleted><Key>").append(escape(key)).append("</Key></Deleted>");
      }
    }
    xml.append("</DeleteResult>");
    send(exchange, 200, xml.toString());
  }

  private void list(HttpExchange exchange, Map<String, String> query) throws IOException {
    if (!"2".equals(query.get("list-type"))) {
      error(exchange, 400, "InvalidRequest", "only ListObjectsV2 is supported");
      return;
    }
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = query.get("delimiter");
    int maxKeys = Math.min(1000, Integer.parseInt(query.getOrDefault("max-keys", "1000")));
    String start = prefix;
    boolean exclusive = false;
    String token = query.get("continuation-token");
    if (token != null) {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      start = decoded.startsWith("p:") ? decoded.substring(2) + MAX : decoded.substring(2);
      exclusive = decoded.startsWith("k:");
    } else if (query.get("start-after") != null && query.get("start-after").compareTo(start) >= 0) {
      start = query.get("start-after");
      exclusive = true;
    }
    StringBuilder contents = new StringBuilder();
    int count = 0;
    String last = null;
    boolean truncated = false;
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
      if (count == maxKeys) {
        truncated = true;
        break;
      }
      int at = delimiter == null ? -1 : stored.key.indexOf(delimiter, prefix.length());
      if (at >= 0) {
        String common = stored.key.substring(0, at + delimiter.length());
        contents.append("<CommonPrefixes><Prefix>").append(escape(common)).append("</Prefix></CommonPrefixes>");
        last = "p:" + common;
        keys.skipTo(common + MAX);
      } else {
        keys.next();
        contents.append("<Contents><Key>").append(escape(stored.key)).append("</Key><LastModified>")
            .append(XML_DATE.format(stored.lastModified)).append("</LastModified><ETag>&quot;").append(stored.etag)
            .append("&quot;</ETag><Size>").append(size(stored))
            .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
        last = "k:" + stored.key;
      }
      count++;
    }
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>").append(bucket)
        .append("</Name><Prefix>").append(escape(prefix)).append("</Prefix><KeyCount>").append(count)
        .append("</KeyCount><MaxKeys>").append(maxKeys).append("</MaxKeys>");
    if (delimiter != null) {
      xml.append("<Delimiter>").append(escape(delimiter)).append("</Delimiter>");
    }
    xml.append("<IsTruncated>").append(truncated).append("</IsTruncated>");
    if (token != null) {
      xml.append("<ContinuationToken>").append(token).append("</ContinuationToken>");
    }
    if (truncated) {
      xml.append("<NextContinuationToken>")
          .append(Base64.getUrlEncoder().encodeToString(last.getBytes(StandardCharsets.UTF_8)))
          .append("</NextContinuationToken>");
    }
    xml.append(contents).append("</ListBucketResult>");
    send(exchange, 200, xml.toString());
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
      generated = start == null ? java.util.Collections.emptyIterator() : archive.from(start);
      overlay = written.tailMap(from, true).entrySet().iterator();
      nextGenerated = null;
      nextOverlay = null;
      advanceGenerated();
      nextOverlay = overlay.hasNext() ? overlay.next() : null;
    }

    private void advanceGenerated() {
      nextGenerated = null;
      while (generated.hasNext()) {
        Stored candidate = generated(generated.next());
        if (!deleted.contains(candidate.key) && !written.containsKey(candidate.key)) {
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
