package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TableReader;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first week of a deployment, from the command line (conf/deploy/README.md, "Deploy: the checklist and the kit"):
 * the scheduled execute deletes only an approved plan ({@code execute --latest-approved}), an approval binds to the
 * digest the reviewer saw, a run is bounded to whole records ({@code --max-deletes}) and the next one goes on, lost
 * files fail a run that asks for it ({@code --fail-on}), a plan can be scoped, and a first plan leaves every table the
 * review reads.
 */
@ExtendWith(S3ServerExtension.class)
class FirstWeekTest {

  @Test
  void theScheduledExecuteDeletesOnlyTheNewestApprovedPlanOnce(LocalS3Server server, @TempDir Path warehouse) {
    Archive archive = Archive.of(server, "first-week", 60, 21L, warehouse);

    CommandOutput nothingYet = CommandOutput.run(archive.environment, "execute", "--latest-approved");

    assertThat(nothingYet.code()).as(nothingYet.all()).isZero();
    assertThat(nothingYet.lines("nothing to execute: ")).containsExactly("nothing to execute: no plan of"
        + " s3://first-week/cogram/ was made in " + warehouse + " yet: run plan, review it and approve it");
    assertThat(nothingYet.summary()).startsWith("summary: dry_run=false complete=true state_files_scanned=0"
        + " records_deleted=0 child_keys_deleted=0").contains(" approved_plan=none");

    CommandOutput plan = CommandOutput.run(archive.environment, "plan");
    String runId = field(plan.summary(), "run_id");
    // A first plan leaves every table the review notebooks read, empty where nothing happened yet.
    SparkSession spark = SparkSession.builder().getOrCreate();
    for (String table : List.of("approvals", "executions")) {
      assertThat(TableReader.of(spark, warehouse).exists(table)).as(table).isTrue();
      assertThat(TableReader.of(spark, warehouse).count(table)).as(table).isZero();
    }
    CommandOutput unapproved = CommandOutput.run(archive.environment, "execute", "--latest-approved");

    assertThat(unapproved.code()).as(unapproved.all()).isZero();
    assertThat(unapproved.lines("nothing to execute: ")).containsExactly("nothing to execute: no plan of"
        + " s3://first-week/cogram/ was approved yet: the newest plan, run " + runId + " of " + plannedAt(spark,
            warehouse, runId) + ", awaits review; approve it with: statesweep approve --run-id " + runId
        + " --by <your name> --warehouse " + warehouse);
    assertThat(archive.keys()).isEqualTo(archive.before);

    // An approval typed for another digest approves nothing.
    CommandOutput wrongDigest = CommandOutput.run(Map.of(), "approve", "--run-id", runId, "--by", "ana",
        "--warehouse", warehouse.toString(), "--digest", "0".repeat(64));

    assertThat(wrongDigest.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(wrongDigest.errors()).startsWith("statesweep: Not approved: the plan of run " + runId
        + " has digest ").contains(", not " + "0".repeat(64) + ", the digest given to approve");
    assertThat(TableReader.of(spark, warehouse).approvals().count()).isZero();

    // The refusal names the plan's digest: approving that one records the approval.
    Matcher named = Pattern.compile("has digest ([0-9a-f]{64}) ").matcher(wrongDigest.errors());
    assertThat(named.find()).as(wrongDigest.errors()).isTrue();
    CommandOutput approved = CommandOutput.run(Map.of(), "approve", "--run-id", runId, "--by", "ana", "--warehouse",
        warehouse.toString(), "--digest", named.group(1));

    assertThat(approved.code()).as(approved.all()).isZero();
    assertThat(field(approved.lines().get(0), "plan_digest")).isEqualTo(named.group(1));
    CommandOutput executed = CommandOutput.run(archive.environment, "execute", "--latest-approved");

    assertThat(executed.code()).as(executed.all()).isZero();
    assertThat(executed.summary()).contains(" run_id=" + runId).startsWith("summary: dry_run=false complete=true");
    assertThat(archive.left()).isEqualTo(archive.expectedLeft());

    CommandOutput again = CommandOutput.run(archive.environment, "execute", "--latest-approved");

    assertThat(again.code()).as(again.all()).isZero();
    assertThat(again.lines("nothing to execute: ")).singleElement().asString()
        .startsWith("nothing to execute: the newest approved plan of s3://first-week/cogram/, run " + runId
            + ", was executed completely by attempt ");
    assertThat(archive.left()).isEqualTo(archive.expectedLeft());
    assertThat(CommandOutput.run(archive.environment, "execute", "--latest-approved", "--run-id", runId).errors())
        .isEqualTo("statesweep: Give --run-id or --latest-approved, not both: --run-id executes the plan you name,"
            + " --latest-approved the newest approved plan of the bucket and prefix\n");
  }

  @Test
  void aBoundedRunDeletesWholeRecordsUpToItsBoundAndTheNextRunFinishes(LocalS3Server server, @TempDir Path warehouse) {
    Archive archive = Archive.of(server, "bounded", 200, 22L, warehouse);

    CommandOutput bounded = CommandOutput.run(archive.environment, "run", "--execute", "--max-deletes", "100");

    assertThat(bounded.code()).as(bounded.all()).isZero();
    Set<String> gone = new TreeSet<>(archive.before);
    gone.removeAll(archive.keys());
    System.out.printf("bounded run: %d of %d due keys deleted under --max-deletes 100; %s%n", gone.size(),
        archive.manifest.expectedDeletes().size(), bounded.lines("stopped at the bound"));
    assertThat(gone).hasSizeBetween(1, 100);
    // Whole records: each record's planned keys are all gone or all there.
    for (SampleArchive.SampleRecord record : archive.manifest.records().values()) {
      Set<String> deletes = record.expectedDeletes(archive.manifest.now(), Duration.ZERO);
      long goneOfIt = deletes.stream().filter(gone::contains).count();
      assertThat(goneOfIt).as(record.stateFileKey()).isIn(0L, (long) deletes.size());
    }
    assertThat(archive.expectedLeft()).as("more was due than the bound").isNotEqualTo(archive.left());
    assertThat(bounded.summary()).containsPattern(" deferred_records=[1-9][0-9]* deferred_keys=[1-9][0-9]*");
    assertThat(bounded.lines("stopped at the bound (--max-deletes 100): ")).singleElement().asString()
        .containsPattern("records \\([0-9]+ keys, [0-9]+ bytes\\) are left for the next run, from cogram/");

    CommandOutput next = CommandOutput.run(archive.environment, "run", "--execute");

    assertThat(next.code()).as(next.all()).isZero();
    assertThat(next.summary()).doesNotContain("deferred_records");
    assertThat(archive.left()).isEqualTo(archive.expectedLeft());
  }

  @Test
  void anApprovedPlanIsExecutedInBoundedSlicesUntilItIsDone(LocalS3Server server, @TempDir Path warehouse) {
    Archive archive = Archive.of(server, "slices", 200, 23L, warehouse);
    String runId = field(CommandOutput.run(archive.environment, "plan").summary(), "run_id");
    assertThat(CommandOutput.run(Map.of(), "approve", "--run-id", runId, "--by", "ana", "--warehouse",
        archive.environment.get("STATESWEEP_WAREHOUSE")).code()).isZero();
    Map<String, String> environment = new HashMap<>(archive.environment);
    // A bound that every record fits in, well below what is due: several slices.
    int largest = archive.manifest.records().values().stream()
        .mapToInt(record -> record.expectedDeletes(archive.manifest.now(), Duration.ZERO).size()).max().orElseThrow();
    int due = archive.manifest.expectedDeletes().size();
    int bound = Math.max(largest, (due + 2) / 3);
    assertThat(due).as("more is due than two slices hold").isGreaterThan(2 * largest);
    environment.put("STATESWEEP_MAX_DELETES", Integer.toString(bound));

    int slices = 0;
    String summary;
    do {
      // The scheduled execute goes on with the approved plan while an attempt of it stopped at its bound.
      CommandOutput slice = CommandOutput.run(environment, "execute", "--latest-approved");
      assertThat(slice.code()).as(slice.all()).isZero();
      assertThat(slice.summary()).contains(" run_id=" + runId + " ");
      summary = slice.summary();
      slices++;
      Set<String> gone = new TreeSet<>(archive.before);
      gone.removeAll(archive.keys());
      assertThat(gone.size()).as("keys gone after %d slices of %d", slices, bound).isLessThanOrEqualTo(bound * slices);
    } while (summary.contains("deferred_records") && slices < 20);

    System.out.printf("approved plan: %d due keys deleted in %d bounded executes of at most %d keys%n", due, slices,
        bound);
    assertThat(slices).isBetween(3, 6);
    assertThat(archive.left()).isEqualTo(archive.expectedLeft());
    assertThat(CommandOutput.run(environment, "execute", "--latest-approved").lines("nothing to execute: "))
        .singleElement().asString().startsWith("nothing to execute: the newest approved plan of s3://slices/cogram/,"
            + " run " + runId + ", was executed completely by attempt ");
  }

  @Test
  void lostFilesFailARunThatAsksForIt(LocalS3Server server, @TempDir Path warehouse) {
    Archive archive = Archive.of(server, "fail-on", 60, 24L, warehouse);
    long missing = archive.manifest.records().values().stream()
        .filter(record -> record.sampleCase() == SampleArchive.SampleCase.LIVE_WITH_MISSING_FILES).count();
    assertThat(missing).as("the sample archive has live records with missing files").isPositive();

    CommandOutput quiet = CommandOutput.run(archive.environment, "plan");
    CommandOutput failing = CommandOutput.run(archive.environment, "plan", "--fail-on", "came_back,missing");

    assertThat(quiet.code()).as(quiet.all()).isZero();
    assertThat(quiet.summary()).doesNotContain("failed_on");
    assertThat(failing.code()).isEqualTo(StatesweepCli.LOST_FILES);
    assertThat(failing.summary()).containsPattern(" missing_files=[1-9][0-9]* ").endsWith(" failed_on=missing");
    assertThat(failing.errors()).isEqualTo("statesweep: the run lost files (missing, see its summary) and --fail-on"
        + " makes that a failure: exit code 4\n");
    assertThat(CommandOutput.run(archive.environment, "plan", "--fail-on", "missing,gone").errors())
        .isEqualTo("statesweep: Invalid sweep.fail-on 'missing,gone' (from --fail-on): 'gone' is none of came_back,"
            + " missing; give them comma-separated, all, or none\n");
  }

  @Test
  void aScopedPlanPlansOnlyTheRecordsInItsScope(LocalS3Server server, @TempDir Path warehouse) {
    Archive archive = Archive.of(server, "scoped", 60, 25L, warehouse);

    CommandOutput scoped = CommandOutput.run(archive.environment, "plan", "--kinds", "emails,documents");
    SparkSession spark = SparkSession.builder().getOrCreate();

    assertThat(scoped.code()).as(scoped.all()).isZero();
    assertThat(scoped.summary()).contains(" scope=kinds:documents|emails ");
    String runId = field(scoped.summary(), "run_id");
    List<Row> kinds = TableReader.of(spark, warehouse).deletionPlan(runId).select("kind").distinct().collectAsList();
    assertThat(kinds).isNotEmpty().allSatisfy(row -> assertThat(row.getString(0)).isIn("emails", "documents"));
    long inScope = archive.manifest.records().keySet().stream()
        .filter(key -> key.matches("cogram/(projects/[^/]+|unassigned_project)/(emails|documents)/[^/]+/state.json"))
        .count();
    assertThat(Long.parseLong(field(scoped.summary(), "state_files_scanned"))).isEqualTo(inScope);
    assertThat(CommandOutput.run(archive.environment, "plan", "--kinds", "email").errors())
        .startsWith("statesweep: Invalid sweep.scope.kinds 'email' (from --kinds): 'email' is not a kind of layout"
            + " cogram; its kinds are ");
  }

  /** A generated archive in its own bucket, and the command line's environment for it. */
  private record Archive(ObjectStore store, SampleArchive.Manifest manifest, Set<String> before,
      Map<String, String> environment) {
    static Archive of(LocalS3Server server, String bucket, int records, long seed, Path warehouse) {
      server.createBucket(bucket);
      ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
      SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", records, seed, Instant.now());
      Map<String, String> environment = Map.of("COGRAM_CLEANUP_BUCKET", bucket, "COGRAM_CLEANUP_PREFIX", "cogram/",
          "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE", warehouse.toString(),
          "STATESWEEP_LOG_LINES", "0");
      Archive archive = new Archive(store, manifest, null, environment);
      return new Archive(store, manifest, archive.keys(), environment);
    }

    Set<String> keys() {
      Set<String> keys = new TreeSet<>();
      store.listAll("", object -> keys.add(object.key()));
      return keys;
    }

    /** The keys left now, statesweep's own folder aside. */
    Set<String> left() {
      Set<String> left = keys();
      left.removeIf(key -> key.startsWith("cogram.statesweep/"));
      return left;
    }

    /** What a complete clean of the archive leaves. */
    Set<String> expectedLeft() {
      Set<String> left = new TreeSet<>(before);
      left.removeIf(key -> key.startsWith("cogram.statesweep/"));
      left.removeAll(manifest.expectedDeletes());
      return left;
    }
  }

  private static Instant plannedAt(SparkSession spark, Path warehouse, String runId) {
    return TableReader.of(spark, warehouse).runs(runId)
        .select("planned_at").first().getTimestamp(0).toInstant();
  }

  private static String field(String line, String name) {
    Matcher matcher = Pattern.compile(" " + name + "=(\\S+)").matcher(line);
    assertThat(matcher.find()).as(name + " in " + line).isTrue();
    return matcher.group(1);
  }
}
