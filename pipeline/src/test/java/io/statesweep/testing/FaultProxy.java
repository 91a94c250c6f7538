package io.statesweep.testing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An HTTP proxy between the job and a real S3-protocol server that injects the faults S3 shows under
 * load: bursts of 503 SlowDown, 500 InternalError, a connection reset in the middle of a response
 * (after the server did the work), slow answers, and DeleteObjects answers that report per-key errors
 * (for keys the server did delete: the answer is lost, not the work), and DeleteObjects answers that
 * leave keys out (a key the server deleted is named neither as deleted nor as an error). Every connection carries one
 * request ({@code Connection: close}), so a fault never spills into the next request. Requests are
 * relayed byte for byte, so signatures still verify upstream.
 *
 * <p>A store that ignores conditions ({@link Fault#IGNORE_CONDITIONS}) is played by stripping them: the proxy
 * then signs the request again (Signature Version 4) with the server's credentials ({@link #signingWith}).
 *
 * <p>Which request gets which fault is the {@link FaultPlan}'s choice; {@link #heal()} stops all faults.
 */
public final class FaultProxy implements AutoCloseable {
  /** What can go wrong with one request. */
  public enum Fault {
    SLOW_DOWN,
    INTERNAL_ERROR,
    RESET_MID_RESPONSE,
    SLOW,
    DELETE_KEY_ERRORS,
    /** A DeleteObjects answer that mentions every other key of the request nowhere (the server did the work). */
    DELETE_ANSWER_OMITS_KEYS,
    /** 403 AccessDenied, as S3 answers an identity whose policy lacks the request's permission. */
    ACCESS_DENIED,
    /** 404 NoSuchBucket (the server is not asked): a 404 that says nothing of the key. */
    NO_SUCH_BUCKET,
    /**
     * A store that ignores the request's conditions (If-Match, If-None-Match, If-Modified-Since,
     * If-Unmodified-Since): the server gets the request without them, signed again.
     */
    IGNORE_CONDITIONS
  }

  private static final List<String> CONDITIONS = List.of("if-match", "if-none-match", "if-modified-since",
      "if-unmodified-since");

  /**
   * A request as the proxy sees it: method, path with query, its sequence number from 1, and the keys
   * of a DeleteObjects request (as they stand in its XML).
   */
  public record Request(String method, String target, long sequence, List<String> deleteKeys) {
    public boolean isDeleteObjects() {
      return method.equals("POST") && target.contains("?delete");
    }

    public boolean isList() {
      return method.equals("GET") && target.contains("list-type=2");
    }

    /** A PutObject whose path (such as {@code /bucket/cogram.statesweep/}) starts with {@code pathPrefix}. */
    public boolean isPutUnder(String pathPrefix) {
      return method.equals("PUT") && target.startsWith(pathPrefix);
    }
  }

  /** Decides the fault of each request, or null for none. */
  @FunctionalInterface
  public interface FaultPlan {
    Fault faultOf(Request request);

    /** This plan's fault, or where it has none, {@code other}'s. */
    default FaultPlan orElse(FaultPlan other) {
      requireNonNull(other, "other is null");
      return request -> {
        Fault fault = faultOf(request);
        return fault != null ? fault : other.faultOf(request);
      };
    }
  }

  /** A store that ignores the conditions of every PutObject (If-None-Match: *, If-Match): it writes anyway. */
  public static FaultPlan ignoresConditionalWrites() {
    return request -> request.method().equals("PUT") ? Fault.IGNORE_CONDITIONS : null;
  }

  /** A store that ignores the conditions of every GetObject (If-Match): it answers with the object it has. */
  public static FaultPlan ignoresConditionalReads() {
    return request -> request.method().equals("GET") && !request.isList() ? Fault.IGNORE_CONDITIONS : null;
  }

  private static final Pattern OBJECT_KEY = Pattern.compile("<Object>\\s*<Key>(.*?)</Key>", Pattern.DOTALL);
  private static final long SLOW_MILLIS = 1_500;

  private final String upstreamHost;
  private final int upstreamPort;
  private final ServerSocket listener;
  private final ExecutorService connections = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "fault-proxy");
    thread.setDaemon(true);
    return thread;
  });
  private final AtomicLong requests = new AtomicLong();
  private final List<String> keysLeftOut = java.util.Collections.synchronizedList(new ArrayList<>());
  private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);
  private volatile FaultPlan plan = request -> null;
  private volatile String accessKey;
  private volatile String secretKey;

  public FaultProxy(String upstreamEndpoint) throws IOException {
    URI upstream = URI.create(requireNonNull(upstreamEndpoint, "upstreamEndpoint is null"));
    this.upstreamHost = upstream.getHost();
    this.upstreamPort = upstream.getPort();
    for (Fault fault : Fault.values()) {
      injected.put(fault, new AtomicLong());
    }
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
    Thread acceptor = new Thread(this::accept, "fault-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + listener.getLocalPort();
  }

  /** The server's credentials, with which a request the proxy changed ({@link Fault#IGNORE_CONDITIONS}) is signed. */
  public FaultProxy signingWith(String newAccessKey, String newSecretKey) {
    this.accessKey = requireNonNull(newAccessKey, "newAccessKey is null");
    this.secretKey = requireNonNull(newSecretKey, "newSecretKey is null");
    return this;
  }

  public FaultProxy plan(FaultPlan newPlan) {
    this.plan = requireNonNull(newPlan, "newPlan is null");
    return this;
  }

  /**
   * AccessDenied to every PutObject under {@code pathPrefix} ({@code "/"} for all): what an identity with
   * the exporter's guide's policy (ListBucket, GetObject and DeleteObject only) gets when it writes.
   */
  public static FaultPlan deniedPuts(String pathPrefix) {
    requireNonNull(pathPrefix, "pathPrefix is null");
    return request -> request.isPutUnder(pathPrefix) ? Fault.ACCESS_DENIED : null;
  }

  /** No more faults: every request is relayed as it is. */
  public void heal() {
    plan = request -> null;
  }

  /** Faults injected so far, by kind (only kinds injected at least once). */
  public Map<Fault, Long> injected() {
    Map<Fault, Long> counts = new LinkedHashMap<>();
    injected.forEach((fault, count) -> {
      if (count.get() > 0) {
        counts.put(fault, count.get());
      }
    });
    return counts;
  }

  public long requests() {
    return requests.get();
  }

  /** Keys that DeleteObjects answers left out so far ({@link Fault#DELETE_ANSWER_OMITS_KEYS}), as the XML has them. */
  public List<String> keysLeftOut() {
    synchronized (keysLeftOut) {
      return List.copyOf(keysLeftOut);
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    connections.shutdownNow();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        connections.execute(() -> serve(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      // The SDK asks for 100-continue before a PUT's body: say so ourselves, and never forward the ask.
      Message request = Message.read(in, false, client.getOutputStream());
      if (request == null) {
        return;
      }
      String[] line = request.startLine.split(" ", 3);
      List<String> deleteKeys = new ArrayList<>();
      Matcher keys = OBJECT_KEY.matcher(new String(request.body, UTF_8));
      while (keys.find()) {
        deleteKeys.add(keys.group(1));
      }
      Request seen = new Request(line[0], line[1], requests.incrementAndGet(), List.copyOf(deleteKeys));
      Fault fault = plan.faultOf(seen);
      if ((fault == Fault.DELETE_KEY_ERRORS || fault == Fault.DELETE_ANSWER_OMITS_KEYS) && !seen.isDeleteObjects()) {
        fault = null;
      }
      if (fault != null) {
        injected.get(fault).incrementAndGet();
      }
      OutputStream out = client.getOutputStream();
      if (fault == Fault.SLOW_DOWN) {
        answer(out, 503, "Slow Down", "SlowDown", "Please reduce your request rate.", seen.method);
        return;
      }
      if (fault == Fault.INTERNAL_ERROR) {
        answer(out, 500, "Internal Server Error", "InternalError", "We encountered an internal error. Please try again.",
            seen.method);
        return;
      }
      if (fault == Fault.ACCESS_DENIED) {
        answer(out, 403, "Forbidden", "AccessDenied", "Access Denied", seen.method);
        return;
      }
      if (fault == Fault.NO_SUCH_BUCKET) {
        answer(out, 404, "Not Found", "NoSuchBucket", "The specified bucket does not exist", seen.method);
        return;
      }
      if (fault == Fault.IGNORE_CONDITIONS) {
        request = withoutConditions(request, line[0], line[1]);
      }
      if (fault == Fault.SLOW) {
        Thread.sleep(SLOW_MILLIS);
      }
      Message response;
      try (Socket upstream = new Socket(upstreamHost, upstreamPort)) {
        OutputStream toUpstream = upstream.getOutputStream();
        toUpstream.write(request.withoutHeader("Expect").withHeader("Connection", "close").bytes());
        toUpstream.flush();
        response = Message.read(upstream.getInputStream(), seen.method.equals("HEAD"), null);
      }
      if (response == null) {
        return;
      }
      response = response.withHeader("Connection", "close");
      if (fault == Fault.DELETE_KEY_ERRORS && response.startLine.contains(" 200")) {
        response = withKeyErrors(request, response);
      }
      if (fault == Fault.DELETE_ANSWER_OMITS_KEYS && response.startLine.contains(" 200")) {
        response = withKeysLeftOut(response);
      }
      byte[] bytes = response.bytes();
      if (fault == Fault.RESET_MID_RESPONSE) {
        // The server did the work; the answer is cut off halfway and the connection reset.
        out.write(bytes, 0, bytes.length / 2);
        out.flush();
        client.setSoLinger(true, 0);
        return;
      }
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      // The client went away, or a reset was injected: nothing more to do on this connection.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The request without its conditions, signed again: an aws-chunked body (its chunk signatures chain on the
   * old signature) is sent whole, with its SHA-256 as the payload hash.
   */
  private Message withoutConditions(Message request, String method, String target) {
    List<String> removed = new ArrayList<>();
    for (String[] header : request.headers) {
      if (CONDITIONS.contains(header[0].toLowerCase(java.util.Locale.ROOT))) {
        removed.add(header[0].toLowerCase(java.util.Locale.ROOT));
      }
    }
    if (removed.isEmpty()) {
      return request;
    }
    if (accessKey == null) {
      throw new IllegalStateException("IGNORE_CONDITIONS needs the server's credentials: call signingWith first");
    }
    Message changed = request;
    for (String name : removed) {
      changed = changed.withoutHeader(name);
    }
    String payloadHash = changed.header("x-amz-content-sha256");
    if (payloadHash != null && payloadHash.startsWith("STREAMING-")) {
      byte[] body = io.statesweep.synthetic.SyntheticS3Server.decodeAwsChunked(changed.body);
      changed = new Message(changed.startLine, changed.headers, body).withoutHeader("x-amz-decoded-content-length")
          .withHeader("Content-Length", Integer.toString(body.length))
          .withHeader("x-amz-content-sha256", hex(sha256(body)));
      String encoding = changed.header("Content-Encoding");
      if (encoding != null) {
        String rest = String.join(",", java.util.Arrays.stream(encoding.split(",")).map(String::trim)
            .filter(token -> !token.equalsIgnoreCase("aws-chunked")).toList());
        changed = rest.isEmpty() ? changed.withoutHeader("Content-Encoding") : changed.withHeader("Content-Encoding", rest);
      }
      removed.add("x-amz-decoded-content-length");
      if (changed.header("Content-Encoding") == null) {
        removed.add("content-encoding");
      }
    }
    return signed(changed, method, target, removed);
  }

  /** Signs {@code request} again (Signature Version 4, its date and scope kept), without the headers removed. */
  private Message signed(Message request, String method, String target, List<String> removed) {
    Matcher authorization = AUTHORIZATION.matcher(request.header("Authorization"));
    if (!authorization.matches()) {
      throw new IllegalStateException("not a Signature Version 4 request: " + request.header("Authorization"));
    }
    String scope = authorization.group(2);
    List<String> signedHeaders = new ArrayList<>(List.of(authorization.group(3).split(";")));
    signedHeaders.removeAll(removed);
    int question = target.indexOf('?');
    String path = question < 0 ? target : target.substring(0, question);
    List<String> query = new ArrayList<>();
    if (question >= 0) {
      for (String parameter : target.substring(question + 1).split("&")) {
        if (!parameter.isEmpty()) {
          query.add(parameter.contains("=") ? parameter : parameter + "=");
        }
      }
    }
    query.sort(null);
    StringBuilder canonical = new StringBuilder(method).append('\n').append(path).append('\n')
        .append(String.join("&", query)).append('\n');
    for (String name : signedHeaders) {
      canonical.append(name).append(':').append(request.header(name).trim().replaceAll(" +", " ")).append('\n');
    }
    canonical.append('\n').append(String.join(";", signedHeaders)).append('\n')
        .append(request.header("x-amz-content-sha256"));
    String amzDate = request.header("X-Amz-Date");
    String toSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n"
        + hex(sha256(canonical.toString().getBytes(UTF_8)));
    String[] parts = scope.split("/");
    byte[] key = ("AWS4" + secretKey).getBytes(UTF_8);
    for (String part : parts) {
      key = hmac(key, part);
    }
    String signature = hex(hmac(key, toSign));
    return request.withHeader("Authorization", "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope
        + ", SignedHeaders=" + String.join(";", signedHeaders) + ", Signature=" + signature);
  }

  private static final Pattern AUTHORIZATION = Pattern.compile(
      "AWS4-HMAC-SHA256 Credential=([^/]+)/([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)");

  private static byte[] sha256(byte[] bytes) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(UTF_8));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder hex = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      hex.append(String.format("%02x", b));
    }
    return hex.toString();
  }

  /** The DeleteObjects answer with an error for every other key of the request (which the server did delete). */
  private static Message withKeyErrors(Message request, Message response) {
    Matcher keys = OBJECT_KEY.matcher(new String(request.body, UTF_8));
    StringBuilder errors = new StringBuilder();
    int index = 0;
    while (keys.find()) {
      if (index++ % 2 == 0) {
        errors.append("<Error><Key>").append(keys.group(1)).append("</Key><Code>InternalError</Code>")
            .append("<Message>We encountered an internal error. Please try again.</Message></Error>");
      }
    }
    String body = new String(response.body, UTF_8);
    // A quiet answer with nothing to say may be an empty element: open it up.
    body = body.replaceFirst("<DeleteResult([^>]*?)\\s*/>", "<DeleteResult$1></DeleteResult>");
    int end = body.lastIndexOf("</DeleteResult>");
    if (end < 0) {
      throw new IllegalStateException("not a DeleteObjects answer: " + body);
    }
    byte[] changed = (body.substring(0, end) + errors + body.substring(end)).getBytes(UTF_8);
    return new Message(response.startLine, response.headers, changed).withHeader("Content-Length",
        Integer.toString(changed.length)).withoutHeader("Transfer-Encoding");
  }

  private static final Pattern DELETED_ENTRY = Pattern.compile("<Deleted>.*?<Key>(.*?)</Key>.*?</Deleted>", Pattern.DOTALL);

  /** The DeleteObjects answer without every other of its {@code <Deleted>} entries (first, third, ...). */
  private Message withKeysLeftOut(Message response) {
    Matcher entries = DELETED_ENTRY.matcher(new String(response.body, UTF_8));
    StringBuilder body = new StringBuilder();
    int index = 0;
    while (entries.find()) {
      boolean leftOut = index++ % 2 == 0;
      if (leftOut) {
        keysLeftOut.add(entries.group(1));
      }
      entries.appendReplacement(body, leftOut ? "" : Matcher.quoteReplacement(entries.group()));
    }
    entries.appendTail(body);
    byte[] changed = body.toString().getBytes(UTF_8);
    return new Message(response.startLine, response.headers, changed).withHeader("Content-Length",
        Integer.toString(changed.length)).withoutHeader("Transfer-Encoding");
  }

  private static void answer(OutputStream out, int status, String reason, String code, String message, String method)
      throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + message
        + "</Message><RequestId>fault-proxy</RequestId></Error>").getBytes(UTF_8);
    boolean head = method.equals("HEAD");
    String head0 = "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/xml\r\nContent-Length: "
        + (head ? 0 : body.length) + "\r\nConnection: close\r\n\r\n";
    out.write(head0.getBytes(ISO_8859_1));
    if (!head) {
      out.write(body);
    }
    out.flush();
  }

  /** One HTTP/1.1 message: its start line, headers in order, and its whole body (chunks joined). */
  private record Message(String startLine, List<String[]> headers, byte[] body) {
    /** Reads a message; a request's {@code Expect: 100-continue} is answered on {@code continueTo}. */
    static Message read(InputStream in, boolean responseToHead, OutputStream continueTo) throws IOException {
      String startLine;
      List<String[]> headers;
      do {
        startLine = readLine(in);
        if (startLine == null || startLine.isEmpty()) {
          return null;
        }
        headers = new ArrayList<>();
        for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
          int colon = line.indexOf(':');
          headers.add(new String[] {line.substring(0, colon), line.substring(colon + 1).trim()});
        }
      } while (startLine.matches("HTTP/1\\.[01] 1\\d\\d.*")); // interim answers (100 Continue) are skipped
      Message head = new Message(startLine, headers, new byte[0]);
      if (continueTo != null && "100-continue".equalsIgnoreCase(head.header("Expect"))) {
        continueTo.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(ISO_8859_1));
        continueTo.flush();
      }
      boolean noBody = responseToHead || startLine.matches("HTTP/1\\.[01] (1\\d\\d|204|304).*");
      if (noBody) {
        return head;
      }
      String length = head.header("Content-Length");
      if ("chunked".equalsIgnoreCase(head.header("Transfer-Encoding"))) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
          String size = readLine(in);
          int chunk = Integer.parseInt(size.split(";", 2)[0].trim(), 16);
          if (chunk == 0) {
            for (String trailer = readLine(in); trailer != null && !trailer.isEmpty(); trailer = readLine(in)) {
              // trailers are dropped: the joined body gets a Content-Length
            }
            break;
          }
          body.write(in.readNBytes(chunk));
          readLine(in);
        }
        byte[] joined = body.toByteArray();
        return new Message(startLine, headers, joined).withoutHeader("Transfer-Encoding")
            .withHeader("Content-Length", Integer.toString(joined.length));
      }
      if (length != null) {
        return new Message(startLine, headers, in.readNBytes(Integer.parseInt(length)));
      }
      return startLine.startsWith("HTTP/") ? new Message(startLine, headers, in.readAllBytes()) : head;
    }

    String header(String name) {
      for (String[] header : headers) {
        if (header[0].equalsIgnoreCase(name)) {
          return header[1];
        }
      }
      return null;
    }

    Message withoutHeader(String name) {
      List<String[]> kept = new ArrayList<>();
      for (String[] header : headers) {
        if (!header[0].equalsIgnoreCase(name)) {
          kept.add(header);
        }
      }
      return new Message(startLine, kept, body);
    }

    Message withHeader(String name, String value) {
      Message without = withoutHeader(name);
      without.headers.add(new String[] {name, value});
      return without;
    }

    byte[] bytes() {
      StringBuilder head = new StringBuilder(startLine).append("\r\n");
      for (String[] header : headers) {
        head.append(header[0]).append(": ").append(header[1]).append("\r\n");
      }
      head.append("\r\n");
      byte[] headBytes = head.toString().getBytes(ISO_8859_1);
      byte[] all = new byte[headBytes.length + body.length];
      System.arraycopy(headBytes, 0, all, 0, headBytes.length);
      System.arraycopy(body, 0, all, headBytes.length, body.length);
      return all;
    }

    private static String readLine(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != -1) {
        if (b == '\n') {
          byte[] bytes = line.toByteArray();
          int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
          return new String(bytes, 0, length, ISO_8859_1);
        }
        line.write(b);
      }
      return line.size() == 0 ? null : line.toString(ISO_8859_1);
    }
  }
}
