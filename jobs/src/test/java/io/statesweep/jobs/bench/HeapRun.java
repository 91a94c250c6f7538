package io.statesweep.jobs.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Process;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * statesweep {@code plan} of a large synthetic archive with a small driver heap: the command line
 * runs in a JVM of its own ({@code -Xmx1g} by default; local mode, so the executors share that heap)
 * under {@link PlanHeapProbe}, and the synthetic S3 server in another JVM, so neither the server nor
 * this harness counts. One run per size, one after the other; prints a table of wall time, keys
 * listed, requests the server answered, and the peak heap used and still used after GC.
 *
 * <p>Arguments: {@code keys[,keys...] latency-ms [heap] [master] [-Dname=value ...]}: keys are 10 a
 * record (9 files and a state file), 1,000 records a project; heap {@code 1g}; master
 * {@code default}: what a plain {@code java -cp} launch of the command line gets ({@code local[*]},
 * 8 shuffle partitions), or e.g. {@code local[16]} (as the scale benchmark's (c), 16 shuffle
 * partitions: 16 tasks share the heap); arguments that start with '-' go to the plan's JVM (Spark
 * settings as {@code -Dspark.x=y}). A heap dump goes to {@code jobs/target/heap-run/} if the plan
 * runs out of memory.
 */
public final class HeapRun {
  private static final int FILES_PER_RECORD = 9;

  private HeapRun() {}

  public static void main(String[] allArgs) throws Exception {
    List<String> positional = new ArrayList<>();
    List<String> jvmOptions = new ArrayList<>();
    for (String arg : allArgs) {
      (arg.startsWith("-") ? jvmOptions : positional).add(arg);
    }
    String[] args = positional.toArray(String[]::new);
    if (args.length < 2) {
      System.err.println("usage: heap keys[,keys...] latency-ms [heap] [master] [-Dspark.x=y ...]");
      System.exit(2);
    }
    List<Long> sizes = new ArrayList<>();
    for (String size : args[0].split(",")) {
      sizes.add(Long.parseLong(size.replace("_", "")));
    }
    int latencyMillis = Integer.parseInt(args[1]);
    String heap = args.length > 2 ? args[2] : "1g";
    String master = args.length > 3 ? args[3] : "default";
    System.out.printf("statesweep plan with -Xmx%s (master %s, driver and executors in one JVM)%s; the synthetic"
        + " server in its own JVM, %d ms per request%s; %d cores%n", heap, master,
        jvmOptions.isEmpty() ? "" : " and " + String.join(" ", jvmOptions), latencyMillis,
        latencyMillis < 20 ? " (lower than the scale benchmark's 20 ms, to keep the run within minutes)" : "",
        Runtime.getRuntime().availableProcessors());
    List<Map<String, String>> results = new ArrayList<>();
    for (long keys : sizes) {
      results.add(run(keys, latencyMillis, heap, master, jvmOptions));
    }
    System.out.println();
    System.out.printf("%10s %8s %7s %7s %7s %7s %7s %10s %9s %6s %6s %9s %9s %5s%n", "keys", "records", "exit",
        "wall s", "list s", "read s", "rest s", "keys/s", "GETs", "LISTs", "HEADs", "peak MB", "live MB", "fullGC");
    for (Map<String, String> r : results) {
      System.out.printf("%10s %8s %7s %7s %7s %7s %7s %10s %9s %6s %6s %9s %9s %5s%n", r.get("keys"), r.get("records"),
          r.get("exit"), r.get("wall_s"), r.get("list_s"), r.get("read_s"), r.get("rest_s"), r.get("keys_per_s"),
          r.getOrDefault("GET", "0"), r.getOrDefault("LIST", "0"), r.getOrDefault("HEAD", "0"), r.get("peak_used_mb"),
          r.get("peak_live_mb"), r.get("full_gcs"));
    }
    System.out.println("wall s: the plan JVM from main() to exit (Spark start-up included); list s / read s: its"
        + " list and read-state-files phases, rest s: joins, planning, Delta tables, summary; peak MB: heap used,"
        + " sampled every 20 ms; live MB: the most heap still used after a full collection (one forced every 10 s),"
        + " of -Xmx" + heap + "; fullGC: full collections the JVM needed itself; exit n/OOM: the"
        + " JVM threw java.lang.OutOfMemoryError (heap dump in jobs/target/heap-run/; stopped a minute later if still"
        + " running)");
    for (Map<String, String> r : results) {
      System.out.println(r.get("keys") + " keys, per phase (s/peak MB/live MB/Spark storage MB/Spark execution MB): "
          + r.get("phases"));
      System.out.println(r.get("keys") + " keys, broadcast hash joins (planned at the start or by AQE at run time; type, build side, keys): "
          + r.getOrDefault("broadcast_joins", "?"));
    }
  }

  static Map<String, String> run(long keys, int latencyMillis, String heap, String master, List<String> jvmOptions)
      throws Exception {
    long records = Math.max(1, keys / (FILES_PER_RECORD + 1));
    SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, records, FILES_PER_RECORD, 1_000, false,
        10);
    return plan(archive, latencyMillis, heap, master, jvmOptions, List.of("--log-lines", "0"));
  }

  /**
   * One {@code statesweep plan} of {@code archive} (with {@code planOptions}) in a JVM of its own, measured: its
   * summary pairs, the probe's figures, the server's request counts, and {@code lines_<kind>}, how many per-key
   * lines of each kind it printed (counted, not echoed: they may be millions; the first of each kind are).
   */
  static Map<String, String> plan(SyntheticArchive archive, int latencyMillis, String heap, String master,
      List<String> jvmOptions, List<String> planOptions) throws Exception {
    return command(archive, latencyMillis, heap, master, jvmOptions, List.of("plan"), planOptions);
  }

  /**
   * As {@link #plan}, for any {@code command} of the command line ({@code plan}, {@code run --execute}); the result
   * also holds the probe's CPU figures ({@code cpu_process_s}, {@code cpu_tasks_s}, {@code cpu_tasks_s:<group>}).
   */
  static Map<String, String> command(SyntheticArchive archive, int latencyMillis, String heap, String master,
      List<String> jvmOptions, List<String> commandWords, List<String> planOptions) throws Exception {
    Map<String, String> result = new LinkedHashMap<>();
    result.put("keys", Long.toString(archive.keys()));
    result.put("records", Long.toString(archive.records()));
    Path warehouse = Files.createTempDirectory("statesweep-heap-run");
    try (SyntheticS3Process server = SyntheticS3Process.start(ScaleBenchmark.BUCKET, archive,
        Duration.ofMillis(latencyMillis), "512m")) {
      List<String> arguments = new ArrayList<>(commandWords);
      arguments.addAll(List.of("--bucket", ScaleBenchmark.BUCKET, "--prefix", ScaleBenchmark.PREFIX, "--endpoint",
          server.endpoint(), "--warehouse", warehouse.toString(), "--workers", "16", "--pages-per-task", "20"));
      arguments.addAll(planOptions);
      System.out.printf("%n== %d keys (%d records): server pid %d at %s; plan: -Xmx%s %s%n", archive.keys(),
          archive.records(), server.pid(), server.endpoint(), heap, master);
      result.putAll(launch(heap, master, jvmOptions, arguments));
      result.putAll(toStrings(server.requestCounts()));
    } finally {
      deleteRecursively(warehouse);
    }
    Map<String, Double> phases = phaseSeconds(result.getOrDefault("phases", ""));
    double list = phases.getOrDefault("list", 0.0);
    double read = phases.getOrDefault("read-state-files", 0.0);
    double rest = phases.entrySet().stream().filter(e -> !e.getKey().equals("start-up") && !e.getKey().equals("list")
        && !e.getKey().equals("read-state-files")).mapToDouble(Map.Entry::getValue).sum();
    result.put("list_s", String.format("%.1f", list));
    result.put("read_s", String.format("%.1f", read));
    result.put("rest_s", String.format("%.1f", rest));
    long listed = Long.parseLong(result.getOrDefault("keys_listed", "0"));
    result.put("keys_per_s", list > 0 ? String.format("%.0f", listed / list) : "-");
    return result;
  }

  /**
   * The command line with exactly {@code arguments} (the command's words, then its options) in a JVM of its own under
   * {@link PlanHeapProbe} ({@code -Xmx<heap>}, {@code master} as {@link #main} takes it, then {@code jvmOptions}),
   * measured: the pairs of its summary (or approval) line, the probe's figures, {@code exit}, {@code metrics} (its
   * metrics lines) and {@code lines_<kind>}, how many per-key lines of each kind it printed (counted, not echoed: they
   * may be millions; the first of each kind are).
   */
  static Map<String, String> launch(String heap, String master, List<String> jvmOptions, List<String> arguments)
      throws Exception {
    Map<String, String> result = new LinkedHashMap<>();
    Map<String, Long> lines = new LinkedHashMap<>();
    Path dumps = Path.of("jobs", "target", "heap-run").toAbsolutePath();
    Files.createDirectories(dumps);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heap);
    command.add("-XX:+HeapDumpOnOutOfMemoryError");
    command.add("-XX:HeapDumpPath=" + dumps);
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // Spark's Java 17 flags and the logging configuration, as this JVM got them from the pom.
      if (flag.startsWith("--add-opens") || flag.startsWith("-XX:+IgnoreUnrecognizedVMOptions")
          || flag.startsWith("-Djdk.reflect") || flag.startsWith("-Dlog4j2.configurationFile")) {
        command.add(flag);
      }
    }
    command.add("-Daws.accessKeyId=synthetic");
    command.add("-Daws.secretAccessKey=synthetic");
    command.add("-Daws.region=us-east-1");
    command.add("-Dspark.extraListeners=" + PlanHeapProbe.Phases.class.getName());
    command.add("-Dheap-probe.live-every-s=10");
    if (!master.equals("default")) {
      command.addAll(List.of("-Dspark.master=" + master, "-Dspark.driver.host=127.0.0.1",
          "-Dspark.driver.bindAddress=127.0.0.1", "-Dspark.ui.enabled=false", "-Dspark.sql.shuffle.partitions=16"));
    }
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), PlanHeapProbe.class.getName()));
    command.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process plan = builder.start();
    // If this harness is stopped (Ctrl-C, a timeout), the plan's JVM goes with it; the server's JVM
    // ends by itself when its stdin closes.
    Thread stop = new Thread(plan::destroyForcibly, "heap-run-stop");
    Runtime.getRuntime().addShutdownHook(stop);
    try (BufferedReader out = new BufferedReader(new InputStreamReader(plan.getInputStream(), UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        String kind = lineKind(line);
        long seen = kind == null ? 0 : lines.merge(kind, 1L, Long::sum);
        if (seen <= 3) {
          System.out.println("  | " + line);
        } else if (seen == 4) {
          System.out.println("  | ... (more '" + kind + "' lines, counted)");
        }
        if (line.contains("java.lang.OutOfMemoryError") && !result.containsKey("oom")) {
          // After an OutOfMemoryError Spark may fail the run, or go on thrashing for long: give it a
          // minute, then stop it (SIGTERM, so the probe still reports).
          result.put("oom", "true");
          Thread watchdog = new Thread(() -> {
            try {
              if (!plan.waitFor(60, TimeUnit.SECONDS)) {
                System.out.println("heap run: the plan JVM is still running a minute after an OutOfMemoryError;"
                    + " stopping it");
                plan.destroy();
                if (!plan.waitFor(30, TimeUnit.SECONDS)) {
                  plan.destroyForcibly();
                }
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }, "heap-run-oom-watchdog");
          watchdog.setDaemon(true);
          watchdog.start();
        }
        if (line.startsWith("metrics: ")) {
          result.merge("metrics", line.substring("metrics: ".length()), (a, b) -> a + "\n" + b);
        } else if (line.startsWith("heap-probe-broadcast-joins: ")) {
          result.put("broadcast_joins", line.substring(line.indexOf(':') + 2));
        } else if (line.startsWith("summary: ") || line.startsWith("heap-probe: ")
            || line.startsWith("heap-probe-cpu: ") || line.startsWith("approved run ")) {
          for (String pair : line.substring(line.indexOf(':') + 2).split(" ")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
              result.put(pair.substring(0, equals), pair.substring(equals + 1));
            }
          }
        }
      }
    } finally {
      int exit = plan.waitFor();
      result.put("exit", exit + (result.containsKey("oom") ? "/OOM" : ""));
      lines.forEach((kind, count) -> result.put("lines_" + kind, Long.toString(count)));
      Runtime.getRuntime().removeShutdownHook(stop);
    }
    return result;
  }

  /**
   * The kind of a per-key line ({@code missing}, {@code would_delete}, a restore's {@code would_restore}, ...), or null
   * for any other line.
   */
  private static String lineKind(String line) {
    for (String kind : List.of("would delete ", "would restore ", "restored ", "left ", "kept ", "missing ",
        "skipped ")) {
      if (line.startsWith(kind)) {
        return kind.trim().replace(' ', '_');
      }
    }
    return line.contains(" came back during its deletion: ") ? "came_back" : null;
  }

  /** name:12.3s/456MB/789MB,... (the probe's phases) to name -> seconds. */
  /** The command lines' parts in one list. */
  @SafeVarargs
  static List<String> concat(List<String>... parts) {
    List<String> all = new ArrayList<>();
    for (List<String> part : parts) {
      all.addAll(part);
    }
    return all;
  }

  static Map<String, Double> phaseSeconds(String phases) {
    Map<String, Double> seconds = new LinkedHashMap<>();
    phaseFigures(phases).forEach((name, figures) -> seconds.put(name, figures[0]));
    return seconds;
  }

  /**
   * name:12.3s/456MB/789MB/10MB/20MB,... (the probe's phases) to name -> {seconds, peak used MB, live MB, Spark
   * storage MB, Spark execution MB}.
   */
  static Map<String, double[]> phaseFigures(String phases) {
    Map<String, double[]> figures = new LinkedHashMap<>();
    for (String phase : phases.split(",")) {
      int colon = phase.lastIndexOf(':');
      int s = phase.indexOf("s/", colon);
      if (colon > 0 && s > colon) {
        String[] sizes = phase.substring(s + 2).split("/");
        double[] values = new double[1 + sizes.length];
        values[0] = Double.parseDouble(phase.substring(colon + 1, s));
        for (int i = 0; i < sizes.length; i++) {
          values[i + 1] = Double.parseDouble(sizes[i].replace("MB", ""));
        }
        figures.put(phase.substring(0, colon), values);
      }
    }
    return figures;
  }

  static Map<String, String> toStrings(Map<String, Long> counts) {
    Map<String, String> strings = new LinkedHashMap<>();
    counts.forEach((operation, count) -> strings.put(operation, Long.toString(count)));
    return strings;
  }

  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
