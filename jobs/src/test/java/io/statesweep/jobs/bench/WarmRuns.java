package io.statesweep.jobs.bench;

import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.spark.TestActions;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * What a plan and an execute of a tiny archive cost in a warm JVM: the fixed cost that every test that plans pays,
 * many times a test class. In one JVM with the tests' Spark session ({@link SharedSpark}: local[2], Delta) and a local
 * S3Proxy server, each round plans a three-record archive into a fresh warehouse, plans it again into that warehouse,
 * and plans and executes a fresh copy ({@code --skip-approval}); the first rounds warm the JVM and are not counted.
 * Each variant (the session as the tests have it, then each {@code key=value} Spark SQL setting given) runs once a
 * round, the variants taking turns, so that a drifting machine weighs on all of them alike.
 *
 * <p>Prints, for each variant and step, the medians of its wall milliseconds, of the JVM's CPU milliseconds (every
 * thread: driver, tasks, compilers, collector) and of the Spark jobs it ran, then each variant's wall time as a ratio
 * of the session's own. Figures only: it asserts nothing.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify -pl jobs -am -Dscale.args="warm [rounds]
 * [key=value[,key=value]] ..."}, for example {@code "warm 8 spark.sql.adaptive.enabled=false"}.
 */
final class WarmRuns {
  private static final int WARM_UP_ROUNDS = 2;
  private static final String PREFIX = "cogram/";
  private static final List<String> STEPS = List.of("plan", "plan again", "execute");

  private WarmRuns() {}

  static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
    Map<String, Map<String, String>> variants = new LinkedHashMap<>();
    variants.put("session as in the tests", Map.of());
    for (int i = 1; i < args.length; i++) {
      Map<String, String> settings = new LinkedHashMap<>();
      for (String pair : args[i].split(",")) {
        String[] keyValue = pair.split("=", 2);
        settings.put(keyValue[0], keyValue[1]);
      }
      variants.put(args[i], settings);
    }
    SparkSession spark = SharedSpark.session();
    AtomicInteger jobs = new AtomicInteger();
    spark.sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart start) {
        jobs.incrementAndGet();
      }
    });
    System.out.printf("warm runs: %d rounds after %d to warm up, variants %s; local[2], a local S3Proxy server; %d"
        + " cores%n", rounds, WARM_UP_ROUNDS, variants.keySet(), Runtime.getRuntime().availableProcessors());
    Map<String, Map<String, List<long[]>>> measured = new LinkedHashMap<>();
    Path work = Files.createTempDirectory("statesweep-warm-runs");
    try (LocalS3Server server = LocalS3Server.builder().inMemory().start().setCredentialSystemProperties()) {
      int bucket = 0;
      for (int round = 0; round < WARM_UP_ROUNDS + rounds; round++) {
        for (Map.Entry<String, Map<String, String>> variant : variants.entrySet()) {
          Map<String, String> before = new HashMap<>();
          variant.getValue().forEach((key, value) -> {
            before.put(key, spark.conf().getOption(key).getOrElse(() -> null));
            spark.conf().set(key, value);
          });
          try {
            Map<String, long[]> steps = round(spark, server, "warm-" + ++bucket, work.resolve("w" + bucket), jobs);
            if (round >= WARM_UP_ROUNDS) {
              steps.forEach((step, figures) -> measured.computeIfAbsent(variant.getKey(), v -> new LinkedHashMap<>())
                  .computeIfAbsent(step, s -> new ArrayList<>()).add(figures));
            }
            System.out.printf("round %d, %s: %s%n", round + 1, variant.getKey(), describe(steps));
          } finally {
            before.forEach((key, value) -> {
              if (value == null) {
                spark.conf().unset(key);
              } else {
                spark.conf().set(key, value);
              }
            });
          }
        }
      }
    }
    print(measured);
  }

  /** One round of one variant: step -> {wall ms, CPU ms, Spark jobs}. */
  private static Map<String, long[]> round(SparkSession spark, LocalS3Server server, String bucket, Path warehouse,
      AtomicInteger jobs) {
    Map<String, long[]> steps = new LinkedHashMap<>();
    archive(server, bucket);
    TestOptions options = TestOptions.of(server.endpoint(), bucket, PREFIX, warehouse);
    steps.put("plan", measure(jobs, () -> TestActions.plan(spark, options.options())));
    steps.put("plan again", measure(jobs, () -> TestActions.plan(spark, options.options())));
    String copy = bucket + "-copy";
    archive(server, copy);
    TestOptions copyOptions = TestOptions.of(server.endpoint(), copy, PREFIX,
        warehouse.resolveSibling(warehouse.getFileName() + "-copy"));
    PlanResult plan = TestActions.plan(spark, copyOptions.options());
    RunOptions execute = copyOptions.with("--dry-run", "false").with("--skip-approval", "true").options();
    steps.put("execute", measure(jobs, () -> TestActions.execute(spark, execute, plan.runId())));
    return steps;
  }

  /** A live project, its deleted meeting, and an email with a removed attachment. */
  private static void archive(LocalS3Server server, String bucket) {
    TestArchive archive = new TestArchive(server, bucket, PREFIX);
    archive.put("projects/p1/project.json", "{}");
    archive.put("projects/p1/state.json", archive.state(false, null, List.of("projects/p1/project.json"), List.of()));
    archive.put("projects/p1/meetings/m1/minutes.pdf", "minutes");
    archive.put("projects/p1/meetings/m1/state.json", archive.state(true, null,
        List.of("projects/p1/meetings/m1/minutes.pdf"), List.of()));
    archive.put("projects/p1/emails/e1/body.html", "<p>");
    archive.put("projects/p1/emails/e1/attachments/old.pdf", "old-pdf");
    archive.put("projects/p1/emails/e1/state.json", archive.state(false, null, List.of("projects/p1/emails/e1/body.html"),
        List.of("projects/p1/emails/e1/attachments/old.pdf")));
  }

  private static long[] measure(AtomicInteger jobs, Runnable step) {
    int jobsBefore = jobs.get();
    long cpuBefore = ScaleBenchmark.processCpuNanos();
    long started = System.nanoTime();
    step.run();
    return new long[] {(System.nanoTime() - started) / 1_000_000, (ScaleBenchmark.processCpuNanos() - cpuBefore) / 1_000_000,
        jobs.get() - jobsBefore};
  }

  private static String describe(Map<String, long[]> steps) {
    List<String> parts = new ArrayList<>();
    steps.forEach((step, figures) -> parts.add(String.format("%s %d ms (CPU %d ms, %d jobs)", step, figures[0],
        figures[1], figures[2])));
    return String.join("; ", parts);
  }

  private static void print(Map<String, Map<String, List<long[]>>> measured) {
    System.out.println();
    System.out.println("| variant | step | wall ms | CPU ms | Spark jobs | wall / the session's |");
    System.out.println("| --- | --- | --- | --- | --- | --- |");
    Map<String, List<long[]>> session = measured.values().iterator().next();
    measured.forEach((variant, steps) -> {
      for (String step : STEPS) {
        List<long[]> runs = steps.get(step);
        long wall = median(runs, 0);
        System.out.printf("| %s | %s | %,d | %,d | %d | %.2f |%n", variant, step, wall, median(runs, 1),
            median(runs, 2), (double) wall / median(session.get(step), 0));
      }
    });
    System.out.println("medians of the counted rounds; CPU: the whole JVM's (driver, tasks, compilers, collector)");
  }

  private static long median(List<long[]> runs, int column) {
    long[] values = runs.stream().mapToLong(figures -> figures[column]).sorted().toArray();
    return values[values.length / 2];
  }
}
