package io.statesweep.jobs.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;

import io.statesweep.api.Tables;
import io.statesweep.synthetic.KeyDigest;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Process;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * A one-off backfill at scale, as a team would run it by hand: {@code statesweep plan} of the whole archive,
 * {@code approve} of that plan, {@code execute --run-id} of it, then the next day's {@code plan} after 1 % of the
 * state files changed, all into one warehouse, on the synthetic S3 endpoint. Each command runs in a JVM of its own
 * under {@link PlanHeapProbe} ({@link HeapRun#launch}; {@code -Xmx2g} by default, local mode, so the executors share
 * that fixed heap: its peak and live figures per phase, size beside size, show whether the driver's memory grows with
 * the key count), the synthetic server in another JVM (512 MB and 32 MB more per million keys: it holds the keys it
 * deleted).
 *
 * <p>For each size, one after the other (the warehouse kept across the steps of a size, deleted after it):
 * <ol>
 *   <li>{@code plan --workers 16 --pages-per-task 20 --log-lines 0};
 *   <li>{@code approve --run-id <run_id> --by bench@example.com} (it reads the plan's rows for its digest);
 *   <li>{@code execute --run-id <run_id> --max-deletes <bound> --pacing off --workers 16} (the endpoint has no model of
 *       S3's partitions here: deletes go unpaced);
 *   <li>the check of table {@code executions}: the archive's keys the endpoint deleted against the keys in the
 *       {@code deleted_keys} of the run's rows, as counts and order-independent digests ({@link KeyDigest}; read with
 *       a local Spark session in this JVM, which holds neither set), printed as a match or a mismatch;
 *   <li>the state files of every 100th record rewritten (records 1, 101, 201, ...: live records, none of them
 *       deleted; the same content under a new ETag, LastModified now), then {@code plan} again: its requests beside
 *       the first plan's.
 * </ol>
 *
 * <p>Prints a row as each step completes, then a table, one row per size and step: exit code, wall seconds (the
 * command's JVM from main() to exit), its whole JVM's CPU-ms per 1,000 keys (a plan's keys listed, the approved
 * plan's keys to delete, an execute's keys deleted), peak heap used (sampled every 20 ms) and most heap still used
 * after a full collection (one forced every 10 s), the requests the endpoint answered during the step by operation,
 * and the warehouse's size after it (the sizes of its files); then per step its phases (the Spark job groups; what runs
 * before a command's first group counts in {@code start-up}: wall seconds, JVM CPU, CPU-ms per 1,000 keys, peak and
 * live MB) and the size of each table. Exits 1 after all of it when
 * a command failed (the steps of that size after it do not run) or a check found a mismatch.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify -pl jobs -am -Dscale.args="backfill keys[,keys...] latency-ms
 * [heap] [bound] [due-every]"}, for example {@code "backfill 1000000,10000000 0"}: 10 keys a record (9 files and a
 * state file), 1,000 records a project, 1 record in {@code due-every} due (10: a tenth of the keys); heap {@code 2g};
 * bound, the execute's {@code --max-deletes}, by default 10,000,000 keys or the due keys, whichever is smaller.
 */
final class BackfillRun {
  private static final int FILES_PER_RECORD = 9;
  private static final long MOST_DELETES = 10_000_000;
  private static final String HEADER = "| keys | step | exit | wall s | CPU ms / 1,000 keys | per | peak MB | live MB"
      + " | GET | LIST | HEAD | DELETE | PUT | table MB |";

  private BackfillRun() {}

  /** The keys a step's CPU is divided by, from what it printed. */
  private interface Keys {
    long of(Map<String, String> result) throws Exception;
  }

  private static final Keys LISTED = result -> Long.parseLong(result.getOrDefault("keys_listed", "0"));
  private static final Keys DELETED = result -> result.containsKey("metrics")
      ? CpuRun.keysDeleted(result.get("metrics")) : 0;

  /** One command of one size, measured: what it printed, the keys its CPU is divided by, requests, table sizes. */
  private record Step(long size, String name, Map<String, String> result, long per, String perWhat,
      Map<String, Long> requests, Map<String, Long> tableBytes) {
    boolean ok() {
      return "0".equals(result.get("exit"));
    }

    double cpuMillisPerThousand(double cpuSeconds) {
      return per == 0 ? Double.NaN : cpuSeconds * 1e6 / per;
    }

    String row() {
      return String.format("| %,d | %s | %s | %s | %.1f | %,d keys %s | %s | %s | %,d | %,d | %,d | %,d | %,d | %.1f |",
          size, name, result.get("exit"), result.getOrDefault("wall_s", "-"),
          cpuMillisPerThousand(Double.parseDouble(result.getOrDefault("cpu_process_s", "NaN"))), per, perWhat,
          result.getOrDefault("peak_used_mb", "-"), result.getOrDefault("peak_live_mb", "-"), requests("GET"),
          requests("LIST"), requests("HEAD"), requests("DELETE"), requests("PUT"), megabytes(tableBytes.values()));
    }

    long requests(String operation) {
      return requests.getOrDefault(operation, 0L);
    }

    /** Per phase: wall s, JVM CPU s and per 1,000 keys, peak and live MB; then the tables' sizes. */
    String phases() {
      StringBuilder text = new StringBuilder(String.format("%,d keys, %s, per phase:", size, name));
      Map<String, Double> cpu = CpuRun.groups(result, "cpu_phase_s:");
      HeapRun.phaseFigures(result.getOrDefault("phases", "")).forEach((phase, figures) -> {
        double seconds = cpu.getOrDefault(phase, Double.NaN);
        text.append(String.format(" %s %.1f s, CPU %.1f s (%.1f ms / 1,000 keys), peak %.0f MB, live %s;", phase,
            figures[0], seconds, cpuMillisPerThousand(seconds), figures[1],
            figures[2] > 0 ? String.format("%.0f MB", figures[2]) : "-"));
      });
      text.append(" tables after it (MB):");
      tableBytes.forEach((table, bytes) -> text.append(String.format(" %s %.2f", table, bytes / 1e6)));
      return text.toString();
    }
  }

  static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: backfill keys[,keys...] latency-ms [heap] [bound] [due-every]");
      System.exit(2);
    }
    int latencyMillis = Integer.parseInt(args[1]);
    String heap = args.length > 2 ? args[2] : "2g";
    long bound = args.length > 3 ? Long.parseLong(args[3].replace("_", "")) : 0;
    int dueEvery = args.length > 4 ? Integer.parseInt(args[4]) : 10;
    System.out.printf("backfill: plan, approve, execute, plan after 1 %% changed; statesweep in a JVM of its own per"
        + " command, -Xmx%s, local[*]; the synthetic server in its own JVM, %d ms a request; %d cores%n", heap,
        latencyMillis, Runtime.getRuntime().availableProcessors());
    List<Step> steps = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    boolean allRight = true;
    for (String size : args[0].split(",")) {
      allRight &= backfill(Long.parseLong(size.replace("_", "")), latencyMillis, heap, bound, dueEvery, steps, notes);
    }
    System.out.println();
    System.out.println(HEADER);
    System.out.println(HEADER.replaceAll("[^|]+", " --- "));
    steps.forEach(step -> System.out.println(step.row()));
    System.out.println("wall s: the command's JVM from main() to exit; CPU: that JVM's, every thread, per 1,000 keys"
        + " of 'per'; peak MB: heap used, sampled every 20 ms; live MB: the most heap still used after a full"
        + " collection (one forced every 10 s), of -Xmx" + heap + "; GET ... PUT: requests the endpoint answered"
        + " during the step (DELETE: DeleteObjects); table MB: the warehouse's files after the step; a phase's live"
        + " -: no full collection fell in it");
    steps.forEach(step -> System.out.println(step.phases()));
    notes.forEach(System.out::println);
    if (SparkSession.getDefaultSession().isDefined()) {
      SparkSession.getDefaultSession().get().stop();
    }
    if (!allRight) {
      System.exit(1);
    }
  }

  /**
   * The four commands and the check for one size, each step's row printed as it completes; false when a command failed
   * or the check found a mismatch.
   */
  private static boolean backfill(long keys, int latencyMillis, String heap, long bound, int dueEvery,
      List<Step> steps, List<String> notes) throws Exception {
    SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, Math.max(1, keys / (FILES_PER_RECORD + 1)),
        FILES_PER_RECORD, 1_000, false, dueEvery);
    long maxDeletes = bound > 0 ? bound : Math.min(MOST_DELETES, Math.max(1, archive.keys() / dueEvery));
    // The endpoint keeps the archive's shape and every key deleted (about 320 MB per million).
    String serverHeap = (512 + archive.keys() / 1_000_000 * 32 + maxDeletes * 320 / 1_000_000) + "m";
    Path warehouse = Files.createTempDirectory("statesweep-backfill");
    try (SyntheticS3Process server = SyntheticS3Process.start(ScaleBenchmark.BUCKET, archive,
        Duration.ofMillis(latencyMillis), serverHeap)) {
      System.out.printf("%n== %,d keys (%,d records): server pid %d at %s, -Xmx%s; warehouse %s; --max-deletes %,d%n",
          archive.keys(), archive.records(), server.pid(), server.endpoint(), serverHeap, warehouse, maxDeletes);
      List<String> export = List.of("--bucket", ScaleBenchmark.BUCKET, "--prefix", ScaleBenchmark.PREFIX, "--endpoint",
          server.endpoint(), "--warehouse", warehouse.toString(), "--workers", "16");
      List<String> plan = HeapRun.concat(List.of("plan"), export, List.of("--pages-per-task", "20", "--log-lines", "0"));

      Step first = step(archive, "plan", server, warehouse, heap, plan, LISTED, "listed");
      steps.add(first);
      String runId = first.result().get("run_id");
      if (failed(first, notes)) {
        return false;
      }

      Step approve = step(archive, "approve", server, warehouse, heap, List.of("approve", "--run-id", runId, "--by",
          "bench@example.com", "--warehouse", warehouse.toString()), result -> Long.parseLong(
          result.getOrDefault("keys_to_delete", "0")), "to delete");
      steps.add(approve);
      if (failed(approve, notes)) {
        return false;
      }

      Step execute = step(archive, "execute", server, warehouse, heap, HeapRun.concat(List.of("execute", "--run-id", runId),
          export, List.of("--max-deletes", Long.toString(maxDeletes), "--pacing", "off")), DELETED, "deleted");
      steps.add(execute);
      if (failed(execute, notes)) {
        return false;
      }

      boolean matched = matches(archive, server, warehouse, runId, execute, notes);

      long touched = server.touchStateFiles(100, 1);
      System.out.printf("%,d state files rewritten (records 1, 101, 201, ...)%n", touched);
      Step daily = step(archive, "plan, 1 % changed", server, warehouse, heap, plan, LISTED, "listed");
      steps.add(daily);
      notes.add(String.format("%,d keys: the plan after %,d state files changed, against the first plan: %s, %s, %s;"
          + " state files read %s of %s", archive.keys(), touched, versus(daily, first, "GET"),
          versus(daily, first, "LIST"), versus(daily, first, "HEAD"), daily.result().get("state_file_gets"),
          first.result().get("state_file_gets")));
      System.out.println(notes.get(notes.size() - 1));
      return matched && daily.ok();
    } finally {
      HeapRun.deleteRecursively(warehouse);
    }
  }

  /** Whether {@code step} failed (then noted in {@code notes}: the steps after it do not run). */
  private static boolean failed(Step step, List<String> notes) {
    if (step.ok()) {
      return false;
    }
    notes.add(String.format("%,d keys: %s failed (exit %s): the steps after it did not run", step.size(), step.name(),
        step.result().get("exit")));
    return true;
  }

  /**
   * One command, measured, its row printed; its CPU is divided by {@code per} of what it printed, keys {@code
   * perWhat}.
   */
  private static Step step(SyntheticArchive archive, String name, SyntheticS3Process server, Path warehouse,
      String heap, List<String> arguments, Keys per, String perWhat) throws Exception {
    System.out.printf("%n-- %,d keys: %s%n", archive.keys(), name);
    server.resetCounts();
    Map<String, String> result = HeapRun.launch(heap, "default", List.of(), arguments);
    Step step = new Step(archive.keys(), name, result, per.of(result), perWhat, server.requestCounts(),
        tableBytes(warehouse));
    System.out.println("row: " + step.row());
    System.out.println(step.phases());
    return step;
  }

  /**
   * Whether the archive's keys that the endpoint deleted are the keys that table {@code executions} says run
   * {@code runId} deleted; noted (and printed) with both counts and the execute's own.
   */
  private static boolean matches(SyntheticArchive archive, SyntheticS3Process server, Path warehouse, String runId,
      Step execute, List<String> notes) throws IOException {
    KeyDigest seen = server.deletedKeys();
    KeyDigest recorded = recordedDeletes(warehouse, runId);
    notes.add(String.format("%,d keys: executions check %s: the endpoint deleted %,d keys (%s), table executions of run"
        + " %s records %,d (%s); the execute's metrics say %,d deleted", archive.keys(),
        seen.equals(recorded) ? "MATCH" : "MISMATCH", seen.keys(), seen, runId, recorded.keys(), recorded,
        execute.per()));
    System.out.println(notes.get(notes.size() - 1));
    return seen.equals(recorded);
  }

  /** Count and digest of every key in {@code deleted_keys} of {@code runId}'s rows of table executions. */
  private static KeyDigest recordedDeletes(Path warehouse, String runId) {
    if (System.getProperty("spark.master") == null) {
      System.setProperty("spark.master", "local[2]");
    }
    SparkSession spark = ScaleBenchmark.session();
    return spark.read().format("delta").load(new Tables(warehouse.toString()).executions())
        .where(col("run_id").equalTo(runId)).select(explode(col("deleted_keys"))).as(Encoders.STRING())
        .javaRDD().aggregate(new KeyDigest(), KeyDigest::add, KeyDigest::merge);
  }

  /** Bytes of each table directory of the warehouse (the sizes of its files). */
  private static Map<String, Long> tableBytes(Path warehouse) throws IOException {
    Map<String, Long> sizes = new LinkedHashMap<>();
    for (String table : Tables.ALL) {
      Path directory = warehouse.resolve(table);
      if (Files.isDirectory(directory)) {
        try (Stream<Path> files = Files.walk(directory)) {
          sizes.put(table, files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum());
        }
      }
    }
    return sizes;
  }

  private static String versus(Step step, Step against, String operation) {
    long base = against.requests(operation);
    return String.format("%,d %s of %,d (%s)", step.requests(operation), operation, base,
        base == 0 ? "-" : String.format("%.2f %%", 100.0 * step.requests(operation) / base));
  }

  private static double megabytes(java.util.Collection<Long> bytes) {
    return bytes.stream().mapToLong(Long::longValue).sum() / 1e6;
  }


}
