package io.statesweep.jobs.bench;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.spark.TestActions;
import io.statesweep.synthetic.DeleteLog;
import io.statesweep.synthetic.PartitionModel;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import io.statesweep.testing.TestOptions;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Deletes paced per lane against a model of S3's partitions (pipeline/README.md, "Deleting at the bucket's speed"),
 * side by side in one run: what this machine serves with neither partitions nor a ceiling (the bound of every other
 * case here), today's fixed ceiling (one partition's rate for the whole job, {@code --pacing off
 * --max-deletes-per-second K}) and adaptive pacing, on buckets of 1, 4 and 16 partitions and on one of 1 partition that
 * splits under load. The model is S3 scaled down to what this machine serves: each partition takes {@code K} writes a
 * second (S3 documents 3,500), and statesweep is told so ({@code --partition-deletes-per-second K}); its requests are
 * scaled as well ({@code --batch-size}: what a group at 3,150 keys/s sends, 197 keys, times K / 3,500; 14 keys at K =
 * 250), or a request would be a fifth of a partition's second. An exporter writes into every partition meanwhile,
 * {@code exporter%} of its capacity in one-key PUTs the SDK does not retry, and counts its own SlowDowns.
 *
 * <p>For each case: keys/s at steady state (the middle half of the deleting: after the groups learnt, before the
 * partitions whose work ran out first left the others alone) against the model's capacity then (a partition that a
 * split added counts from the second it appeared; the cases of 16 partitions and the splitting ones have partitions
 * of {@code 0.32 K}, so that they ask no more than this machine serves),
 * SlowDowns to deletes per 1,000 keys (those of the ledger's PUTs, in the first partition, are noted beside), the
 * exporter's PUTs and how many were throttled, and at steady state its throttled PUTs of those it sent then, records
 * the execute left (a request refused three times), the partitions at the end, and wall time.
 * Arguments: {@code [K (250)] [seconds of deleting per adaptive case (60)] [exporter% (5)] [margin% (10)]
 * [cases: those whose name, spaces as dashes, holds this]}.
 */
final class PacingRun {
  private static final int FILES = 10;
  private static final int PROJECTS = 16;

  private PacingRun() {}

  /**
   * One case; {@code scale}: its partitions take that fraction of {@code K} (sixteen partitions of K = 250 would ask
   * more of this machine than it serves).
   */
  private record Case(String name, int partitions, boolean adaptive, int splitAfterSeconds, double scale) {
    Case(String name, int partitions, boolean adaptive, int splitAfterSeconds) {
      this(name, partitions, adaptive, splitAfterSeconds, 1);
    }
  }

  /** The share of K of the cases whose partitions together would ask more than this machine serves. */
  private static final double SMALLER = 0.32;

  /** What the ledger's partition (statesweep's own folder beside the archive) takes: S3's documented figure. */
  private static final double LEDGER_WRITES_PER_SECOND = 3500;

  /** The case without partitions nor a ceiling: what this machine serves, the bound of every other case here. */
  private static final String MACHINE = "no partitions, no ceiling (this machine)";

  static void main(String[] args) throws Exception {
    int capacity = args.length > 0 ? Integer.parseInt(args[0]) : 250;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    int exporterPercent = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int margin = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    String only = args.length > 4 ? args[4] : "";
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    System.setProperty("spark.master", "local[16]");
    System.out.printf(Locale.ROOT, "pacing: partitions of %d writes/s (S3: 3,500), the exporter at %d %% of each, margin"
        + " %d %%; %d projects of due records (%d keys each); %d cores%n", capacity, exporterPercent, margin, PROJECTS,
        FILES + 1, Runtime.getRuntime().availableProcessors());
    List<Case> cases = List.of(
        new Case(MACHINE, 0, false, 0),
        new Case("1 partition, fixed ceiling", 1, false, 0),
        new Case("1 partition, adaptive", 1, true, 0),
        new Case("4 partitions, fixed ceiling", 4, false, 0),
        new Case("4 partitions, adaptive", 4, true, 0),
        new Case("16 partitions, fixed ceiling", 16, false, 0, SMALLER),
        new Case("16 partitions, adaptive", 16, true, 0, SMALLER),
        new Case("1 partition splitting, adaptive", 1, true, 10, SMALLER),
        new Case("1 partition splitting, adaptive, margin 0", 1, true, -10, SMALLER));
    SparkSession spark = ScaleBenchmark.session();
    List<String> rows = new ArrayList<>();
    for (Case one : cases) {
      if (!one.name().replace(" ", "-").contains(only)) {
        continue;
      }
      rows.add(run(spark, one, (int) Math.round(capacity * one.scale()), seconds, exporterPercent, margin));
      System.out.println();
      System.out.printf("%-52s %9s %9s %8s %10s %10s %8s %9s %6s %8s%n", "case", "keys/s", "capacity", "of cap",
          "slow/1000", "exp. PUTs", "exp. 503", "steady", "left", "wall s");
      rows.forEach(System.out::println);
    }
    spark.stop();
  }

  private static String run(SparkSession spark, Case one, int capacity, int seconds, int exporterPercent, int margin)
      throws Exception {
    int splitAfter = Math.abs(one.splitAfterSeconds());
    int caseMargin = one.splitAfterSeconds() < 0 ? 0 : margin;
    // Enough keys for `seconds` at the model's capacity (splits double it at most once or twice), fewer under a
    // fixed ceiling, whose rate is known: 40 seconds of it.
    double rate = one.adaptive() ? capacity * one.partitions() * (splitAfter > 0 ? 2.5 : 1)
        : one.partitions() == 0 ? capacity * 4 : capacity;
    long keys = (long) (rate * (one.adaptive() ? seconds : 40));
    long records = Math.max(PROJECTS, keys / (FILES + 1));
    long perProject = (records + PROJECTS - 1) / PROJECTS;
    SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, perProject * PROJECTS, FILES, perProject,
        false, 1);
    List<String> firstKeys = new ArrayList<>();
    // The ledger's objects (cogram.statesweep/...) sort before the archive: a partition of their own.
    firstKeys.add(ScaleBenchmark.PREFIX);
    for (int i = 1; i < one.partitions(); i++) {
      firstKeys.add(String.format(Locale.ROOT, "%sprojects/p%06d/", ScaleBenchmark.PREFIX,
          (long) i * PROJECTS / one.partitions()));
    }
    String warehouse = Files.createTempDirectory("statesweep-pacing").toString();
    try (SyntheticS3Server server = new SyntheticS3Server(ScaleBenchmark.BUCKET, archive, Duration.ZERO, 0)) {
      TestOptions builder = TestOptions.of(server.endpoint(), ScaleBenchmark.BUCKET, ScaleBenchmark.PREFIX,
          warehouse).with("--workers", "16").with("--pages-per-task", "20").with("--dry-run", "false")
          .with("--conditional-deletes", "on")
          .with("--batch-size", Long.toString(Math.max(1, Math.round(capacity * (3150.0 / 16) / 3500))));
      builder = one.adaptive()
          ? builder.with("--pacing", "adaptive").with("--partition-deletes-per-second", Integer.toString(capacity))
              .with("--exporter-margin", Integer.toString(caseMargin))
          : builder.with("--pacing", "off").with("--max-deletes-per-second",
              one.partitions() == 0 ? "0" : Integer.toString(capacity));
      RunOptions options = builder.options();
      PlanResult plan = TestActions.plan(spark, options);
      if (plan.failure() != null) {
        throw new IllegalStateException("plan failed: " + plan.failure());
      }
      // Without partitions, a model whose one partition takes more than this machine can send.
      PartitionModel model = one.partitions() == 0 ? new PartitionModel(1e9, List.of(), 0, 0.5, System::nanoTime)
          : new PartitionModel(capacity, firstKeys, splitAfter, 0.5, System::nanoTime)
              // The ledger's writes, two a window of records, are not scaled down with the deletes: S3's own figure.
              .withCapacity("", LEDGER_WRITES_PER_SECOND);
      server.partitions(model).resetCounts();
      Exporter exporter = new Exporter(server.endpoint(), capacity * exporterPercent / 100.0, one.partitions());
      exporter.start();
      long started = System.nanoTime();
      ExecuteResult result;
      try {
        result = TestActions.executeOwnPlan(spark, options, plan);
      } finally {
        exporter.stop();
      }
      double wall = (System.nanoTime() - started) / 1e9;
      if (result.failure() != null) {
        throw new IllegalStateException("execute failed: " + result.failure());
      }
      System.out.printf("%s: %s%n", one.name(), result.summary().line());
      if (result.summary().errors() > 0) {
        io.statesweep.testing.TableReader.of(result.tables()).executions(plan.runId())
            .filter("outcome <> 'deleted'").groupBy("outcome", "message").count()
            .collectAsList().forEach(row -> System.out.printf("  left: %s x %d: %s%n", row.getString(0), row.getLong(2),
                row.getString(1)));
      }
      DeleteLog log = server.deleteLog();
      long[] perSecond = log.keysPerSecond();
      StringBuilder series = new StringBuilder();
      for (int i = 0; i < perSecond.length; i += 10) {
        long sum = 0;
        int counted = 0;
        for (int j = i; j < Math.min(perSecond.length, i + 10); j++, counted++) {
          sum += perSecond[j];
        }
        series.append(' ').append(sum / counted);
      }
      System.out.printf("%s: keys/s each 10 s:%s%n", one.name(), series);
      // The middle half of the deleting: after the groups learnt, before the partitions whose work ran out first left
      // the others alone (a tail that a backfill of hours does not have).
      int from = perSecond.length / 4;
      int to = Math.max(from + 1, perSecond.length * 3 / 4);
      long steadyKeys = 0;
      for (int i = from; i < to; i++) {
        steadyKeys += perSecond[i];
      }
      double steady = steadyKeys / (double) (to - from);
      long steadyFrom = log.firstDeletedAt() + from * 1_000_000_000L;
      long steadyTo = log.firstDeletedAt() + to * 1_000_000_000L;
      long steadyThrottled = exporter.throttledAt.stream().filter(at -> at >= steadyFrom && at < steadyTo).count();
      long steadyPuts = (long) ((to - from) * exporter.perProjectPerSecond * PROJECTS);
      int partitionsAtEnd = model.firstKeys().size() - 1; // the ledger's partition is not the archive's
      // The capacity of the steady seconds: partitions that a split added count from the second they appeared.
      double partitionSeconds = 0;
      for (int i = from; i < to; i++) {
        partitionSeconds += model.partitionsAt(log.firstDeletedAt() + i * 1_000_000_000L + 500_000_000L) - 1;
      }
      double capacityAtEnd = one.partitions() == 0 ? Double.NaN : capacity * partitionSeconds / (to - from);
      java.util.Map<String, Long> counts = server.requestCounts();
      long deleteSlowDowns = counts.getOrDefault("SLOWDOWN_DELETE", 0L)
          + counts.getOrDefault("SLOWDOWN_DELETE_OBJECT", 0L);
      long ledgerSlowDowns = counts.getOrDefault("SLOWDOWN_PUT_OUTSIDE_ARCHIVE", 0L)
          + counts.getOrDefault("SLOWDOWN_DELETE_OUTSIDE_ARCHIVE", 0L);
      long left = archive.records() - result.summary().recordsDeleted();
      String label = one.scale() == 1 ? one.name() : one.name() + " (K " + capacity + ")";
      return String.format(Locale.ROOT, "%-52s %,9.0f %9s %8s %10.2f %,10d %,8d %9s %,6d %8.1f", label,
          steady, Double.isNaN(capacityAtEnd) ? "-" : String.format(Locale.ROOT, "%,.0f", capacityAtEnd),
          Double.isNaN(capacityAtEnd) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * steady / capacityAtEnd),
          1000.0 * deleteSlowDowns / Math.max(1, log.keys()),
          exporter.puts.get(), exporter.throttled.get(), steadyThrottled + "/" + steadyPuts, left, wall)
          + (ledgerSlowDowns > 0 ? " (" + ledgerSlowDowns + " SlowDowns to the ledger's PUTs)" : "")
          + (partitionsAtEnd != one.partitions() && one.partitions() > 0
              ? " (" + partitionsAtEnd + " partitions at the end)" : "");
    }
  }

  /** One-key PUTs into every project folder, {@code perPartitionPerSecond} a second each, never retried. */
  private static final class Exporter {
    final AtomicLong puts = new AtomicLong();
    final AtomicLong throttled = new AtomicLong();
    /** When each throttled PUT was sent ({@code System.nanoTime()}). */
    final java.util.Queue<Long> throttledAt = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final S3Client client;
    final double perProjectPerSecond;
    private final List<Thread> threads = new ArrayList<>();

    Exporter(String endpoint, double perPartitionPerSecond, int partitions) {
      this.client = S3Client.builder().endpointOverride(java.net.URI.create(endpoint)).forcePathStyle(true)
          .region(software.amazon.awssdk.regions.Region.US_EAST_1)
          .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
              software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("synthetic", "synthetic")))
          .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry())).build();
      // Each project folder writes its share of its partition's rate.
      this.perProjectPerSecond = perPartitionPerSecond * partitions / PROJECTS;
    }

    void start() {
      if (perProjectPerSecond <= 0) {
        return; // no partitions: nothing to share with an exporter
      }
      for (int project = 0; project < PROJECTS; project++) {
        int folder = project;
        Thread thread = new Thread(() -> put(folder), "exporter-" + project);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    private void put(int project) {
      long every = (long) (1e9 / perProjectPerSecond);
      long next = System.nanoTime() + (long) (Math.random() * every);
      long n = 0;
      while (!stopped.get()) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(wait);
          continue;
        }
        next += every;
        String key = String.format(Locale.ROOT, "%sprojects/p%06d/exporter/u%09d.bin", ScaleBenchmark.PREFIX,
            project, n++);
        puts.incrementAndGet();
        long sent = System.nanoTime();
        try {
          client.putObject(b -> b.bucket(ScaleBenchmark.BUCKET).key(key), RequestBody.fromString("x"));
        } catch (S3Exception e) {
          if (e.statusCode() == 503) {
            throttled.incrementAndGet();
            throttledAt.add(sent);
          }
        }
      }
    }

    void stop() throws InterruptedException {
      stopped.set(true);
      for (Thread thread : threads) {
        thread.join();
      }
      client.close();
    }
  }
}
