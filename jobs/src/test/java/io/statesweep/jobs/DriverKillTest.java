package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver of an {@code execute} is killed (SIGKILL, its JVM gone mid-attempt, its lock left
 * behind): nothing outside the plan is gone, the next run is refused while the dead run's lock is
 * valid and names it, and once the lock expires a rerun takes it over, first records what the dead
 * attempt deleted from its ledger (its rows of executions under its own attempt, and its row of runs),
 * then finishes the plan exactly.
 *
 * <p>The execute runs in a JVM of its own, slowed down (4 keys/s), and is killed once some keys are gone. A rerun is
 * refused (exit 3) while the dead run's lock is valid, naming it ({@code statesweep execute --run-id ... (pid N)});
 * once the lock expires ({@code --lock-ttl 1m}) a rerun takes it over and first records the dead attempt's ledger
 * ({@code ledgers_recorded=<attempt>}): the keys its rows of {@code executions} name are exactly those gone before
 * the rerun, the rerun's exactly the rest, and {@code runs} has a row for the dead attempt ({@code complete=false},
 * its {@code records_deleted}); what stays of the ledger are the intents of windows whose answers never came, and the
 * bucket is exactly the bucket less the plan. On a versioned bucket the killed run is restored instead, to the
 * listing before it.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class DriverKillTest {
  private static final String BUCKET = "driver-kill";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LOCK_KEY = "cogram.statesweep/lock";
  /** The killed execute's lock ttl: renewed every 10 s, so the lock outlives the kill by 20-30 s. */
  private static final Duration LOCK_TTL = Duration.ofSeconds(30);

  /** An execute killed mid-delete: its export before the plan, what the plan leaves, and the run. */
  private record Killed(ObjectStore store, Set<String> before, Map<String, String> listingBefore,
      Set<String> expectedLeft, Set<String> afterKill, Map<String, String> environment, String runId, Process execute,
      Instant expiry) {}

  /**
   * Plans a sample archive of {@code bucket} ({@code versioned} or not), executes the plan in a JVM of its own,
   * slowed down, and kills it (SIGKILL) once some keys are gone, right after a renewal of its lock.
   */
  private static Killed killedMidExecute(LocalS3Server server, Path warehouse, String bucket, boolean versioned)
      throws Exception {
    server.createBucket(bucket);
    if (versioned) {
      server.enableVersioning(bucket);
    }
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 150, 3L, Instant.now());
    Set<String> before = exportKeys(store);
    Map<String, String> listingBefore = listing(store);
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes());
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_BUCKET", bucket, "COGRAM_CLEANUP_PREFIX", "cogram/",
        "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE", warehouse.toString());
    String planned = run(environment, "plan");
    String runId = planned.replaceAll("(?s).*run_id=(\\S+).*", "$1");
    // The execute in a JVM of its own, slowed down so that it is killed with deletes still to do.
    List<String> command = ChildJvm.command("1g");
    command.addAll(List.of("-Daws.accessKeyId=" + System.getProperty("aws.accessKeyId"),
        "-Daws.secretAccessKey=" + System.getProperty("aws.secretAccessKey"), "-Daws.region=us-east-1",
        "-cp", System.getProperty("java.class.path"), StatesweepCli.class.getName(), "execute", "--run-id", runId,
        "--skip-approval", "true", "--max-deletes-per-second", "4", "--batch-size", "2",
        "--lock-ttl", LOCK_TTL.toSeconds() + "s"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(Files.createTempFile(warehouse, "killed-execute", ".log").toFile());
    builder.environment().putAll(environment);
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process execute = builder.start();
    // Killed once six keys are gone, right after a renewal of its lock: the rerun below then finds the lock valid
    // for most of its ttl, however long the steps in between take on a busy machine.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    Instant renewedUntil = null;
    while (execute.isAlive() && System.nanoTime() < deadline) {
      Instant expiresAt = lockExpiry(store);
      if (renewedUntil != null && expiresAt != null && expiresAt.isAfter(renewedUntil)
          && exportKeys(store).size() <= before.size() - 6) {
        break;
      }
      renewedUntil = expiresAt;
      Thread.sleep(100);
    }
    assertThat(execute.isAlive()).as("the execute is still deleting when it is killed").isTrue();
    assertThat(execute.destroyForcibly().waitFor(5, TimeUnit.MINUTES)).as("the execute is gone").isTrue();
    Set<String> afterKill = exportKeys(store);
    assertThat(afterKill).as("nothing outside the plan is gone").containsAll(expectedLeft);
    assertThat(afterKill).as("deletes were still to do").isNotEqualTo(expectedLeft);
    Instant expiry = lockExpiry(store);
    assertThat(expiry).as("the dead run's lock").isNotNull();
    return new Killed(store, before, listingBefore, expectedLeft, afterKill, environment, runId, execute, expiry);
  }

  /**
   * On a versioned bucket, a restore of the killed run (as a new user would try it: {@code restore --run-id R
   * --execute} once the lock can be taken over) records the dead attempt's ledger and takes back every key it
   * deleted, those whose answers its tasks never recorded on the proof of their markers: the export's listing, keys
   * and ETags, is the listing before the run.
   */
  @Test
  void aDriverKilledMidExecuteOnAVersionedBucketIsRestoredToTheListingBeforeIt(LocalS3Server server,
      @TempDir Path warehouse) throws Exception {
    Killed killed = killedMidExecute(server, warehouse, BUCKET + "-versioned", true);
    long lockDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    CommandOutput restore = CommandOutput.run(killed.environment(), "restore", "--run-id", killed.runId(),
        "--execute");
    while (restore.code() == StatesweepCli.LOCKED && System.nanoTime() < lockDeadline) {
      Thread.sleep(Math.max(100, Duration.between(Instant.now(), killed.expiry()).toMillis() + 100));
      restore = CommandOutput.run(killed.environment(), "restore", "--run-id", killed.runId(), "--execute");
    }

    assertThat(restore.code()).as(restore.text() + restore.errors()).isZero();
    assertThat(listing(killed.store())).as("the listing before the run, keys and ETags")
        .isEqualTo(killed.listingBefore());
    Set<String> deleted = new TreeSet<>(killed.before());
    deleted.removeAll(killed.afterKill());
    String summary = restore.text().lines().filter(line -> line.startsWith("summary: ")).findFirst().orElseThrow();
    long unanswered = TableReader.of(SparkSession.active(), warehouse).executions().selectExpr("explode(deleted) as d")
        .filter("d.delete_marker is null").count();
    System.out.printf("restore, the driver killed mid-execute on a versioned bucket: %d keys deleted (%d of them"
        + " recorded with no delete marker, their answers never written), %s%n", deleted.size(), unanswered, summary);
  }

  @Test
  void aDriverKilledMidExecuteIsFollowedByARerunThatFinishes(LocalS3Server server, @TempDir Path warehouse)
      throws Exception {
    Killed killed = killedMidExecute(server, warehouse, BUCKET, false);
    ObjectStore store = killed.store();
    Set<String> before = killed.before();
    Set<String> expectedLeft = killed.expectedLeft();
    Set<String> afterKill = killed.afterKill();
    Map<String, String> environment = killed.environment();
    String runId = killed.runId();
    Process execute = killed.execute();
    Instant expiry = killed.expiry();

    // While the dead run's lock is valid, a rerun is refused and told who holds it; then it takes over.
    CommandOutput rerun = CommandOutput.run(environment, "execute", "--run-id", runId, "--skip-approval", "true");
    assertThat(rerun.code()).as(rerun.errors()).isEqualTo(StatesweepCli.LOCKED);
    assertThat(rerun.errors()).contains("statesweep execute --run-id " + runId + " (pid " + execute.pid() + ")")
        .contains("its lock expires at " + expiry);
    // Nobody renews the dead run's lock: once past the expiry it holds, a rerun takes it over.
    long lockDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (rerun.code() == StatesweepCli.LOCKED && System.nanoTime() < lockDeadline) {
      Thread.sleep(Math.max(100, Duration.between(Instant.now(), expiry).toMillis() + 100));
      rerun = CommandOutput.run(environment, "execute", "--run-id", runId, "--skip-approval", "true");
    }
    assertThat(rerun.code()).as(rerun.text() + rerun.errors()).isZero();
    assertThat(rerun.text()).contains("summary: dry_run=false complete=true");
    assertThat(exportKeys(store)).isEqualTo(expectedLeft);

    // The dead attempt's deletes are on the record under its own attempt, each key once, beside the rerun's.
    String summary = rerun.text().lines().filter(line -> line.startsWith("summary: ")).findFirst().orElseThrow();
    String rerunAttempt = summary.replaceAll(".* attempt_id=(\\S+).*", "$1");
    String deadAttempt = summary.replaceAll(".* ledgers_recorded=(\\S+).*", "$1");
    assertThat(deadAttempt).as("the attempt whose ledger the rerun recorded").isNotEqualTo(summary)
        .isNotEqualTo(rerunAttempt);
    Set<String> goneBeforeTheRerun = new TreeSet<>(before);
    goneBeforeTheRerun.removeAll(afterKill);
    Set<String> goneInTheRerun = new TreeSet<>(afterKill);
    goneInTheRerun.removeAll(expectedLeft);
    SparkSession spark = SparkSession.active();
    assertThat(recordedKeys(spark, warehouse, deadAttempt)).isEqualTo(goneBeforeTheRerun);
    assertThat(recordedKeys(spark, warehouse, rerunAttempt)).isEqualTo(goneInTheRerun);
    Row dead = TableReader.of(spark, warehouse).runs()
        .filter("attempt_id = '" + deadAttempt + "'").select("complete", "failure", "records_deleted").first();
    assertThat(dead.getBoolean(0)).isFalse();
    assertThat(dead.getString(1)).startsWith("its driver stopped before it recorded what it deleted; recorded from its"
        + " ledger by attempt " + rerunAttempt);
    assertThat(dead.getLong(2)).isEqualTo(goneBeforeTheRerun.stream().filter(key -> key.endsWith("state.json")).count());
    // What stays are the intents of the dead attempt's windows whose answers never came (a delete it sent may still be
    // answered for a while), held for the next recording.
    assertThat(TestArchive.keys(store, "cogram.statesweep/journal/")).as("the ledgers, once recorded")
        .allSatisfy(key -> assertThat(key).contains("/" + deadAttempt + "/").contains("-intent"));
    System.out.printf("ledger, the driver killed mid-execute: %d keys deleted before the rerun, %d recorded under the"
        + " dead attempt; %d deleted by the rerun, %d recorded%n", goneBeforeTheRerun.size(),
        recordedKeys(spark, warehouse, deadAttempt).size(), goneInTheRerun.size(),
        recordedKeys(spark, warehouse, rerunAttempt).size());
  }

  /** The expiry the run lock's document holds, or null while there is no lock. */
  private static Instant lockExpiry(ObjectStore store) throws IOException {
    ObjectContent lock = store.read(LOCK_KEY, 4096);
    return lock == null ? null : Instant.parse(JSON.readTree(lock.bytes()).get("expires_at").asText());
  }

  private static Set<String> recordedKeys(SparkSession spark, Path warehouse, String attemptId) {
    List<String> keys = TableReader.of(spark, warehouse).executions()
        .filter("attempt_id = '" + attemptId + "'").selectExpr("explode(deleted_keys)")
        .as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
    assertThat(keys).as("each key once").doesNotHaveDuplicates();
    return new TreeSet<>(keys);
  }

  private static String run(Map<String, String> environment, String... args) {
    CommandOutput output = CommandOutput.run(environment, args);
    assertThat(output.code()).as(output.errors()).isZero();
    return output.text();
  }

  /** The export's keys with their ETags. */
  private static Map<String, String> listing(ObjectStore store) {
    Map<String, String> listing = new java.util.TreeMap<>();
    store.iterate("cogram/", io.statesweep.store.ListingDepth.RECURSIVE)
        .forEachRemaining(object -> listing.put(object.key(), object.etag()));
    return listing;
  }

  private static Set<String> exportKeys(ObjectStore store) {
    return TestArchive.keys(store, "cogram/");
  }
}
