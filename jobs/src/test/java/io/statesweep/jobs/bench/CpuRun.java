package io.statesweep.jobs.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3Settings;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Process;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * CPU per key at scale: {@code statesweep plan}, then {@code statesweep run --execute}, of one synthetic archive, each
 * in a JVM of its own under {@link PlanHeapProbe} (as {@link HeapRun} runs them; the synthetic S3 endpoint in another
 * JVM, so the server's CPU does not count), beside the AWS SDK's own cost of a ListObjectsV2 page measured in the same
 * run: this JVM's calling thread listing the same archive through the SDK's synchronous client (the Apache HTTP client
 * reads and the SDK unmarshals the answer on that thread), at 0 ms a request, after a warm-up.
 *
 * <p>Prints, for each Spark job group (a phase: {@code plan-list}, {@code plan-read-state-files}, {@code
 * execute-delete}, ...), the CPU its tasks used (Spark's executor CPU time, deserialization included), per 1,000 keys
 * listed (plan phases) or deleted (execute phases), and as a multiple of the SDK's CPU per 1,000 keys listed; then the
 * whole plan JVM's CPU (tasks, driver threads, compilers, collector) per 1,000 keys listed. Figures only: it asserts
 * nothing.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify -pl jobs -am -Dscale.args="cpu keys latency-ms [heap]"}, for
 * example {@code "cpu 1000000 20"}: 10 keys a record (9 files and a state file), 1,000 records a project, 1 record in
 * 10 due; the plan JVM in local mode ({@code local[*]}), {@code --workers 16 --pages-per-task 20}.
 */
final class CpuRun {
  private static final int FILES_PER_RECORD = 9;
  private static final int WARM_UP_PAGES = 100;
  private static final int MEASURED_PAGES = 300;
  private static final ObjectMapper JSON = new ObjectMapper();

  private CpuRun() {}

  static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: cpu keys latency-ms [heap]");
      System.exit(2);
    }
    long keys = Long.parseLong(args[0].replace("_", ""));
    int latencyMillis = Integer.parseInt(args[1]);
    String heap = args.length > 2 ? args[2] : "2g";
    long records = Math.max(1, keys / (FILES_PER_RECORD + 1));
    SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, records, FILES_PER_RECORD, 1_000, false,
        10);
    System.out.printf("cpu per key: %,d keys (%,d records, 1 in 10 due) on the synthetic endpoint in its own JVM,"
        + " %d ms a request; statesweep in a JVM of its own, -Xmx%s, local[*]; %d cores%n", archive.keys(),
        archive.records(), latencyMillis, heap, Runtime.getRuntime().availableProcessors());

    double sdkMillisPerThousand = sdkListingCpu(archive);
    System.out.printf("SDK: ListObjectsV2 on the calling thread (HTTP and unmarshalling), %d pages of 1,000 keys after"
        + " %d to warm up, 0 ms a request: %.2f CPU-ms per 1,000 keys%n", MEASURED_PAGES, WARM_UP_PAGES,
        sdkMillisPerThousand);

    Map<String, String> plan = HeapRun.command(archive, latencyMillis, heap, "default", List.of(), List.of("plan"),
        List.of("--log-lines", "0"));
    Map<String, String> run = HeapRun.command(archive, latencyMillis, heap, "default", List.of(),
        List.of("run", "--execute"), List.of("--log-lines", "0"));

    long listed = Long.parseLong(plan.getOrDefault("keys_listed", "0"));
    long deleted = keysDeleted(run.getOrDefault("metrics", ""));
    System.out.println();
    System.out.printf("plan: exit %s, %,d keys listed, wall %s s; run --execute: exit %s, %,d keys deleted,"
        + " wall %s s%n",
        plan.get("exit"), listed, plan.get("wall_s"), run.get("exit"), deleted, run.get("wall_s"));
    System.out.println();
    System.out.println("| run | phase | wall s | JVM CPU s | per | CPU-ms per 1,000 keys | x SDK"
        + " | task threads' CPU s |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
    table("plan", plan, listed, deleted, sdkMillisPerThousand);
    table("run --execute", run, listed, deleted, sdkMillisPerThousand);
    System.out.println("wall s: from the phase's first Spark job to the next phase's (start-up: from main() to the"
        + " first job); JVM CPU s: the plan JVM's CPU time over that span, every thread (tasks and the threads they"
        + " start, the driver, compilers, collector); per: the keys it is divided by (a plan's phases: keys listed; an"
        + " execute's: keys deleted); x SDK: CPU-ms per 1,000 keys over the SDK's own per 1,000 keys of a"
        + " ListObjectsV2 page; task threads' CPU s: Spark's executor CPU time of the phase's tasks (their own threads"
        + " only, not the S3 workers they start).");
    double wholePlan = seconds(plan, "cpu_process_s") * 1e6 / listed;
    System.out.printf("whole plan: %.1f CPU-ms per 1,000 keys listed, %.1f times the SDK's %.2f%n", wholePlan,
        wholePlan / sdkMillisPerThousand, sdkMillisPerThousand);
  }

  /** One row per phase of a run, then the whole JVM's. */
  private static void table(String name, Map<String, String> result, long listed, long deleted, double sdk) {
    Map<String, Double> wall = HeapRun.phaseSeconds(result.getOrDefault("phases", ""));
    Map<String, Double> tasks = groups(result, "cpu_tasks_s:");
    for (Map.Entry<String, Double> phase : groups(result, "cpu_phase_s:").entrySet()) {
      String phaseName = phase.getKey();
      boolean execute = phaseName.startsWith("execute-");
      Double taskSeconds = tasks.get(execute || phaseName.equals("start-up") ? phaseName : "plan-" + phaseName);
      row(name, phaseName, wall.getOrDefault(phaseName, Double.NaN), phase.getValue(), execute ? "deleted" : "listed",
          execute ? deleted : listed, execute ? Double.NaN : sdk, taskSeconds);
    }
    row(name, "whole JVM", Double.parseDouble(result.getOrDefault("wall_s", "NaN")), seconds(result, "cpu_process_s"),
        "listed", listed, sdk, seconds(result, "cpu_tasks_s"));
  }

  /**
   * CPU-ms per 1,000 keys that this thread spends in {@code ListObjectsV2} through the SDK's synchronous client,
   * the synthetic endpoint (another JVM) answering at once.
   */
  private static double sdkListingCpu(SyntheticArchive archive) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    try (SyntheticS3Process server = SyntheticS3Process.start(ScaleBenchmark.BUCKET, archive, Duration.ZERO, "512m");
        S3Client client = S3Clients.build(S3Settings.defaults().withEndpoint(server.endpoint(), true)
            .withRegion("us-east-1"))) {
      String token = null;
      long keys = 0;
      long cpuStarted = 0;
      for (int page = 0; page < WARM_UP_PAGES + MEASURED_PAGES; page++) {
        if (page == WARM_UP_PAGES) {
          cpuStarted = threads.getCurrentThreadCpuTime();
          keys = 0;
        }
        String continuation = token;
        ListObjectsV2Response answer = client.listObjectsV2(request -> request.bucket(ScaleBenchmark.BUCKET)
            .prefix(ScaleBenchmark.PREFIX).maxKeys(1_000).continuationToken(continuation));
        keys += answer.keyCount();
        token = answer.nextContinuationToken();
        if (token == null) {
          throw new IllegalStateException("the archive has fewer than " + (WARM_UP_PAGES + MEASURED_PAGES)
              + " pages of 1,000 keys: give it more keys");
        }
      }
      double cpuMillis = (threads.getCurrentThreadCpuTime() - cpuStarted) / 1e6;
      return cpuMillis / keys * 1_000;
    }
  }

  /** The figures whose keys start with {@code prefix}, by the rest of their key, in the order they were printed. */
  static Map<String, Double> groups(Map<String, String> result, String prefix) {
    Map<String, Double> groups = new LinkedHashMap<>();
    result.forEach((key, value) -> {
      if (key.startsWith(prefix)) {
        groups.put(key.substring(prefix.length()), Double.parseDouble(value));
      }
    });
    return groups;
  }

  private static double seconds(Map<String, String> result, String key) {
    String value = result.get(key);
    if (value == null) {
      throw new IllegalStateException("the run printed no " + key + ": " + result);
    }
    return Double.parseDouble(value);
  }

  /** The keys an execute deleted: {@code keys_deleted} of its metrics line. */
  static long keysDeleted(String metricsLines) throws Exception {
    List<JsonNode> executes = new ArrayList<>();
    for (String line : metricsLines.split("\n")) {
      if (!line.isBlank()) {
        JsonNode metrics = JSON.readTree(line);
        if (metrics.path("command").asText().equals("execute")) {
          executes.add(metrics);
        }
      }
    }
    if (executes.isEmpty()) {
      throw new IllegalStateException("run --execute printed no execute metrics line");
    }
    return executes.get(executes.size() - 1).path("counts").path("keys_deleted").asLong();
  }

  private static void row(String run, String phase, double wall, double seconds, String per, long keys, double sdk,
      Double taskSeconds) {
    double perThousand = keys == 0 ? Double.NaN : seconds * 1e6 / keys;
    System.out.printf("| %s | %s | %.1f | %.1f | %,d keys %s | %.1f | %s | %s |%n", run, phase, wall, seconds, keys,
        per, perThousand, Double.isNaN(sdk) ? "-" : String.format("%.1f", perThousand / sdk),
        taskSeconds == null ? "-" : String.format("%.1f", taskSeconds));
  }
}
