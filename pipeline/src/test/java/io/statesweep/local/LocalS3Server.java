package io.statesweep.local;

import static java.util.Objects.requireNonNull;

import io.statesweep.s3.S3Settings;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * A local S3-protocol server for tests and the embedded demo: S3Proxy run as a <b>separate JVM</b> on
 * 127.0.0.1 with a free port and signature checking on ({@code aws-v2-or-v4}).
 *
 * <p>Never in-process: S3Proxy's Jetty and Guava clash with Spark's. The child JVM gets an explicit
 * heap ({@code -Xmx}, default {@value #DEFAULT_MAX_HEAP}), since the transient backend holds every
 * object in memory and the JVM's default heap is a quarter of the machine. Its output goes to a log
 * file in a temporary directory; a start that fails or times out says why with the last lines of it.
 *
 * <p>The server never outlives this JVM: {@link #close()} stops it (destroy, wait, destroy forcibly),
 * a shutdown hook does the same on a normal exit, and the child runs behind a small watchdog that exits
 * when its standard input closes, which the operating system does when this JVM dies in any way, even
 * {@code kill -9}.
 *
 * <p>The S3Proxy jar is found from the system property {@value #JAR_PROPERTY} (surefire sets it),
 * else at {@code target/s3proxy/s3proxy.jar}, {@code pipeline/target/s3proxy/s3proxy.jar} or
 * {@code jobs/target/s3proxy/s3proxy.jar} under the working directory (the build copies it there).
 *
 * <p>Credentials are never passed as flags in this product: {@link #setCredentialSystemProperties()}
 * puts them where the SDK's default provider chain looks, so clients built from {@link #s3Settings()}
 * find them.
 */
public final class LocalS3Server implements AutoCloseable {
  /** The system property that names the S3Proxy jar-with-dependencies. */
  public static final String JAR_PROPERTY = "statesweep.s3proxy.jar";
  /** The region clients should sign for; S3Proxy accepts any, the SDK needs one. */
  public static final String REGION = "us-east-1";
  public static final String DEFAULT_MAX_HEAP = "512m";
  /** Generous: a JVM that starts in seconds on an idle machine may take a minute on a busy one. */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofMinutes(3);

  static final List<String> JAR_CANDIDATES = List.of(
      "target/s3proxy/s3proxy.jar", "pipeline/target/s3proxy/s3proxy.jar", "jobs/target/s3proxy/s3proxy.jar");

  private static final String HOST = "127.0.0.1";
  private static final int LOG_TAIL_LINES = 30;
  private static final int START_ATTEMPTS = 3;
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);
  private static final Pattern HEAP_SIZE = Pattern.compile("[1-9][0-9]*[kKmMgG]?");
  private static final Pattern IDENTITY = Pattern.compile("[A-Za-z0-9._~+/=-]+");

  /** Where S3Proxy keeps objects. */
  public enum Storage {
    /** In the child JVM's heap: fastest, gone when it stops. */
    TRANSIENT,
    /** In a directory (jclouds {@code filesystem}): bounded memory, survives a restart. */
    FILESYSTEM
  }

  private final Storage storage;
  private final Path directory;
  private final String accessKey;
  private final String secretKey;
  private final Path workDirectory;
  private final Path logFile;
  private final Process process;
  private final int port;
  private final Thread shutdownHook;
  private final AtomicBoolean closed = new AtomicBoolean();
  private S3Client adminClient;

  private LocalS3Server(Builder builder, Path workDirectory, Process process, int port) {
    this.storage = builder.storage;
    this.directory = builder.directory;
    this.accessKey = builder.accessKey;
    this.secretKey = builder.secretKey;
    this.workDirectory = workDirectory;
    this.logFile = workDirectory.resolve("s3proxy.log");
    this.process = process;
    this.port = port;
    this.shutdownHook = new Thread(() -> stop(process), "statesweep-s3proxy-stop-" + port);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts a transient server with generated credentials and the default heap and timeout. */
  public static LocalS3Server start() {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Options of a server; {@link #start()} launches it. */
  public static final class Builder {
    private Storage storage = Storage.TRANSIENT;
    private Path directory;
    private String accessKey = "local-" + randomHex(4);
    private String secretKey = randomHex(20);
    private String maxHeap = DEFAULT_MAX_HEAP;
    private Duration startTimeout = DEFAULT_START_TIMEOUT;
    private Path jar;

    private Builder() {}

    /** Objects in the server's heap (the default). */
    public Builder inMemory() {
      this.storage = Storage.TRANSIENT;
      this.directory = null;
      return this;
    }

    /** Objects in {@code directory} (created if missing), one sub-directory per bucket. */
    public Builder filesystem(Path directory) {
      this.storage = Storage.FILESYSTEM;
      this.directory = requireNonNull(directory, "directory is null").toAbsolutePath();
      return this;
    }

    /** The access key and secret the server accepts (generated by default). */
    public Builder credentials(String accessKey, String secretKey) {
      this.accessKey = checkIdentity("accessKey", accessKey);
      this.secretKey = checkIdentity("secretKey", secretKey);
      return this;
    }

    /** The child JVM's {@code -Xmx}, such as {@code 512m} or {@code 2g}. */
    public Builder maxHeap(String maxHeap) {
      requireNonNull(maxHeap, "maxHeap is null");
      if (!HEAP_SIZE.matcher(maxHeap).matches()) {
        throw new IllegalArgumentException("maxHeap must look like 512m or 2g, not '" + maxHeap + "'");
      }
      this.maxHeap = maxHeap;
      return this;
    }

    /** How long to wait for the port to answer. */
    public Builder startTimeout(Duration startTimeout) {
      requireNonNull(startTimeout, "startTimeout is null");
      if (startTimeout.isNegative() || startTimeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive: " + startTimeout);
      }
      this.startTimeout = startTimeout;
      return this;
    }

    /** The S3Proxy jar-with-dependencies, instead of looking it up. */
    public Builder jar(Path jar) {
      this.jar = requireNonNull(jar, "jar is null");
      return this;
    }

    public LocalS3Server start() {
      Path s3proxyJar = jar != null ? checkJar(jar, "") : locateJar();
      if (directory != null) {
        try {
          Files.createDirectories(directory);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot create the S3Proxy directory " + directory, e);
        }
      }
      IllegalStateException lastFailure = null;
      // A free port can be taken between finding it and S3Proxy binding it: try another one then.
      for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
        Path workDirectory = createWorkDirectory();
        int port = freePort();
        Process process = launch(s3proxyJar, workDirectory, port);
        LocalS3Server server = new LocalS3Server(this, workDirectory, process, port);
        try {
          server.awaitPort(startTimeout);
          return server;
        } catch (IllegalStateException e) {
          server.stopAfterFailedStart();
          lastFailure = e;
          if (!server.lostPortRace()) {
            throw e;
          }
        }
      }
      throw lastFailure;
    }

    private Process launch(Path s3proxyJar, Path workDirectory, int port) {
      Path properties = workDirectory.resolve("s3proxy.properties");
      Path launcherClasses = workDirectory.resolve("launcher");
      try {
        writeProperties(properties, port);
        copyWatchdog(launcherClasses);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(
            java,
            "-Xmx" + maxHeap,
            "-Djava.io.tmpdir=" + workDirectory,
            "-cp", launcherClasses + File.pathSeparator + s3proxyJar,
            Watchdog.class.getName(),
            "--properties", properties.toString());
        ProcessBuilder processBuilder = new ProcessBuilder(command)
            .directory(workDirectory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(workDirectory.resolve("s3proxy.log").toFile());
        // Standard input stays a pipe that this JVM never closes until close(): the watchdog's lifeline.
        processBuilder.redirectInput(ProcessBuilder.Redirect.PIPE);
        return processBuilder.start();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot start S3Proxy from " + s3proxyJar + ": " + e.getMessage(), e);
      }
    }

    private void writeProperties(Path file, int port) throws IOException {
      Properties properties = new Properties();
      properties.setProperty("s3proxy.endpoint", "http://" + HOST + ":" + port);
      properties.setProperty("s3proxy.authorization", "aws-v2-or-v4");
      properties.setProperty("s3proxy.identity", accessKey);
      properties.setProperty("s3proxy.credential", secretKey);
      properties.setProperty("jclouds.identity", accessKey);
      properties.setProperty("jclouds.credential", secretKey);
      if (storage == Storage.FILESYSTEM) {
        properties.setProperty("jclouds.provider", "filesystem");
        properties.setProperty("jclouds.filesystem.basedir", directory.toString());
      } else {
        properties.setProperty("jclouds.provider", "transient");
      }
      try (OutputStream out = Files.newOutputStream(file)) {
        properties.store(out, "statesweep local S3 server");
      }
    }
  }

  /** The endpoint URI, such as {@code http://127.0.0.1:41234}. */
  public String endpoint() {
    return "http://" + HOST + ":" + port;
  }

  public int port() {
    return port;
  }

  public String accessKey() {
    return accessKey;
  }

  public String secretKey() {
    return secretKey;
  }

  public Storage storage() {
    return storage;
  }

  /** The S3Proxy log (deleted with the server's temporary directory on close). */
  public Path logFile() {
    return logFile;
  }

  public boolean isRunning() {
    return !closed.get() && process.isAlive();
  }

  /** Settings that reach this server: its endpoint, path-style addressing, {@value #REGION}. */
  public S3Settings s3Settings() {
    return S3Settings.defaults().withEndpoint(endpoint(), true).withRegion(REGION);
  }

  /**
   * Sets {@code aws.accessKeyId}, {@code aws.secretAccessKey} and {@code aws.region} ({@value #REGION})
   * so that the SDK's default credentials provider chain finds this server's credentials.
   */
  public LocalS3Server setCredentialSystemProperties() {
    System.setProperty("aws.accessKeyId", accessKey);
    System.setProperty("aws.secretAccessKey", secretKey);
    System.setProperty("aws.region", REGION);
    return this;
  }

  /** Creates the bucket unless this server already has it; returns its name. */
  public String createBucket(String name) {
    requireNonNull(name, "name is null");
    try {
      adminClient().createBucket(b -> b.bucket(name));
    } catch (BucketAlreadyOwnedByYouException e) {
      // Idempotent: test classes sharing one server may ask for the same bucket.
    }
    return name;
  }

  /** Turns versioning on for {@code bucket} (a bucket of this server), as PutBucketVersioning Enabled does. */
  public void enableVersioning(String bucket) {
    requireNonNull(bucket, "bucket is null");
    adminClient().putBucketVersioning(b -> b.bucket(bucket)
        .versioningConfiguration(v -> v.status(software.amazon.awssdk.services.s3.model.BucketVersioningStatus.ENABLED)));
  }

  /** Suspends versioning of {@code bucket}, as PutBucketVersioning Suspended does: new versions get the id null. */
  public void suspendVersioning(String bucket) {
    requireNonNull(bucket, "bucket is null");
    adminClient().putBucketVersioning(b -> b.bucket(bucket).versioningConfiguration(
        v -> v.status(software.amazon.awssdk.services.s3.model.BucketVersioningStatus.SUSPENDED)));
  }

  /** The delete markers of {@code bucket}: each key that has any, to their version ids (the latest first). */
  public java.util.Map<String, List<String>> deleteMarkers(String bucket) {
    requireNonNull(bucket, "bucket is null");
    java.util.Map<String, List<String>> markers = new java.util.TreeMap<>();
    for (var page : adminClient().listObjectVersionsPaginator(b -> b.bucket(bucket))) {
      page.deleteMarkers().forEach(marker -> markers.computeIfAbsent(marker.key(), key -> new java.util.ArrayList<>())
          .add(marker.versionId()));
    }
    return markers;
  }

  private synchronized S3Client adminClient() {
    if (closed.get()) {
      throw new IllegalStateException("The local S3 server at " + endpoint() + " is closed");
    }
    if (adminClient == null) {
      // The server's own client, with its credentials: it must work before and without the system properties.
      adminClient = client(endpoint(), accessKey, secretKey);
    }
    return adminClient;
  }

  /**
   * A client with explicit credentials, which the caller closes (tests of signature checking use it).
   * It uses the same HTTP client as {@code S3Clients} (deprecated in SDK 2.57 in favour of Apache 5),
   * so the server is tested with what the product sends.
   */
  @SuppressWarnings("deprecation")
  static S3Client client(String endpoint, String accessKey, String secretKey) {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .httpClientBuilder(ApacheHttpClient.builder())
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }

  /** Stops the server and deletes its temporary directory (its log among them). Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (this) {
      if (adminClient != null) {
        adminClient.close();
        adminClient = null;
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down: the hook is running or has run.
    }
    stop(process);
    deleteRecursively(workDirectory);
  }

  @Override
  public String toString() {
    return "LocalS3Server[" + endpoint() + ", " + storage.name().toLowerCase(java.util.Locale.ROOT)
        + (directory != null ? " " + directory : "") + "]";
  }

  private void awaitPort(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("S3Proxy exited with code " + process.exitValue()
            + " before answering on " + HOST + ":" + port + "; " + logTail());
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(HOST, port), 200);
        return;
      } catch (IOException notYet) {
        // Not listening yet.
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("S3Proxy did not answer on " + HOST + ":" + port + " within "
            + timeout.toSeconds() + " s; " + logTail());
      }
      sleep(Duration.ofMillis(50));
    }
  }

  private boolean lostPortRace() {
    return readLogTail().stream().anyMatch(line -> line.contains("BindException") || line.contains("Address already in use"));
  }

  /** After a failed start the log is the only clue: keep the directory, drop the credentials file. */
  private void stopAfterFailedStart() {
    closed.set(true);
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // Shutting down already.
    }
    stop(process);
    try {
      Files.deleteIfExists(workDirectory.resolve("s3proxy.properties"));
    } catch (IOException e) {
      // Best effort: the directory is private to this user.
    }
  }

  private String logTail() {
    List<String> lines = readLogTail();
    return lines.isEmpty()
        ? "its log " + logFile + " is empty"
        : "last lines of its log " + logFile + ":\n  " + String.join("\n  ", lines);
  }

  private List<String> readLogTail() {
    Deque<String> tail = new ArrayDeque<>();
    try (Stream<String> lines = Files.lines(logFile, StandardCharsets.UTF_8)) {
      lines.forEach(line -> {
        tail.addLast(line);
        if (tail.size() > LOG_TAIL_LINES) {
          tail.removeFirst();
        }
      });
    } catch (IOException | UncheckedIOException e) {
      return List.of();
    }
    return new ArrayList<>(tail);
  }

  private static void stop(Process process) {
    if (!process.isAlive()) {
      return;
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // The watchdog's pipe is gone already; destroy() below still stops the process.
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  static Path locateJar() {
    String property = System.getProperty(JAR_PROPERTY);
    if (property != null && !property.isBlank()) {
      return checkJar(Path.of(property), " named by the system property " + JAR_PROPERTY);
    }
    Path workingDirectory = Path.of(System.getProperty("user.dir"));
    List<String> looked = new ArrayList<>();
    for (String candidate : JAR_CANDIDATES) {
      Path path = workingDirectory.resolve(candidate).normalize();
      if (Files.isRegularFile(path)) {
        return path;
      }
      looked.add(path.toString());
    }
    throw new IllegalStateException("Cannot find the S3Proxy jar: set the system property " + JAR_PROPERTY
        + " to the path of s3proxy-4.1.0-jar-with-dependencies.jar (looked in " + String.join(", ", looked)
        + "; 'mvn -o -q -DskipTests install' copies it to <module>/target/s3proxy/s3proxy.jar)");
  }

  private static Path checkJar(Path jar, String namedBy) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("The S3Proxy jar " + jar + namedBy + " does not exist");
    }
    return jar.toAbsolutePath();
  }

  private static Path createWorkDirectory() {
    try {
      // Owner-only permissions on POSIX: the properties file holds the secret.
      return Files.createTempDirectory("statesweep-s3proxy-");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temporary directory for S3Proxy", e);
    }
  }

  /** The watchdog's class file, copied out so the child's class path is S3Proxy's jar and nothing of ours. */
  private static void copyWatchdog(Path classesDirectory) throws IOException {
    String className = Watchdog.class.getName();
    Path target = classesDirectory.resolve(className.replace('.', '/') + ".class");
    Files.createDirectories(target.getParent());
    String resource = "/" + className.replace('.', '/') + ".class";
    try (InputStream in = LocalS3Server.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("class resource " + resource + " is missing");
      }
      Files.copy(in, target);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(HOST, 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port on " + HOST, e);
    }
  }

  private static String checkIdentity(String name, String value) {
    requireNonNull(value, name + " is null");
    if (!IDENTITY.matcher(value).matches()) {
      throw new IllegalArgumentException(name + " must be letters, digits or ._~+/=- only");
    }
    return value;
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for S3Proxy", e);
    }
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // Best effort: a leftover temporary directory is harmless.
    }
  }

  /**
   * The child JVM's main class: exits when its standard input closes (this JVM closed it, or died),
   * then hands over to S3Proxy. It uses nothing but the JDK, so it runs on S3Proxy's class path alone.
   */
  static final class Watchdog {
    private static final String S3PROXY_MAIN = "org.gaul.s3proxy.Main";

    private Watchdog() {}

    public static void main(String[] args) throws Exception {
      Thread lifeline = new Thread(Watchdog::exitWhenInputCloses, "statesweep-parent-watchdog");
      lifeline.setDaemon(true);
      lifeline.start();
      Class.forName(S3PROXY_MAIN).getMethod("main", String[].class).invoke(null, (Object) args);
    }

    private static void exitWhenInputCloses() {
      try {
        while (System.in.read() != -1) {
          // Nothing is ever sent: only the end of the stream matters.
        }
      } catch (IOException e) {
        // A broken pipe means the parent is gone, too.
      }
      Runtime.getRuntime().halt(0);
    }
  }
}
