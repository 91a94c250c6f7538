package io.statesweep.jobs.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.size;

import io.statesweep.api.Tables;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.synthetic.KeyDigest;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Process;
import io.statesweep.synthetic.SyntheticS3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;

/**
 * Issue 39: one record whose state file lists millions of keys, taken through the whole cycle on a versioned bucket of
 * the synthetic S3 endpoint: {@code plan --max-state-bytes <its state file's size>}, {@code approve}, {@code execute
 * --run-id}, the check that table {@code executions} names every key the endpoint deleted, then {@code restore --run-id}
 * as a dry run and for real, and the check that every key is back. Each command runs in a JVM of its own under
 * {@link PlanHeapProbe} with a fixed heap (local mode: the executors share it), the endpoint in another JVM (versioned:
 * each key deleted holds a marker there).
 *
 * <p>The archive: {@value #SMALL_RECORDS} ordinary records of {@value #FILES_PER_RECORD} files and a state file (one in
 * {@value #DUE_EVERY} due, the others live), and one due record in the middle of them whose state file lists {@code keys}
 * files ({@code .../big/f{n:07d}.bin}). The checks, each a count and an order-independent digest ({@link KeyDigest}),
 * none of them holding a set of keys:
 * <ol>
 *   <li>before the run, the endpoint's listing of the archive (key and ETag) is the archive's own;
 *   <li>after the execute, the keys the endpoint deleted are the due records' keys, every one of them is in the
 *       {@code deleted_keys} of the run's rows of {@code executions}, the listing is the live records' keys and ETags
 *       (they stay), and ListObjectVersions shows a delete marker as the latest version of exactly those keys;
 *   <li>the dry run of restore says it would restore every key and changes nothing;
 *   <li>after the restore, no key of the archive is deleted at the endpoint, ListObjectVersions shows no delete marker
 *       in the archive at all, and the listing (key and ETag) equals the one before the run.
 * </ol>
 *
 * <p>Prints per step: exit code, wall seconds, the command JVM's CPU seconds, peak and live heap (PlanHeapProbe), the
 * requests the endpoint answered by operation and the endpoint's live heap after it; after the execute, the ledger's
 * objects as the bucket's versions keep them (ListObjectVersions of {@code .statesweep/journal/}: every object written,
 * the largest) and the largest row of {@code executions}. Exits 1 when a command failed or a check did not match.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify -pl jobs -Dscale.args="bigrecord keys[,keys...] [heap]
 * [server-heap]"} (heap 4g; the server's 1 GB and 1 GB more per million keys).
 */
final class BigRecordRun {
  private static final int SMALL_RECORDS = 2_000;
  private static final int FILES_PER_RECORD = 2;
  private static final int DUE_EVERY = 10;
  /** The ledger's folder: {@code <prefix>.statesweep/journal/}, beside the export prefix. */
  private static final String JOURNAL = ScaleBenchmark.PREFIX.substring(0, ScaleBenchmark.PREFIX.length() - 1)
      + ".statesweep/journal/";
  private static final String ARCHIVE = ScaleBenchmark.PREFIX + "projects/";

  private BigRecordRun() {}

  /** One command, measured. */
  private record Step(long keys, String name, Map<String, String> result, Map<String, Long> requests,
      long serverLiveBytes) {
    boolean ok() {
      return "0".equals(result.get("exit"));
    }

    String row() {
      StringBuilder requestText = new StringBuilder();
      requests.forEach((operation, count) -> requestText.append(String.format(" %s=%,d", operation, count)));
      return String.format("| %,d | %s | %s | %s | %s | %s | %s | %,.0f |%s |", keys, name, result.get("exit"),
          result.getOrDefault("wall_s", "-"), result.getOrDefault("cpu_process_s", "-"),
          result.getOrDefault("peak_used_mb", "-"), result.getOrDefault("peak_live_mb", "-"), serverLiveBytes / 1e6,
          requestText);
    }
  }

  static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: bigrecord keys[,keys...] [heap] [server-heap]");
      System.exit(2);
    }
    String heap = args.length > 1 ? args[1] : "4g";
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    System.out.printf("bigrecord: plan, approve, execute, restore (dry run), restore of one record of many keys on a"
        + " versioned bucket; statesweep in a JVM of its own per command, -Xmx%s, local[*]; the synthetic server in"
        + " its own JVM; %d cores%n", heap, Runtime.getRuntime().availableProcessors());
    List<Step> steps = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    boolean allRight = true;
    for (String size : args[0].split(",")) {
      int keys = Integer.parseInt(size.replace("_", ""));
      String serverHeap = args.length > 2 ? args[2] : (1024 + (long) keys * 1024 / 1_000_000) + "m";
      allRight &= run(keys, heap, serverHeap, steps, notes);
    }
    System.out.println();
    System.out.println("| big record's keys | step | exit | wall s | CPU s | peak MB | live MB | server live MB |"
        + " requests |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    steps.forEach(step -> System.out.println(step.row()));
    System.out.println("wall s: the command's JVM from main() to exit; CPU s: that JVM's, every thread; peak MB: heap"
        + " used, sampled every 20 ms; live MB: the most heap still used after a full collection (one forced every"
        + " 10 s), of -Xmx" + heap + "; server live MB: the endpoint's heap after a full collection, after the step;"
        + " requests: what the endpoint answered during the step");
    notes.forEach(System.out::println);
    if (SparkSession.getDefaultSession().isDefined()) {
      SparkSession.getDefaultSession().get().stop();
    }
    if (!allRight) {
      System.exit(1);
    }
  }

  /** The whole cycle for a big record of {@code keys} keys; false when a command failed or a check did not match. */
  private static boolean run(int keys, String heap, String serverHeap, List<Step> steps, List<String> notes)
      throws Exception {
    SyntheticArchive archive = new SyntheticArchive(ScaleBenchmark.PREFIX, SMALL_RECORDS, FILES_PER_RECORD, 100, false,
        DUE_EVERY).withBigRecords(1, keys);
    long big = archive.bigRecords()[0];
    long stateBytes = archive.size(big, archive.stateFile(big));
    if (stateBytes > Integer.MAX_VALUE - 1024) {
      throw new IllegalArgumentException(keys + " keys make a state file of " + stateBytes + " bytes: over what"
          + " --max-state-bytes takes");
    }
    String maxStateBytes = Long.toString(stateBytes + 1024);
    Expected expected = expected(archive);
    Path warehouse = Files.createTempDirectory("statesweep-bigrecord");
    boolean allRight = true;
    try (SyntheticS3Process server = SyntheticS3Process.start(ScaleBenchmark.BUCKET, archive, Duration.ZERO,
        serverHeap, SyntheticS3Server.Versioning.ENABLED)) {
      System.out.printf("%n== a record of %,d keys (record %d, state file %,d bytes) among %,d records (%,d keys, %,d"
          + " due): server pid %d at %s, -Xmx%s; warehouse %s%n", keys, big, stateBytes, archive.records(),
          archive.keys(), expected.due.keys(), server.pid(), server.endpoint(), serverHeap, warehouse);
      S3Settings settings = S3Settings.defaults().withEndpoint(server.endpoint(), true);
      S3ObjectStore store = S3ObjectStore.open(settings, ScaleBenchmark.BUCKET);
      S3Client client = S3Clients.shared(settings);

      KeyDigest before = listing(store);
      allRight &= check(notes, keys, "the listing before the run is the archive's (key and ETag)", expected.all, before);

      List<String> export = List.of("--bucket", ScaleBenchmark.BUCKET, "--prefix", ScaleBenchmark.PREFIX, "--endpoint",
          server.endpoint(), "--warehouse", warehouse.toString(), "--max-state-bytes", maxStateBytes);
      Step plan = step(keys, "plan", server, heap, HeapRun.concat(List.of("plan"), export, List.of("--workers", "16",
          "--pages-per-task", "20", "--log-lines", "0")));
      steps.add(plan);
      String runId = plan.result().get("run_id");
      if (!plan.ok() || runId == null) {
        notes.add(String.format("%,d keys: plan failed (exit %s): the steps after it did not run", keys,
            plan.result().get("exit")));
        return false;
      }
      notes.add(String.format("%,d keys: plan says records_deleted=%s child_keys_deleted=%s (the due records' keys:"
          + " %,d)", keys, plan.result().get("records_deleted"), plan.result().get("child_keys_deleted"),
          expected.due.keys()));
      System.out.println(notes.get(notes.size() - 1));

      Step approve = step(keys, "approve", server, heap, List.of("approve", "--run-id", runId, "--by",
          "bench@example.com", "--warehouse", warehouse.toString()));
      steps.add(approve);
      if (!approve.ok()) {
        notes.add(String.format("%,d keys: approve failed (exit %s)", keys, approve.result().get("exit")));
        return false;
      }

      Step execute = step(keys, "execute", server, heap, HeapRun.concat(List.of("execute", "--run-id", runId), export,
          List.of("--workers", "16", "--pacing", "off")));
      steps.add(execute);
      if (!execute.ok()) {
        notes.add(String.format("%,d keys: execute failed (exit %s): summary %s", keys, execute.result().get("exit"),
            execute.result()));
        allRight = false;
      }
      KeyDigest deleted = server.deletedKeys();
      allRight &= check(notes, keys, "the endpoint deleted the due records' keys", expected.due, deleted);
      allRight &= check(notes, keys, "executions of run " + runId + " names every key the endpoint deleted", deleted,
          recordedDeletes(warehouse, runId, notes, keys));
      allRight &= check(notes, keys, "the live records stay (listing after the execute, key and ETag)", expected.live,
          listing(store));
      Versions afterExecute = versions(client, ARCHIVE);
      allRight &= check(notes, keys, "ListObjectVersions shows a delete marker as the latest version of exactly the"
          + " keys deleted", deleted, afterExecute.latestMarkers);
      Versions ledger = versions(client, JOURNAL);
      notes.add(String.format("%,d keys: the ledger as the bucket's versions keep it: %,d objects written under %s, the"
          + " largest %,d bytes, %,d bytes in all; %,d of them deleted (a delete marker is their latest version)", keys,
          ledger.objects, JOURNAL, ledger.largest, ledger.bytes, ledger.latestMarkers.keys()));
      System.out.println(notes.get(notes.size() - 1));
      if (!execute.ok()) {
        return false;
      }

      Step dryRun = step(keys, "restore (dry run)", server, heap, List.of("restore", "--run-id", runId, "--bucket",
          ScaleBenchmark.BUCKET, "--prefix", ScaleBenchmark.PREFIX, "--endpoint", server.endpoint(), "--warehouse",
          warehouse.toString()));
      steps.add(dryRun);
      allRight &= dryRun.ok();
      allRight &= check(notes, keys, "the dry run says it would restore every key deleted (its would-restore lines)",
          deleted.keys(), Long.parseLong(dryRun.result().getOrDefault("lines_would_restore", "0")));
      allRight &= check(notes, keys, "the dry run changes nothing (keys deleted at the endpoint after it)", deleted,
          server.deletedKeys());

      Step restore = step(keys, "restore", server, heap, List.of("restore", "--run-id", runId, "--execute", "--bucket",
          ScaleBenchmark.BUCKET, "--prefix", ScaleBenchmark.PREFIX, "--endpoint", server.endpoint(), "--warehouse",
          warehouse.toString()));
      steps.add(restore);
      allRight &= restore.ok();
      allRight &= check(notes, keys, "restore says it restored every key deleted (summary restored=)", deleted.keys(),
          Long.parseLong(restore.result().getOrDefault("restored", "-1")));
      allRight &= check(notes, keys, "no key of the archive is deleted at the endpoint after the restore",
          new KeyDigest(), server.deletedKeys());
      Versions afterRestore = versions(client, ARCHIVE);
      allRight &= check(notes, keys, "ListObjectVersions shows no delete marker in the archive after the restore", 0L,
          afterRestore.markers);
      allRight &= check(notes, keys, "the listing after the restore equals the one before the run (key and ETag)",
          before, listing(store));
      return allRight;
    } finally {
      HeapRun.deleteRecursively(warehouse);
    }
  }

  /** What the endpoint should list or delete, from the archive: its keys with their ETags, and by kind of record. */
  private record Expected(KeyDigest all, KeyDigest due, KeyDigest live) {}

  private static Expected expected(SyntheticArchive archive) {
    Expected expected = new Expected(new KeyDigest(), new KeyDigest(), new KeyDigest());
    for (Iterator<SyntheticArchive.Position> positions = archive.from(archive.ceiling(""));
        positions.hasNext(); ) {
      SyntheticArchive.Position position = positions.next();
      String key = archive.key(position.record(), position.file());
      String keyAndEtag = key + " " + archive.etag(position.record(), position.file());
      expected.all.add(keyAndEtag);
      if (archive.isDue(position.record())) {
        expected.due.add(key);
      } else {
        expected.live.add(keyAndEtag);
      }
    }
    return expected;
  }

  /** Keys and ETags the endpoint lists under the archive's folder. */
  private static KeyDigest listing(S3ObjectStore store) {
    KeyDigest digest = new KeyDigest();
    store.listAll(ARCHIVE, object -> digest.add(object.key() + " " + object.etag()));
    return digest;
  }

  /** What ListObjectVersions shows under a prefix: objects (versions) and delete markers. */
  private static final class Versions {
    long objects;
    long largest;
    long bytes;
    long markers;
    final KeyDigest latestMarkers = new KeyDigest();
  }

  /** Every version and marker under {@code prefix}, a page of 1,000 at a time. */
  private static Versions versions(S3Client client, String prefix) {
    Versions versions = new Versions();
    String keyMarker = null;
    String versionMarker = null;
    while (true) {
      String km = keyMarker;
      String vm = versionMarker;
      ListObjectVersionsResponse page = client.listObjectVersions(b -> b.bucket(ScaleBenchmark.BUCKET).prefix(prefix)
          .keyMarker(km).versionIdMarker(vm).maxKeys(1000));
      page.versions().forEach(version -> {
        versions.objects++;
        versions.bytes += version.size();
        versions.largest = Math.max(versions.largest, version.size());
      });
      page.deleteMarkers().forEach(marker -> {
        versions.markers++;
        if (Boolean.TRUE.equals(marker.isLatest())) {
          versions.latestMarkers.add(marker.key());
        }
      });
      if (!Boolean.TRUE.equals(page.isTruncated())) {
        return versions;
      }
      keyMarker = page.nextKeyMarker();
      versionMarker = page.nextVersionIdMarker();
    }
  }

  private static boolean check(List<String> notes, int keys, String what, Object expected, Object actual) {
    boolean match = expected.equals(actual);
    notes.add(String.format("%,d keys: %s: %s (expected %s, found %s)", keys, what, match ? "MATCH" : "MISMATCH",
        expected, actual));
    System.out.println(notes.get(notes.size() - 1));
    return match;
  }

  /**
   * Count and digest of every key in {@code deleted_keys} of {@code runId}'s rows of table executions; notes the rows
   * and the most keys in one row.
   */
  private static KeyDigest recordedDeletes(Path warehouse, String runId, List<String> notes, int keys) {
    if (System.getProperty("spark.master") == null) {
      System.setProperty("spark.master", "local[2]");
    }
    SparkSession spark = ScaleBenchmark.session();
    Dataset<Row> rows = spark.read().format("delta").load(new Tables(warehouse.toString()).executions())
        .where(col("run_id").equalTo(runId));
    Row shape = rows.agg(org.apache.spark.sql.functions.count("*"), max(size(col("deleted_keys")))).first();
    notes.add(String.format("%,d keys: executions holds %,d rows of run %s, the largest with %,d deleted_keys", keys,
        shape.getLong(0), runId, shape.isNullAt(1) ? 0 : shape.getInt(1)));
    System.out.println(notes.get(notes.size() - 1));
    return rows.select(explode(col("deleted_keys"))).as(Encoders.STRING()).javaRDD()
        .aggregate(new KeyDigest(), KeyDigest::add, KeyDigest::merge);
  }

  /** One command in a JVM of its own, measured, with the endpoint's requests during it and its live heap after it. */
  private static Step step(long keys, String name, SyntheticS3Process server, String heap, List<String> arguments)
      throws Exception {
    System.out.printf("%n-- %,d keys: %s: %s%n", keys, name, String.join(" ", arguments));
    server.resetCounts();
    Map<String, String> result = HeapRun.launch(heap, "default", List.of(), arguments);
    Step step = new Step(keys, name, result, server.requestCounts(), server.liveHeapBytes());
    System.out.println("row: " + step.row());
    return step;
  }


}
