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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.SparkSession;

/**
 * Listing and state-file reads at scale, on the synthetic S3 endpoint with a latency per request:
 * (a) the reference approach (one sequential ListObjectsV2 walk, then 16 threads of GETs in one
 * process) beside (c) statesweep plan with 16 Spark tasks, on a uniform archive and on a skewed one
 * (half of all records in one project). Prints a table; not a test.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify} ({@code -Dscale.args="records latency-ms"}).
 */
public final class ScaleBenchmark {
  private ScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    long records = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
    int latencyMillis = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int filesPerRecord = 9;
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    System.setProperty("spark.master", "local[16]");
    System.out.printf("synthetic S3: %d records x %d keys = %d keys, %d ms per request; %d cores%n", records,
        filesPerRecord + 1, records * (filesPerRecord + 1), latencyMillis, Runtime.getRuntime().availableProcessors());

    // Warm up: the first Spark job of a JVM pays for class loading and code generation.
    try (SyntheticS3Server warmUp = new SyntheticS3Server("bench", new SyntheticArchive("cogram/", 2_000, 2, 100, false,
        10), Duration.ZERO, 0)) {
      plan(warmUp.endpoint(), Files.createTempDirectory("statesweep-warm-up"));
    }
    List<String[]> rows = new ArrayList<>();
    long[] gets = new long[2];
    for (boolean skewed : new boolean[] {false, true}) {
      SyntheticArchive archive = new SyntheticArchive("cogram/", records, filesPerRecord, 1_000, skewed, 10);
      String shape = skewed ? "skewed" : "uniform";
      try (SyntheticS3Server server = new SyntheticS3Server("bench", archive, Duration.ofMillis(latencyMillis), 0)) {
        ObjectStore store = new ObjectStore(S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true)
            .withMaxConnections(300)), "bench");
        if (!skewed) {
          long started = System.nanoTime();
          List<String> stateFiles = new ArrayList<>();
          long[] listed = {0};
          store.listAll("cogram/", object -> {
            listed[0]++;
            if (object.key().endsWith("state.json")) {
              stateFiles.add(object.key());
            }
          });
          double listSeconds = (System.nanoTime() - started) / 1e9;
          started = System.nanoTime();
          readAll(store, stateFiles, 16);
          double getSeconds = (System.nanoTime() - started) / 1e9;
          rows.add(row("(a) reference, " + shape, listed[0], listSeconds, stateFiles.size(), getSeconds));
        }
        server.resetCounts();
        Path warehouse = Files.createTempDirectory("statesweep-scale");
        PlanResult plan = plan(server.endpoint(), warehouse);
        double listSeconds = plan.phaseSeconds().getOrDefault("list", 0.0);
        double readSeconds = plan.phaseSeconds().getOrDefault("read-state-files", 0.0);
        long keys = Long.parseLong(plan.summary().extra().get("keys_listed"));
        rows.add(row("(c) statesweep plan, " + shape, keys, listSeconds, plan.summary().stateFilesScanned(),
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
    System.out.printf("%-32s %10s %9s %10s %9s %9s%n", "run", "keys", "list s", "keys/s", "GETs", "GETs/s");
    for (String[] row : rows) {
      System.out.printf("%-32s %10s %9s %10s %9s %9s%n", (Object[]) row);
    }
    double referenceList = Double.parseDouble(rows.get(0)[3]);
    double statesweepList = Double.parseDouble(rows.get(1)[3]);
    double skewedList = Double.parseDouble(rows.get(2)[3]);
    System.out.printf("listing keys/s: c/a = %.1f; skewed/uniform (statesweep) = %.2f%n", statesweepList / referenceList,
        skewedList / statesweepList);
    System.out.printf("state-file GETs/s: c/a = %.1f%n",
        Double.parseDouble(rows.get(1)[5]) / Double.parseDouble(rows.get(0)[5]));
    SparkSession.getDefaultSession().foreach(session -> {
      session.stop();
      return null;
    });
  }

  private static String[] row(String name, long keys, double listSeconds, long gets, double getSeconds) {
    return new String[] {name, Long.toString(keys), String.format("%.1f", listSeconds),
        String.format("%.0f", keys / listSeconds), Long.toString(gets), String.format("%.0f", gets / getSeconds)};
  }

  private static PlanResult plan(String endpoint, Path warehouse) throws Exception {
    Map<String, String> flags = new HashMap<>();
    flags.put("--bucket", "bench");
    flags.put("--prefix", "cogram/");
    flags.put("--endpoint", endpoint);
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    flags.put("--workers", "16");
    flags.put("--pages-per-task", "20");
    RunOptions options = RunOptions.from(Settings.resolve(flags, Map.of(), null));
    SparkSession spark = SparkSession.builder().appName("statesweep scale benchmark")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "16")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    PlanResult result = new SparkPlanAction(spark, options).execute();
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
