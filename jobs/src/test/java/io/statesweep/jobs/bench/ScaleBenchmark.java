package io.statesweep.jobs.bench;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.s3.ObjectContent;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.PlanResult;
import io.statesweep.spark.SparkPlanAction;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * Listing and state-file reads at scale, on the synthetic S3 endpoint with a latency per request:
 * (a) the reference approach (one sequential ListObjectsV2 walk, then 16 threads of GETs in one
 * process), (b) Spark with Hadoop S3A (a recursive {@code FileSystem.listFiles} on the driver, then
 * the state files read with {@code FileSystem.open} in 16 Spark tasks) and (c) statesweep plan with
 * 16 Spark tasks, on a uniform archive and (c) on a skewed one (half of all records in one project),
 * then an incremental plan. Prints a table; not a test.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify} ({@code -Dscale.args="records latency-ms"}).
 * {@code -Dscale.args="heap keys[,keys...] latency-ms [heap] [master]"} runs {@link HeapRun} instead:
 * statesweep plan in a JVM of its own with a 1 GB heap, the synthetic server in another.
 */
public final class ScaleBenchmark {
  static final String BUCKET = "bench";
  static final String PREFIX = "cogram/";

  private ScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("heap")) {
      HeapRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    long records = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
    int latencyMillis = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int filesPerRecord = 9;
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    System.setProperty("spark.master", "local[16]");
    System.out.printf("synthetic S3: %d records x %d keys = %d keys, %d ms per request; %d cores%n", records,
        filesPerRecord + 1, records * (filesPerRecord + 1), latencyMillis, Runtime.getRuntime().availableProcessors());

    // Warm up: the first Spark job of a JVM pays for class loading and code generation; S3A too.
    try (SyntheticS3Server warmUp = new SyntheticS3Server(BUCKET, new SyntheticArchive(PREFIX, 2_000, 2, 100, false,
        10), Duration.ZERO, 0)) {
      plan(warmUp.endpoint(), Files.createTempDirectory("statesweep-warm-up"));
      s3a(session(), warmUp.endpoint());
    }
    List<Row> rows = new ArrayList<>();
    double wholePlan = 0;
    long[] gets = new long[2];
    for (boolean skewed : new boolean[] {false, true}) {
      SyntheticArchive archive = new SyntheticArchive(PREFIX, records, filesPerRecord, 1_000, skewed, 10);
      String shape = skewed ? "skewed" : "uniform";
      try (SyntheticS3Server server = new SyntheticS3Server(BUCKET, archive, Duration.ofMillis(latencyMillis), 0)) {
        if (!skewed) {
          rows.add(reference(server.endpoint(), shape));
          System.out.println("(a) requests: " + server.requestCounts());
          server.resetCounts();
          rows.add(s3a(session(), server.endpoint()).named("(b) Spark + S3A, " + shape));
          System.out.println("(b) requests: " + server.requestCounts()
              + (server.unsupportedRequests().isEmpty() ? "" : "; answered 501: " + server.unsupportedRequests()));
        }
        server.resetCounts();
        Path warehouse = Files.createTempDirectory("statesweep-scale");
        long started = System.nanoTime();
        PlanResult plan = plan(server.endpoint(), warehouse);
        double planSeconds = (System.nanoTime() - started) / 1e9;
        if (!skewed) {
          wholePlan = planSeconds;
        }
        double listSeconds = plan.phaseSeconds().getOrDefault("list", 0.0);
        double readSeconds = plan.phaseSeconds().getOrDefault("read-state-files", 0.0);
        long keys = Long.parseLong(plan.summary().extra().get("keys_listed"));
        rows.add(new Row("(c) statesweep plan, " + shape, keys, listSeconds, plan.summary().stateFilesScanned(),
            readSeconds));
        System.out.println(shape + " plan phases (s): " + plan.phaseSeconds() + "; requests: " + server.requestCounts());
        if (!skewed) {
          // An incremental plan after 1 % of the state files changed.
          for (long record = 0; record < records; record += 100) {
            server.put(archive.key(record, filesPerRecord), archive.content(record, filesPerRecord));
          }
          server.resetCounts();
          PlanResult incremental = plan(server.endpoint(), warehouse);
          gets[0] = Long.parseLong(plan.summary().extra().get("state_file_gets"));
          gets[1] = Long.parseLong(incremental.summary().extra().get("state_file_gets"));
          System.out.printf("incremental plan after 1 %% of state files changed: %d GETs against %d for a full"
              + " plan (%.2f %%); server saw %s%n", gets[1], gets[0], 100.0 * gets[1] / gets[0], server.requestCounts());
        }
      }
    }
    System.out.println();
    System.out.printf("%-30s %10s %7s %9s %8s %7s %7s %7s%n", "run", "keys", "list s", "keys/s", "GETs", "read s",
        "GETs/s", "wall s");
    for (Row row : rows) {
      System.out.println(row);
    }
    Row a = rows.get(0);
    Row b = rows.get(1);
    Row c = rows.get(2);
    System.out.printf("%-30s %7s %7s%n", "ratio to (a)", "b/a", "c/a");
    System.out.printf("%-30s %7.2f %7.2f%n", "listing keys/s", b.keysPerSecond() / a.keysPerSecond(),
        c.keysPerSecond() / a.keysPerSecond());
    System.out.printf("%-30s %7.2f %7.2f%n", "state-file GETs/s", b.getsPerSecond() / a.getsPerSecond(),
        c.getsPerSecond() / a.getsPerSecond());
    System.out.printf("%-30s %7.2f %7.2f%n", "wall (list + read) speed-up", a.wall() / b.wall(), a.wall() / c.wall());
    System.out.printf("skewed/uniform listing keys/s (statesweep) = %.2f%n", rows.get(3).keysPerSecond()
        / c.keysPerSecond());
    System.out.printf("(c) wall s is its list and read-state-files phases (the latter with writing table"
        + " state_files); the whole uniform plan took %.1f s (with the joins, planning and the Delta tables)%n",
        wholePlan);
    session().stop();
  }

  /** One measured approach: keys listed and state files read, and how long each took. */
  record Row(String name, long keys, double listSeconds, long gets, double readSeconds) {
    Row named(String newName) {
      return new Row(newName, keys, listSeconds, gets, readSeconds);
    }

    double keysPerSecond() {
      return keys / listSeconds;
    }

    double getsPerSecond() {
      return gets / readSeconds;
    }

    double wall() {
      return listSeconds + readSeconds;
    }

    @Override
    public String toString() {
      return String.format("%-30s %10d %7.1f %9.0f %8d %7.1f %7.0f %7.1f", name, keys, listSeconds, keysPerSecond(),
          gets, readSeconds, getsPerSecond(), wall());
    }
  }

  /** (a) One sequential ListObjectsV2 walk, then 16 threads of GETs, in this process (no Spark). */
  private static Row reference(String endpoint, String shape) throws Exception {
    ObjectStore store = new ObjectStore(S3Clients.shared(S3Settings.defaults().withEndpoint(endpoint, true)
        .withMaxConnections(300)), BUCKET);
    long started = System.nanoTime();
    List<String> stateFiles = new ArrayList<>();
    long[] listed = {0};
    store.listAll(PREFIX, object -> {
      listed[0]++;
      if (object.key().endsWith("state.json")) {
        stateFiles.add(object.key());
      }
    });
    double listSeconds = (System.nanoTime() - started) / 1e9;
    started = System.nanoTime();
    readAll(store, stateFiles, 16);
    double getSeconds = (System.nanoTime() - started) / 1e9;
    return new Row("(a) reference, " + shape, listed[0], listSeconds, stateFiles.size(), getSeconds);
  }

  /**
   * (b) What a Spark user writes with S3A: {@code FileSystem.listFiles(prefix, true)} on the driver,
   * the state files' paths kept there, then a Dataset of those paths in 16 partitions whose tasks
   * read each file with {@code FileSystem.open} (S3A: a HEAD, then a ranged GET).
   */
  static Row s3a(SparkSession spark, String endpoint) throws Exception {
    Map<String, String> settings = s3aSettings(endpoint);
    Configuration conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    settings.forEach(conf::set);
    URI bucket = URI.create("s3a://" + BUCKET + "/");
    long started = System.nanoTime();
    List<String> stateFiles = new ArrayList<>();
    long listed = 0;
    // A new instance, not FileSystem.get: the cache is keyed by bucket, and every server here is a new endpoint.
    try (FileSystem fs = FileSystem.newInstance(bucket, conf)) {
      RemoteIterator<LocatedFileStatus> files = fs.listFiles(new org.apache.hadoop.fs.Path(bucket.resolve(PREFIX)),
          true);
      while (files.hasNext()) {
        LocatedFileStatus file = files.next();
        listed++;
        if (file.getPath().getName().endsWith("state.json")) {
          stateFiles.add(file.getPath().toString());
        }
      }
    }
    double listSeconds = (System.nanoTime() - started) / 1e9;
    started = System.nanoTime();
    long read = 0;
    for (Long count : spark.createDataset(stateFiles, Encoders.STRING()).repartition(16)
        .mapPartitions(new ReadWithS3a(settings), Encoders.LONG()).collectAsList()) {
      read += count;
    }
    double readSeconds = (System.nanoTime() - started) / 1e9;
    if (read != stateFiles.size()) {
      throw new IllegalStateException("S3A read " + read + " of " + stateFiles.size() + " state files");
    }
    return new Row("(b) Spark + S3A", listed, listSeconds, read, readSeconds);
  }

  static Map<String, String> s3aSettings(String endpoint) {
    Map<String, String> settings = new HashMap<>();
    settings.put("fs.s3a.endpoint", endpoint);
    settings.put("fs.s3a.endpoint.region", "us-east-1");
    settings.put("fs.s3a.path.style.access", "true");
    settings.put("fs.s3a.connection.ssl.enabled", "false");
    settings.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    settings.put("fs.s3a.access.key", "synthetic");
    settings.put("fs.s3a.secret.key", "synthetic");
    return settings;
  }

  /** Reads every file of a partition with S3A, one after the other; yields how many it read. */
  static final class ReadWithS3a implements MapPartitionsFunction<String, Long> {
    private static final long serialVersionUID = 1L;
    private final HashMap<String, String> settings;

    ReadWithS3a(Map<String, String> settings) {
      this.settings = new HashMap<>(settings);
    }

    @Override
    public Iterator<Long> call(Iterator<String> paths) throws Exception {
      Configuration conf = new Configuration();
      settings.forEach(conf::set);
      long files = 0;
      long bytes = 0;
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
        while (paths.hasNext()) {
          try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(paths.next()))) {
            bytes += in.readAllBytes().length;
          }
          files++;
        }
      }
      if (files > 0 && bytes == 0) {
        throw new IllegalStateException("read no bytes");
      }
      return List.of(files).iterator();
    }
  }

  static SparkSession session() {
    return SparkSession.builder().appName("statesweep scale benchmark")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "16")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
  }

  private static PlanResult plan(String endpoint, Path warehouse) throws Exception {
    Map<String, String> flags = new HashMap<>();
    flags.put("--bucket", BUCKET);
    flags.put("--prefix", PREFIX);
    flags.put("--endpoint", endpoint);
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    flags.put("--workers", "16");
    flags.put("--pages-per-task", "20");
    RunOptions options = RunOptions.from(Settings.resolve(flags, Map.of(), null));
    PlanResult result = new SparkPlanAction(session(), options).execute();
    if (result.failure() != null) {
      throw new IllegalStateException("plan failed: " + result.failure());
    }
    return result;
  }

  private static void readAll(ObjectStore store, List<String> keys, int threads) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<ObjectContent>> futures = new ArrayList<>();
      for (String key : keys) {
        futures.add(pool.submit(() -> store.read(key, 1 << 20)));
      }
      for (Future<ObjectContent> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
