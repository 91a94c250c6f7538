package io.statesweep.jobs.bench;

import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.TestActions;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import io.statesweep.testing.TestOptions;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
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
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify} ({@code -Dscale.args="records latency-ms [ms:records]"};
 * the optional third compares the listing alone once more at another latency, with as many records;
 * {@code -Dscale.args="listing latency-ms records"} runs only that comparison).
 * {@code -Dscale.args="heap keys[,keys...] latency-ms [heap] [master]"} runs {@link HeapRun} instead:
 * statesweep plan in a JVM of its own with a 1 GB heap, the synthetic server in another.
 * {@code -Dscale.args="nested records[,records...] latency-ms"} runs {@link NestedRecordBenchmark}: the
 * heap of executing one project record above that many nested records.
 * {@code -Dscale.args="deletes keys latency-ms keys-per-second [tasks] [workers]"} runs {@link DeleteRun}:
 * plan and execute under {@code --max-deletes-per-second}, measured at the server.
 * {@code -Dscale.args="missing lines[,lines...] [lost-per-record] [heap] [latency-ms]"} runs {@link MissingLinesRun}:
 * a plan that prints that many {@code missing} lines with a 1 GB heap.
 * {@code -Dscale.args="pacing [K] [seconds] [exporter%] [margin%]"} runs {@link PacingRun}: fixed ceiling and adaptive
 * pacing side by side on a model of S3's partitions;
 * {@code -Dscale.args="cpu keys latency-ms [heap]"} runs {@link CpuRun}: CPU per 1,000 keys of each phase of
 * {@code plan} and {@code run --execute}, beside the SDK's own CPU per ListObjectsV2 page.
 * {@code -Dscale.args="backfill keys[,keys...] latency-ms [heap] [bound] [due-every]"} runs {@link BackfillRun}: plan, approve,
 * execute and the next day's plan of one archive, each command a JVM of its own, and the executions checked against
 * the keys the endpoint deleted.
 * {@code -Dscale.args="warm [rounds] [key=value[,key=value]] ..."} runs {@link WarmRuns}: a plan and an execute of a
 * tiny archive in a warm JVM, under the tests' Spark session and under each Spark SQL setting given.
 * {@code -Dscale.args="small [repetitions] [small,demo] [launches]"} runs {@link SmallRunBenchmark}: the shipped jar's
 * {@code plan} and {@code run --execute} of small archives on a local S3Proxy server, each a JVM of its own,
 * beside {@link ReferenceCleanup}.
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
    if (args.length > 0 && args[0].equals("nested")) {
      NestedRecordBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("missing")) {
      MissingLinesRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("deletes")) {
      DeleteRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("pacing")) {
      PacingRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("cpu")) {
      CpuRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("backfill")) {
      BackfillRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("bigrecord")) {
      BigRecordRun.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("warm")) {
      WarmRuns.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("small")) {
      SmallRunBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("listing")) {
      setUp();
      printListingAt(Long.parseLong(args[2]), Integer.parseInt(args[1]));
      session().stop();
      return;
    }
    long records = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
    int latencyMillis = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    // Optional "ms:records": listing alone once more at another latency.
    int extraLatency = args.length > 2 ? Integer.parseInt(args[2].split(":")[0]) : 0;
    long extraRecords = args.length > 2 ? Long.parseLong(args[2].split(":")[1]) : 0;
    int filesPerRecord = 9;
    System.out.printf("synthetic S3: %d records x %d keys = %d keys, %d ms per request; %d cores%n", records,
        filesPerRecord + 1, records * (filesPerRecord + 1), latencyMillis, Runtime.getRuntime().availableProcessors());
    setUp();
    try (SyntheticS3Server warmUp = new SyntheticS3Server(BUCKET, new SyntheticArchive(PREFIX, 2_000, 2, 100, false,
        10), Duration.ZERO, 0)) {
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
          rows.add(reference(server.endpoint(), shape, true));
          System.out.println("(a) requests: " + server.requestCounts());
          server.resetCounts();
          rows.add(s3a(session(), server.endpoint()).named("(b) Spark + S3A, " + shape));
          System.out.println("(b) requests: " + server.requestCounts()
              + (server.unsupportedRequests().isEmpty() ? "" : "; answered 501: " + server.unsupportedRequests()));
        }
        server.resetCounts();
        Path warehouse = Files.createTempDirectory("statesweep-scale");
        long started = System.nanoTime();
        PlannedRow planned = planRow(server.endpoint(), warehouse, "(c) statesweep plan, " + shape);
        PlanResult plan = planned.plan();
        double planSeconds = (System.nanoTime() - started) / 1e9;
        if (!skewed) {
          wholePlan = planSeconds;
        }
        rows.add(planned.row());
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
    System.out.printf("%-30s %10s %7s %9s %8s %8s %7s %7s %7s%n", "run", "keys", "list s", "keys/s", "cpu ms/p",
        "GETs", "read s", "GETs/s", "wall s");
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
    System.out.printf("cpu ms/p: CPU of this JVM (client, Spark, the in-process server) per 1,000 keys listed."
        + " With %d cores, listing c/a can be at most (a)'s wall ms per page / ((c)'s cpu ms per page / cores)"
        + " = %.1f / (%.1f / %d) = %.2f at %d ms%n", Runtime.getRuntime().availableProcessors(),
        a.wallMillisPerPage(), c.cpuMillisPerPage(), Runtime.getRuntime().availableProcessors(), cpuCeiling(a, c),
        latencyMillis);
    if (extraLatency > 0) {
      printListingAt(extraRecords, extraLatency);
    }
    System.out.printf("(c) wall s is its list and read-state-files phases (the latter with writing table"
        + " state_files); the whole uniform plan took %.1f s (with the joins, planning and the Delta tables)%n",
        wholePlan);
    session().stop();
  }

  /** One measured approach: keys listed and state files read, and how long each took. */
  record Row(String name, long keys, double listSeconds, long gets, double readSeconds, double listCpuSeconds) {
    Row named(String newName) {
      return new Row(newName, keys, listSeconds, gets, readSeconds, listCpuSeconds);
    }

    /** CPU of this whole JVM (client, Spark and the in-process server) per 1,000 keys listed. */
    double cpuMillisPerPage() {
      return listCpuSeconds * 1000 / (keys / 1000.0);
    }

    double wallMillisPerPage() {
      return listSeconds * 1000 / (keys / 1000.0);
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

    String listingColumns() {
      return String.format("%-30s %10d %7.1f %9.0f %8.1f", name, keys, listSeconds, keysPerSecond(), cpuMillisPerPage());
    }

    @Override
    public String toString() {
      return String.format("%s %8d %7.1f %7.0f %7.1f", listingColumns(), gets, readSeconds, getsPerSecond(), wall());
    }
  }

  /**
   * Credentials for the synthetic endpoint, 16 Spark tasks, and a warm-up plan: the first Spark job of
   * a JVM pays for class loading and code generation.
   */
  private static void setUp() throws Exception {
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    System.setProperty("spark.master", "local[16]");
    try (SyntheticS3Server warmUp = new SyntheticS3Server(BUCKET, new SyntheticArchive(PREFIX, 2_000, 2, 100, false,
        10), Duration.ZERO, 0)) {
      plan(warmUp.endpoint(), Files.createTempDirectory("statesweep-warm-up"));
    }
  }

  /** A plan and its row: keys listed and the CPU of this JVM during its list phase, state files read. */
  private record PlannedRow(PlanResult plan, Row row) {}

  private static PlannedRow planRow(String endpoint, Path warehouse, String name) throws Exception {
    try (CpuSampler cpu = new CpuSampler()) {
      long started = System.nanoTime();
      PlanResult plan = plan(endpoint, warehouse);
      double listSeconds = plan.phaseSeconds().getOrDefault("list", 0.0);
      double readSeconds = plan.phaseSeconds().getOrDefault("read-state-files", 0.0);
      long keys = Long.parseLong(plan.summary().extra().get("keys_listed"));
      // The list phase is the plan's first: it starts within milliseconds of the call.
      double listCpu = cpu.secondsBetween(started, started + (long) (listSeconds * 1e9));
      return new PlannedRow(plan, new Row(name, keys, listSeconds, plan.summary().stateFilesScanned(), readSeconds,
          listCpu));
    }
  }

  /**
   * Listing alone at another latency: (a)'s sequential walk beside (c)'s list phase, and the ceiling
   * that this machine's cores put on their ratio.
   */
  private static List<Row> listingAt(long records, int latencyMillis) throws Exception {
    SyntheticArchive archive = new SyntheticArchive(PREFIX, records, 9, 1_000, false, 10);
    try (SyntheticS3Server server = new SyntheticS3Server(BUCKET, archive, Duration.ofMillis(latencyMillis), 0)) {
      Row a = reference(server.endpoint(), "uniform, " + latencyMillis + " ms", false);
      Row c = planRow(server.endpoint(), Files.createTempDirectory("statesweep-scale"),
          "(c) statesweep plan, " + latencyMillis + " ms").row();
      return List.of(a, c);
    }
  }

  private static void printListingAt(long records, int latencyMillis) throws Exception {
    List<Row> listing = listingAt(records, latencyMillis);
    Row a = listing.get(0);
    Row c = listing.get(1);
    System.out.println();
    System.out.printf("listing alone at %d ms per request (%d keys):%n", latencyMillis, a.keys());
    System.out.printf("%-30s %10s %7s %9s %8s%n", "run", "keys", "list s", "keys/s", "cpu ms/p");
    for (Row row : listing) {
      System.out.println(row.listingColumns());
    }
    System.out.printf("listing c/a = %.2f at %d ms (cpu ceiling %.2f)%n", c.keysPerSecond() / a.keysPerSecond(),
        latencyMillis, cpuCeiling(a, c));
  }

  /**
   * How far {@code c} can outrun the sequential {@code a} on this machine's cores: (a) waits a whole
   * request per page; (c) can do no better than its CPU per page spread over the cores.
   */
  private static double cpuCeiling(Row a, Row c) {
    int cores = Runtime.getRuntime().availableProcessors();
    return a.wallMillisPerPage() / (c.cpuMillisPerPage() / cores);
  }

  /** This JVM's CPU time so far, every thread's. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** This JVM's CPU time, sampled every 20 ms, so a window inside a longer call can be measured. */
  private static final class CpuSampler implements AutoCloseable {
    private final List<long[]> samples = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;

    CpuSampler() {
      sample();
      thread = new Thread(() -> {
        try {
          while (!Thread.currentThread().isInterrupted()) {
            Thread.sleep(20);
            sample();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "cpu-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    private void sample() {
      samples.add(new long[] {System.nanoTime(), processCpuNanos()});
    }

    /** CPU seconds between two {@code System.nanoTime()} instants, from the samples nearest each. */
    double secondsBetween(long from, long to) {
      return (cpuAt(to) - cpuAt(from)) / 1e9;
    }

    private long cpuAt(long time) {
      synchronized (samples) {
        long[] best = samples.get(0);
        for (long[] sample : samples) {
          if (Math.abs(sample[0] - time) < Math.abs(best[0] - time)) {
            best = sample;
          }
        }
        return best[1];
      }
    }

    @Override
    public void close() throws InterruptedException {
      thread.interrupt();
      thread.join();
    }
  }

  /** (a) One sequential ListObjectsV2 walk, then 16 threads of GETs, in this process (no Spark). */
  private static Row reference(String endpoint, String shape, boolean readStateFiles) throws Exception {
    ObjectStore store = S3ObjectStore.open(S3Settings.defaults().withEndpoint(endpoint, true)
        .withMaxConnections(300), BUCKET);
    long started = System.nanoTime();
    long cpuStarted = processCpuNanos();
    List<String> stateFiles = new ArrayList<>();
    long[] listed = {0};
    store.listAll(PREFIX, object -> {
      listed[0]++;
      if (object.key().endsWith("state.json")) {
        stateFiles.add(object.key());
      }
    });
    double listSeconds = (System.nanoTime() - started) / 1e9;
    double listCpu = (processCpuNanos() - cpuStarted) / 1e9;
    double getSeconds = 0;
    if (readStateFiles) {
      started = System.nanoTime();
      readAll(store, stateFiles, 16);
      getSeconds = (System.nanoTime() - started) / 1e9;
    }
    return new Row("(a) reference, " + shape, listed[0], listSeconds, readStateFiles ? stateFiles.size() : 0,
        getSeconds, listCpu);
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
    long cpuStarted = processCpuNanos();
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
    double listCpu = (processCpuNanos() - cpuStarted) / 1e9;
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
    return new Row("(b) Spark + S3A", listed, listSeconds, read, readSeconds, listCpu);
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
    RunOptions options = TestOptions.of(endpoint, BUCKET, PREFIX, warehouse).with("--workers", "16")
        .with("--pages-per-task", "20").options();
    PlanResult result = TestActions.plan(session(), options);
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
