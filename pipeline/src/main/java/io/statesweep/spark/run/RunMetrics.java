package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.RequestCounts;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.SparkContext;
import org.apache.spark.util.AccumulatorV2;
import org.apache.spark.util.LongAccumulator;

/**
 * What a run did, counted where it happens (in executors, through Spark accumulators) and read on
 * the driver: keys listed, state files read, records planned, records verified, keys deleted, and the
 * S3 requests by operation (calls, attempts, throttled, failed). The progress line reads it while the
 * run lasts; the metrics JSON at its end.
 */
public final class RunMetrics implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  public final LongAccumulator keysListed;
  public final LongAccumulator stateFilesRead;
  public final LongAccumulator recordsPlanned;
  public final LongAccumulator recordsVerified;
  public final LongAccumulator keysDeleted;
  final Requests requests;
  /** SlowDown answers to deletes by lane (pipeline/README.md, "Deleting at the bucket's speed"), those the SDK retried
   * included. */
  final Requests slowDowns;
  public final Durations verifiedToDeleted;

  private RunMetrics(SparkContext spark) {
    keysListed = spark.longAccumulator("statesweep.keys_listed");
    stateFilesRead = spark.longAccumulator("statesweep.state_files_read");
    recordsPlanned = spark.longAccumulator("statesweep.records_planned");
    recordsVerified = spark.longAccumulator("statesweep.records_verified");
    keysDeleted = spark.longAccumulator("statesweep.keys_deleted");
    requests = new Requests();
    spark.register(requests, "statesweep.s3_requests");
    slowDowns = new Requests();
    spark.register(slowDowns, "statesweep.slowdowns_by_lane");
    verifiedToDeleted = new Durations();
    spark.register(verifiedToDeleted, "statesweep.verified_to_deleted");
  }

  public static RunMetrics register(SparkContext spark) {
    return new RunMetrics(requireNonNull(spark, "spark is null"));
  }

  /** Adds what a store counted (in a task, or on the driver). */
  public void addRequests(RequestCounts counts) {
    requests.add(counts.snapshot());
  }

  /** Adds SlowDowns a task's deletes got, by lane. */
  public void addSlowDowns(Map<String, Long> byLane) {
    if (!byLane.isEmpty()) {
      slowDowns.add(byLane);
    }
  }

  /** SlowDown answers to deletes by lane so far. */
  public Map<String, Long> slowDownsByLane() {
    return slowDowns.value();
  }

  /** Counters by name, for the progress line and the metrics JSON. */
  public Map<String, Long> counters() {
    Map<String, Long> counters = new java.util.LinkedHashMap<>();
    counters.put("keys_listed", keysListed.value());
    counters.put("state_files_read", stateFilesRead.value());
    counters.put("records_planned", recordsPlanned.value());
    counters.put("records_verified", recordsVerified.value());
    counters.put("keys_deleted", keysDeleted.value());
    return counters;
  }

  /** S3 requests as {@code {operation: {calls, attempts, retries, throttled, failed}}}. */
  public Map<String, Map<String, Long>> requests() {
    Map<String, Map<String, Long>> byOperation = new TreeMap<>();
    requests.value().forEach((key, count) -> {
      int dot = key.lastIndexOf('.');
      byOperation.computeIfAbsent(key.substring(0, dot), k -> new TreeMap<>()).put(key.substring(dot + 1), count);
    });
    byOperation.values().forEach(counts -> {
      long calls = counts.getOrDefault(RequestCounts.CALLS, 0L);
      counts.put("retries", Math.max(0, counts.getOrDefault(RequestCounts.ATTEMPTS, 0L) - calls));
    });
    return byOperation;
  }

  /**
   * One JSON object a log or metrics pipeline can ingest: the run, the command, whether it completed,
   * the summary's counts, seconds per phase, the counters and the requests by operation.
   */
  public String json(String command, String runId, String attemptId, RunSummary summary,
      Map<String, Double> phaseSeconds) {
    ObjectNode root = JSON.createObjectNode();
    root.put("metric", "statesweep.run");
    root.put("command", command);
    root.put("run_id", runId);
    root.put("attempt_id", attemptId);
    root.put("dry_run", summary.dryRun());
    root.put("complete", summary.complete());
    ObjectNode counts = root.putObject("counts");
    counts.put("state_files_scanned", summary.stateFilesScanned());
    counts.put("records_deleted", summary.recordsDeleted());
    counts.put("child_keys_deleted", summary.childKeysDeleted());
    counts.put("records_kept", summary.recordsKept());
    counts.put("kept_newer_files", summary.keptNewerFiles());
    counts.put("kept_refused", summary.keptRefused());
    counts.put("skipped", summary.skipped());
    counts.put("errors", summary.errors());
    summary.extra().forEach((key, value) -> {
      try {
        counts.put(key, Long.parseLong(value));
      } catch (NumberFormatException notACount) {
        // run_id, conditional_deletes: not counts
      }
    });
    counters().forEach(counts::put);
    ObjectNode seconds = root.putObject("seconds");
    double total = 0;
    for (Map.Entry<String, Double> phase : phaseSeconds.entrySet()) {
      seconds.put(phase.getKey(), Math.round(phase.getValue() * 1000) / 1000.0);
      total += phase.getValue();
    }
    seconds.put("total", Math.round(total * 1000) / 1000.0);
    ObjectNode requestsNode = root.putObject("s3_requests");
    long throttled = 0;
    long retries = 0;
    for (Map.Entry<String, Map<String, Long>> operation : requests().entrySet()) {
      ObjectNode node = requestsNode.putObject(operation.getKey());
      operation.getValue().forEach(node::put);
      throttled += operation.getValue().getOrDefault(RequestCounts.THROTTLED, 0L);
      retries += operation.getValue().getOrDefault("retries", 0L);
    }
    root.put("retries", retries);
    root.put("throttled", throttled);
    Map<String, Long> byLane = slowDownsByLane();
    if (!byLane.isEmpty()) {
      ObjectNode lanes = root.putObject("delete_slowdowns_by_lane");
      byLane.forEach((lane, count) -> lanes.put(lane.isEmpty() ? "/" : lane, count));
    }
    Map<Integer, Long> windows = verifiedToDeleted.value();
    if (!windows.isEmpty()) {
      // From the end of a record's verification to the answer of its last delete: the window in which a
      // record coming back can lose a file (pipeline/README.md, "Deleting").
      ObjectNode window = root.putObject("verified_to_deleted_ms");
      window.put("records", windows.values().stream().mapToLong(Long::longValue).sum());
      window.put("p50", Durations.percentileMillis(windows, 0.50));
      window.put("p99", Durations.percentileMillis(windows, 0.99));
      window.put("max", Durations.percentileMillis(windows, 1.0));
    }
    return root.toString();
  }

  /**
   * A histogram of durations across tasks, in buckets 2 % wide (from 0.1 ms): percentiles within 2 %, in
   * a few hundred counters however many records there are.
   */
  public static final class Durations extends AccumulatorV2<Duration, Map<Integer, Long>> {
    private static final long serialVersionUID = 1L;
    private static final double WIDTH = Math.log(1.02);
    private static final double FLOOR_MICROS = 100;
    private final TreeMap<Integer, Long> buckets = new TreeMap<>();

    static int bucket(Duration duration) {
      double micros = Math.max(FLOOR_MICROS, duration.toNanos() / 1000.0);
      return (int) Math.floor(Math.log(micros / FLOOR_MICROS) / WIDTH);
    }

    /** The upper bound of the bucket that holds the {@code fraction} quantile, in milliseconds. */
    static double percentileMillis(Map<Integer, Long> buckets, double fraction) {
      long total = buckets.values().stream().mapToLong(Long::longValue).sum();
      long rank = Math.max(1, (long) Math.ceil(fraction * total));
      long seen = 0;
      for (Map.Entry<Integer, Long> bucket : new TreeMap<>(buckets).entrySet()) {
        seen += bucket.getValue();
        if (seen >= rank) {
          double upperMicros = FLOOR_MICROS * Math.exp((bucket.getKey() + 1) * WIDTH);
          return Math.round(upperMicros / 10.0) / 100.0;
        }
      }
      throw new IllegalArgumentException("no durations");
    }

    @Override
    public boolean isZero() {
      synchronized (buckets) {
        return buckets.isEmpty();
      }
    }

    @Override
    public AccumulatorV2<Duration, Map<Integer, Long>> copy() {
      Durations copy = new Durations();
      copy.addAll(value());
      return copy;
    }

    @Override
    public void reset() {
      synchronized (buckets) {
        buckets.clear();
      }
    }

    @Override
    public void add(Duration duration) {
      synchronized (buckets) {
        buckets.merge(bucket(duration), 1L, Long::sum);
      }
    }

    private void addAll(Map<Integer, Long> more) {
      synchronized (buckets) {
        more.forEach((bucket, count) -> buckets.merge(bucket, count, Long::sum));
      }
    }

    @Override
    public void merge(AccumulatorV2<Duration, Map<Integer, Long>> other) {
      addAll(other.value());
    }

    @Override
    public Map<Integer, Long> value() {
      synchronized (buckets) {
        return new TreeMap<>(buckets);
      }
    }
  }

  /** Sums maps of counts across tasks. */
  public static final class Requests extends AccumulatorV2<Map<String, Long>, Map<String, Long>> {
    private static final long serialVersionUID = 1L;
    private final HashMap<String, Long> counts = new HashMap<>();

    @Override
    public boolean isZero() {
      synchronized (counts) {
        return counts.isEmpty();
      }
    }

    @Override
    public AccumulatorV2<Map<String, Long>, Map<String, Long>> copy() {
      Requests copy = new Requests();
      copy.add(value());
      return copy;
    }

    @Override
    public void reset() {
      synchronized (counts) {
        counts.clear();
      }
    }

    @Override
    public void add(Map<String, Long> more) {
      synchronized (counts) {
        more.forEach((key, count) -> counts.merge(key, count, Long::sum));
      }
    }

    @Override
    public void merge(AccumulatorV2<Map<String, Long>, Map<String, Long>> other) {
      add(other.value());
    }

    @Override
    public Map<String, Long> value() {
      synchronized (counts) {
        return new TreeMap<>(counts);
      }
    }
  }
}
