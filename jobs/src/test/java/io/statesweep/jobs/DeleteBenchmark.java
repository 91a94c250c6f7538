package io.statesweep.jobs;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.local.LocalS3Server;
import io.statesweep.spark.TestActions;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.SparkSession;

/**
 * Delete throughput on the local S3 server (S3Proxy, in memory), in one run: the server's raw
 * DeleteObjects rate (1,000 keys a request, as many requests in flight as Spark has cores, with and
 * without per-key ETags) beside statesweep's execute rate on an archive of the same number of keys,
 * where each record is also verified (a conditional GET and a LIST) before its keys go. Not a test and
 * not in the job jar: {@code mvn -B -q -Pbench -DskipTests verify} ({@code -Dbench.args="--records N
 * --files-per-record F"}).
 */
public final class DeleteBenchmark {
  private static final String BUCKET = "bench";
  private static final String PREFIX = "cogram/";

  private DeleteBenchmark() {}

  public static void main(String[] args) throws Exception {
    int code = run(args, System.out);
    System.out.flush();
    if (code != 0) {
      System.exit(code);
    }
  }

  static int run(String[] args, PrintStream out) throws Exception {
    Map<String, String> given = new LinkedHashMap<>(Map.of("--records", "1000", "--files-per-record", "10"));
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--help") || args[i].equals("-h")) {
        out.println("usage: DeleteBenchmark [--records N (default 1000)] [--files-per-record F (default 10)]");
        return 0;
      }
      if (!given.containsKey(args[i]) || i + 1 >= args.length) {
        throw new IllegalArgumentException("Unknown option or missing value: " + args[i]
            + " (options: --records N, --files-per-record F)");
      }
      given.put(args[i], args[++i]);
    }
    int records = Integer.parseInt(given.get("--records"));
    int filesPerRecord = Integer.parseInt(given.get("--files-per-record"));
    int threads = Runtime.getRuntime().availableProcessors();
    try (LocalS3Server server = LocalS3Server.builder().maxHeap("2g").start()) {
      server.setCredentialSystemProperties();
      server.createBucket(BUCKET);
      ObjectStore store = S3ObjectStore.open(server.s3Settings(), BUCKET);
      int keys = records * (filesPerRecord + 1);
      out.printf("S3Proxy (transient) at %s; %d cores; %d keys per measurement%n", server.endpoint(), threads, keys);

      List<String> raw = new ArrayList<>(keys);
      for (int i = 0; i < keys; i++) {
        raw.add(String.format("raw/r%05d/k%06d.bin", i % 1000, i));
      }
      Map<String, String> etags = writeAll(store, raw);
      double unconditional = deleteAll(store, raw, null, threads);
      etags = writeAll(store, raw);
      double conditional = deleteAll(store, raw, etags, threads);

      List<String> archive = new ArrayList<>();
      Map<String, String> states = new LinkedHashMap<>();
      for (int r = 0; r < records; r++) {
        String folder = PREFIX + "projects/p" + (r % 50) + "/documents/d" + r + "/";
        List<String> files = new ArrayList<>();
        for (int f = 0; f < filesPerRecord; f++) {
          files.add(folder + "page-" + f + ".png");
        }
        archive.addAll(files);
        states.put(folder + "state.json", "{\"delete\": true, \"files\": [\"" + String.join("\", \"", files) + "\"]}");
      }
      writeAll(store, archive);
      states.forEach((key, json) -> store.write(key, json.getBytes(StandardCharsets.UTF_8)));

      Path warehouse = Files.createTempDirectory("statesweep-bench");
      RunOptions options = TestOptions.of(server.endpoint(), BUCKET, PREFIX, warehouse).with("--dry-run", "false")
          .options();
      SparkSession spark = SparkSessions.forPlan("statesweep bench-delete", options.plan());
      PlanResult plan = TestActions.plan(spark, options);
      long started = System.nanoTime();
      ExecuteResult result = TestActions.executeOwnPlan(spark, options, plan, ExecutionHook.NONE);
      double seconds = (System.nanoTime() - started) / 1e9;
      long deleted = result.summary().childKeysDeleted() + result.summary().recordsDeleted();
      double statesweep = deleted / seconds;
      // The delete phase alone, without the job's fixed cost of reading the plan and writing its tables.
      org.apache.spark.sql.Row span = TableReader.of(spark, result.tables()).executions()
          .filter("attempt_id = '" + result.attemptId() + "'")
          .selectExpr("unix_micros(max(ended_at)) - unix_micros(min(started_at))").first();
      double phaseSeconds = span.getLong(0) / 1e6;

      out.println();
      out.printf("%-58s %12s%n", "measurement", "keys/s");
      out.printf("%-58s %12.0f%n", "raw DeleteObjects, 1000 keys/request, " + threads + " in flight", unconditional);
      out.printf("%-58s %12.0f%n", "raw DeleteObjects with per-key ETags (conditional)", conditional);
      out.printf("%-58s %12.0f%n", "statesweep execute (" + records + " records verified, " + deleted + " keys, "
          + String.format("%.1f s", seconds) + ")", statesweep);
      out.printf("%-58s %12.0f%n", "statesweep verify+delete phase alone ("
          + String.format("%.1f s", phaseSeconds) + ")", deleted / phaseSeconds);
      out.printf("%-58s %12.2f%n", "ratio statesweep job / raw conditional", statesweep / conditional);
      out.printf("%-58s %12.2f%n", "ratio statesweep phase / raw conditional", deleted / phaseSeconds / conditional);
      out.println(result.summary().line());
      return result.summary().exitCode();
    }
  }

  private static Map<String, String> writeAll(ObjectStore store, List<String> keys) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      Map<String, Future<String>> futures = new LinkedHashMap<>();
      byte[] content = "x".repeat(64).getBytes(StandardCharsets.UTF_8);
      for (String key : keys) {
        futures.put(key, pool.submit(() -> store.write(key, content)));
      }
      Map<String, String> etags = new LinkedHashMap<>();
      for (Map.Entry<String, Future<String>> entry : futures.entrySet()) {
        etags.put(entry.getKey(), entry.getValue().get());
      }
      return etags;
    } finally {
      pool.shutdownNow();
    }
  }

  private static double deleteAll(ObjectStore store, List<String> keys, Map<String, String> etags, int threads)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicLong deleted = new AtomicLong();
    long started = System.nanoTime();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int from = 0; from < keys.size(); from += 1000) {
        List<DeleteTarget> batch = new ArrayList<>();
        for (String key : keys.subList(from, Math.min(keys.size(), from + 1000))) {
          batch.add(new DeleteTarget(key, etags == null ? null : etags.get(key)));
        }
        futures.add(pool.submit(() -> {
          DeleteResult result = store.delete(batch);
          if (!result.errors().isEmpty()) {
            throw new IllegalStateException("raw delete failed: " + result.errors());
          }
          deleted.addAndGet(result.deleted().size());
        }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return deleted.get() / ((System.nanoTime() - started) / 1e9);
  }
}
