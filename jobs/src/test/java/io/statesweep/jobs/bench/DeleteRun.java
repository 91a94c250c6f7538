package io.statesweep.jobs.bench;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.TestActions;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectStore;
import io.statesweep.synthetic.DeleteLog;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import io.statesweep.testing.TestOptions;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.SparkSession;

/**
 * Delete throughput under a ceiling, on the synthetic endpoint with a latency per request, measured
 * at the server: statesweep plans an archive of due records (10 files and a state file each), then
 * executes the plan with {@code --max-deletes-per-second} in {@code tasks} Spark tasks
 * ({@code local[tasks]}). Prints the keys per second sustained (first to last key the server
 * deleted), the most keys the server deleted in any 1-second span (sliding), the calendar seconds
 * below 90 % of the ceiling, the requests per record, and the time from each record's verification
 * (its state file's first GET) to its last delete; beside it the server's raw DeleteObjects rate at
 * the same latency (1,000 keys a request with per-key ETags, no throttle, one request in flight and
 * {@code tasks} in flight), and the same plan executed once more without a ceiling on a fresh server.
 *
 * <p>Arguments: {@code keys latency-ms keys-per-second [tasks (16)] [workers (16)]}; a ceiling of 0
 * executes without one.
 */
final class DeleteRun {
  private static final int FILES_PER_RECORD = 10;
  private static final long SECOND = 1_000_000_000L;

  private DeleteRun() {}

  static void main(String[] args) throws Exception {
    long keys = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 1_000_000;
    int latencyMillis = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int ceiling = args.length > 2 ? Integer.parseInt(args[2]) : 3500;
    int tasks = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    int workers = args.length > 4 ? Integer.parseInt(args[4]) : 16;
    long records = (keys + FILES_PER_RECORD) / (FILES_PER_RECORD + 1);
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    System.setProperty("spark.master", "local[" + tasks + "]");
    System.out.printf("synthetic S3: %d due records x %d keys = %d keys, %d ms per request; execute with"
        + " --max-deletes-per-second %d in local[%d], --workers %d; %d cores%n", records, FILES_PER_RECORD + 1,
        records * (FILES_PER_RECORD + 1), latencyMillis, ceiling, tasks, workers,
        Runtime.getRuntime().availableProcessors());
    SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, records, FILES_PER_RECORD, 1_000, false, 1);

    // The raw rate first, on an archive of its own: 100,000 keys with one request in flight, as many with
    // `tasks` in flight.
    double[] raw = new double[2];
    try (SyntheticS3Server server = new SyntheticS3Server(ScaleBenchmark.BUCKET, archive,
        Duration.ofMillis(latencyMillis), 0)) {
      ObjectStore store = S3ObjectStore.open(S3Settings.defaults().withEndpoint(server.endpoint(), true)
          .withMaxConnections(300), ScaleBenchmark.BUCKET);
      long sample = Math.min(records / 2, 100_000 / (FILES_PER_RECORD + 1));
      raw[0] = rawDeletes(server, store, archive, 0, sample, 1);
      raw[1] = rawDeletes(server, store, archive, sample, 2 * sample, tasks);
    }

    String warehouse = Files.createTempDirectory("statesweep-deletes").toString();
    SparkSession spark = ScaleBenchmark.session();
    PlanResult plan;
    try (SyntheticS3Server server = new SyntheticS3Server(ScaleBenchmark.BUCKET, archive,
        Duration.ofMillis(latencyMillis), 0)) {
      RunOptions options = options(server.endpoint(), warehouse, workers, ceiling);
      long started = System.nanoTime();
      plan = TestActions.plan(spark, options);
      if (plan.failure() != null) {
        throw new IllegalStateException("plan failed: " + plan.failure());
      }
      System.out.printf("plan: %.1f s, %s%n", (System.nanoTime() - started) / 1e9, plan.summary().line());
      execute(spark, server, options, plan, records, ceiling, raw, tasks);
    }
    if (ceiling > 0) {
      // The same plan once more without a ceiling, on a fresh server with the same archive (same keys
      // and ETags): what verification and deletes reach on this machine at this moment.
      try (SyntheticS3Server server = new SyntheticS3Server(ScaleBenchmark.BUCKET, archive,
          Duration.ofMillis(latencyMillis), 0)) {
        System.out.println();
        System.out.println("the same plan without a ceiling, on a fresh server:");
        execute(spark, server, options(server.endpoint(), warehouse, workers, 0), plan, records, 0, raw, tasks);
      }
    }
    spark.stop();
  }

  private static RunOptions options(String endpoint, String warehouse, int workers, int ceiling) {
    return TestOptions.of(endpoint, ScaleBenchmark.BUCKET, ScaleBenchmark.PREFIX, warehouse)
        .with("--workers", Integer.toString(workers)).with("--pages-per-task", "20").with("--dry-run", "false")
        .with("--conditional-deletes", "on").with("--max-deletes-per-second", Integer.toString(ceiling)).options();
  }

  private static void execute(SparkSession spark, SyntheticS3Server server, RunOptions options, PlanResult plan,
      long records, int ceiling, double[] raw, int tasks) {
    server.resetCounts();
    long started = System.nanoTime();
    ExecuteResult result = TestActions.executeOwnPlan(spark, options, plan);
    double executeSeconds = (System.nanoTime() - started) / 1e9;
    if (result.failure() != null) {
      throw new IllegalStateException("execute failed: " + result.failure());
    }
    System.out.printf("execute: %.1f s, %s%n", executeSeconds, result.summary().line());
    print(server, records, ceiling, executeSeconds, raw, tasks, result.metricsJson());
  }

  private static void print(SyntheticS3Server server, long records, int ceiling, double executeSeconds, double[] raw,
      int tasks, String metricsJson) {
    DeleteLog log = server.deleteLog();
    Map<String, Long> requests = server.requestCounts();
    double sustained = log.keys() / log.seconds();
    long most = log.mostKeysInAnySpan(SECOND);
    long[] perSecond = log.keysPerSecond();
    long[] sortedSeconds = perSecond.clone();
    Arrays.sort(sortedSeconds);
    long below = Arrays.stream(perSecond).filter(count -> count < 0.9 * ceiling).count();
    double[] window = log.verificationToLastDeleteMillis();
    System.out.println();
    System.out.printf("%-62s %12s%n", "measured at the server", "value");
    System.out.printf("%-62s %,12d%n", "keys deleted", log.keys());
    System.out.printf("%-62s %12.1f%n", "seconds from the first key deleted to the last", log.seconds());
    System.out.printf("%-62s %,12.0f%s%n", "keys/s sustained", sustained,
        ceiling > 0 ? String.format(" (%.1f %% of %d)", 100 * sustained / ceiling, ceiling) : "");
    System.out.printf("%-62s %,12d%s%n", "most keys deleted in any 1-second span (sliding)", most,
        ceiling > 0 ? (most <= ceiling ? " (within the ceiling)" : " (ABOVE the ceiling)") : "");
    if (sortedSeconds.length > 0) {
      System.out.printf("%-62s %,12d / %,d / %,d%n", "keys per calendar second: min / median / max", sortedSeconds[0],
          sortedSeconds[sortedSeconds.length / 2], sortedSeconds[sortedSeconds.length - 1]);
      if (ceiling > 0) {
        System.out.printf("%-62s %12s%n", "calendar seconds below 90 % of the ceiling (of all)",
            below + " of " + perSecond.length);
      }
    }
    for (String operation : List.of("GET", "LIST", "DELETE", "DELETE_OBJECT", "HEAD", "PUT")) {
      long count = requests.getOrDefault(operation, 0L);
      System.out.printf("%-62s %12.3f (%,d)%n", operation.equals("DELETE") ? "DeleteObjects per record"
          : operation + " per record", count / (double) records, count);
    }
    System.out.printf("%-62s %12.1f%n", "keys per DeleteObjects request", log.keys()
        / (double) Math.max(1, requests.getOrDefault("DELETE", 0L)));
    if (window.length > 0) {
      System.out.printf("%-62s %,.0f / %,.0f / %,.0f ms%n", "state-file GET to last delete: median / p99 / max",
          window[window.length / 2], window[(int) Math.min(window.length - 1, Math.floor(window.length * 0.99))],
          window[window.length - 1]);
    }
    String json = metricsJson == null ? "" : metricsJson;
    java.util.regex.Matcher windows = java.util.regex.Pattern.compile("\"verified_to_deleted_ms\":\\{([^}]*)\\}")
        .matcher(json);
    System.out.printf("%-62s %s%n", "verification to last delete (metrics JSON, ms)",
        windows.find() ? windows.group(1) : "none");
    System.out.printf("%-62s %12.1f%n", "execute, whole job (s)", executeSeconds);
    System.out.printf("%-62s %,12.0f%n", "raw DeleteObjects, 1,000 keys a request, 1 in flight (keys/s)", raw[0]);
    System.out.printf("%-62s %,12.0f%n", "raw DeleteObjects, 1,000 keys a request, " + tasks + " in flight (keys/s)",
        raw[1]);
  }

  /** Deletes records [from, to) 1,000 keys a request with per-key ETags, {@code inFlight} at once; keys/s at the server. */
  private static double rawDeletes(SyntheticS3Server server, ObjectStore store, SyntheticArchive archive, long from,
      long to, int inFlight) throws Exception {
    List<List<DeleteTarget>> batches = new ArrayList<>();
    List<DeleteTarget> batch = new ArrayList<>();
    for (long record = from; record < to; record++) {
      for (int file = 0; file <= FILES_PER_RECORD; file++) {
        batch.add(new DeleteTarget(archive.key(record, file), archive.etag(record, file)));
        if (batch.size() == 1000) {
          batches.add(batch);
          batch = new ArrayList<>();
        }
      }
    }
    if (!batch.isEmpty()) {
      batches.add(batch);
    }
    server.resetCounts();
    ExecutorService pool = Executors.newFixedThreadPool(inFlight);
    long started = System.nanoTime();
    try {
      List<Future<DeleteResult>> futures = new ArrayList<>();
      for (List<DeleteTarget> request : batches) {
        futures.add(pool.submit(() -> store.delete(request)));
      }
      for (Future<DeleteResult> future : futures) {
        DeleteResult result = future.get();
        if (!result.errors().isEmpty()) {
          throw new IllegalStateException("raw delete failed: " + result.errors());
        }
      }
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    return server.deleteLog().keys() / seconds;
  }
}
