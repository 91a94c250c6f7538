package io.statesweep.jobs.bench;

import io.statesweep.synthetic.SyntheticArchive;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A plan that prints millions of {@code missing} lines on a small driver heap: the live records of a synthetic
 * archive list files the bucket lacks (as if a lifecycle rule had deleted them), so {@code statesweep plan} prints
 * one {@code missing <key>: listed by live record <state file>} line for each. The plan runs under
 * {@link PlanHeapProbe} in a JVM of its own ({@code -Xmx1g}; local mode, so the executors share that heap), the
 * synthetic server in another ({@link HeapRun#plan}); the lines it printed are counted and compared with the files
 * the archive lacks. Prints, per size: exit code, lines expected and printed, wall time and the log-lines phase's
 * time, the peak heap used (sampled every 20 ms) and the most heap still used after a full collection (one forced
 * every 10 s), over the whole run and in the log-lines phase.
 *
 * <p>Arguments: {@code lines[,lines...] [lost-per-record] [heap] [latency-ms]}: 100 lost files per live record by
 * default (so {@code lines / 100} live records and one due record, each with one file that exists), heap
 * {@code 1g}, 0 ms per request.
 */
public final class MissingLinesRun {
  private MissingLinesRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: missing lines[,lines...] [lost-per-record] [heap] [latency-ms]");
      System.exit(2);
    }
    int lostPerRecord = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    String heap = args.length > 2 ? args[2] : "1g";
    int latencyMillis = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    System.out.printf("statesweep plan printing missing lines, -Xmx%s (driver and executors in one JVM), %d lost files"
        + " per live record; the synthetic server in its own JVM, %d ms per request; %d cores%n", heap, lostPerRecord,
        latencyMillis, Runtime.getRuntime().availableProcessors());
    List<Map<String, String>> results = new ArrayList<>();
    for (String size : args[0].split(",")) {
      long lines = Long.parseLong(size.replace("_", ""));
      long liveRecords = Math.max(1, lines / lostPerRecord);
      // Record 0 is due (every dueEvery-th record is): dueEvery = records leaves it the only one.
      long records = liveRecords + 1;
      SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, records, 1, 1_000, false,
          (int) Math.min(Integer.MAX_VALUE, records)).withLostFiles(lostPerRecord);
      Map<String, String> result = new LinkedHashMap<>(HeapRun.plan(archive, latencyMillis, heap, "default", List.of(),
          List.of("--log-lines", "0")));
      result.put("expected", Long.toString(archive.lostFiles()));
      results.add(result);
    }
    System.out.println();
    String format = "%10s %10s %7s %8s %11s %9s %9s %13s %13s %6s%n";
    System.out.printf(format, "expected", "printed", "exit", "wall s", "log-lines s", "peak MB", "live MB",
        "log peak MB", "log live MB", "fullGC");
    for (Map<String, String> r : results) {
      String[] logLines = phase(r.getOrDefault("phases", ""), "log-lines");
      System.out.printf(format, r.get("expected"), r.getOrDefault("lines_missing", "0"), r.get("exit"), r.get("wall_s"),
          logLines[0], r.get("peak_used_mb"), r.get("peak_live_mb"), logLines[1], logLines[2], r.get("full_gcs"));
    }
    System.out.println("printed: missing lines the plan printed (the summary's missing_files= is "
        + "the count it made); live MB: the most heap still used after a full collection; log ...: the same in the"
        + " phase that prints the lines; fullGC: full collections the JVM needed itself; exit n/OOM: the JVM threw"
        + " java.lang.OutOfMemoryError");
    for (Map<String, String> r : results) {
      System.out.println(r.get("expected") + " lines, summary missing_files=" + r.get("missing_files") + ", per phase"
          + " (s/peak MB/live MB/Spark storage MB/Spark execution MB): " + r.get("phases"));
    }
  }

  /** The seconds, peak MB and live MB of {@code name} in the probe's phases ({@code name:1.2s/3MB/4MB/..}). */
  private static String[] phase(String phases, String name) {
    for (String phase : phases.split(",")) {
      if (phase.startsWith(name + ":")) {
        String[] parts = phase.substring(name.length() + 1).split("/");
        return new String[] {parts[0].replace("s", ""), parts[1].replace("MB", ""), parts[2].replace("MB", "")};
      }
    }
    return new String[] {"-", "-", "-"};
  }
}
