package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.spark.execute.ExecuteFunctions;
import io.statesweep.spark.execute.ReviewedPlan;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Execution on a real S3-protocol server: exactly the planned keys go, and nothing of a live record. */
@ExtendWith(S3ServerExtension.class)
class SparkExecuteActionTest {
  private static final String P = "cogram/";
  private static final AtomicInteger BUCKETS = new AtomicInteger();

  private LocalS3Server server;
  private TestArchive archive;
  private String bucket;
  @TempDir
  Path warehouse;

  @BeforeEach
  void seed(LocalS3Server server) throws InterruptedException {
    this.server = server;
    bucket = "execute-" + BUCKETS.incrementAndGet();
    archive = new TestArchive(server, bucket, P);
    archive.put("projects/p1/project.json", "{}");
    archive.put("projects/p1/state.json", archive.state(false, null, List.of("projects/p1/project.json"), List.of()));
    archive.put("projects/p1/meetings/m1/meeting.json", "{}");
    archive.put("projects/p1/meetings/m1/transcript.txt", "words");
    archive.put("projects/p1/meetings/m1/state.json", archive.state(true, null,
        List.of("projects/p1/meetings/m1/meeting.json", "projects/p1/meetings/m1/transcript.txt"), List.of()));
    archive.put("projects/p1/emails/e1/body.html", "<p>");
    archive.put("projects/p1/emails/e1/attachments/old.pdf", "pdf");
    archive.put("projects/p1/emails/e1/state.json", archive.state(false, null, List.of("projects/p1/emails/e1/body.html"),
        List.of("projects/p1/emails/e1/attachments/old.pdf")));
    archive.put("projects/p1/documents/d1/doc.pdf", "pdf");
    archive.put("projects/p1/documents/d1/state.json", archive.state(false, "2020-01-01T00:00:00Z",
        List.of("projects/p1/documents/d1/doc.pdf"), List.of()));
    archive.put("projects/p1/emails/e2/mail.eml", "mail");
    archive.put("projects/p1/emails/e2/state.json", archive.state(true, null,
        List.of("projects/p1/emails/e2/mail.eml", "projects/p1/documents/d1/doc.pdf"), List.of()));
    archive.put("organization/agents/a1.json", "{}");
    archive.put("organization/agents/a1.state.json", archive.state(true, null, List.of("organization/agents/a1.json"),
        List.of()));
    archive.put("_cogram/manifest.json", "{}");
  }

  private static final Set<String> DELETED = Set.of(
      "projects/p1/meetings/m1/meeting.json", "projects/p1/meetings/m1/transcript.txt",
      "projects/p1/meetings/m1/state.json", "projects/p1/emails/e1/attachments/old.pdf",
      "projects/p1/documents/d1/doc.pdf", "projects/p1/documents/d1/state.json",
      "organization/agents/a1.json", "organization/agents/a1.state.json");

  @Test
  void runExecuteDeletesExactlyThePlannedKeysAndADryRunCountedThemRight() {
    Map<String, StoredObject> before = archive.snapshot();

    PlanResult dryRun = plan();
    PlanResult plan = plan();
    ExecuteResult result = execute(plan.runId(), ExecutionHook.NONE);

    assertThat(result.failure()).isNull();
    Set<String> expectedLeft = new TreeSet<>(before.keySet());
    DELETED.forEach(key -> expectedLeft.remove(P + key));
    assertThat(archive.snapshot().keySet()).isEqualTo(expectedLeft);
    assertThat(result.summary().line()).startsWith("summary: dry_run=false complete=true state_files_scanned=6"
        + " records_deleted=3 child_keys_deleted=5 records_kept=3 kept_newer_files=0 kept_refused=1 skipped=0 errors=0");
    assertThat(result.summary().recordsDeleted()).isEqualTo(dryRun.summary().recordsDeleted());
    assertThat(result.summary().childKeysDeleted()).isEqualTo(dryRun.summary().childKeysDeleted());
    assertThat(result.conditionalDeletes()).startsWith("on (detected");

    PlanResult secondPlan = plan();
    ExecuteResult second = execute(secondPlan.runId(), ExecutionHook.NONE);
    assertThat(second.summary().recordsDeleted()).isZero();
    assertThat(second.summary().childKeysDeleted()).isZero();
    assertThat(archive.snapshot().keySet()).isEqualTo(expectedLeft);
  }

  @Test
  void recordComingBackBetweenPlanAndExecuteIsKept() throws InterruptedException {
    PlanResult plan = plan();
    Thread.sleep(1_100);
    archive.put("projects/p1/meetings/m1/meeting.json", "{\"restored\": true}");

    ExecuteResult result = execute(plan.runId(), ExecutionHook.NONE);

    assertThat(outcome(result, "projects/p1/meetings/m1/state.json")).isEqualTo("kept_newer_files");
    assertThat(archive.snapshot()).containsKeys(P + "projects/p1/meetings/m1/meeting.json",
        P + "projects/p1/meetings/m1/transcript.txt", P + "projects/p1/meetings/m1/state.json");
    assertThat(result.logLines()).anyMatch(line -> line.contains("the record is coming back"));
    assertThat(result.summary().keptNewerFiles()).isEqualTo(1);
  }

  @Test
  void stateFileRewrittenBetweenPlanAndExecuteIsNotActedOn() {
    PlanResult plan = plan();
    archive.put("projects/p1/documents/d1/state.json", archive.state(false, "2099-01-01T00:00:00Z",
        List.of("projects/p1/documents/d1/doc.pdf"), List.of()));

    ExecuteResult result = execute(plan.runId(), ExecutionHook.NONE);

    assertThat(outcome(result, "projects/p1/documents/d1/state.json")).isEqualTo("state_changed");
    assertThat(archive.snapshot()).containsKeys(P + "projects/p1/documents/d1/doc.pdf",
        P + "projects/p1/documents/d1/state.json");
  }

  @Test
  void keyRewrittenAfterVerificationIsKeptByTheConditionalDelete() {
    PlanResult plan = plan();
    String key = P + "organization/agents/a1.json";

    ExecuteResult result = execute(plan.runId(), new RewriteBeforeDelete(server.s3Settings(), bucket, key));

    assertThat(outcome(result, "organization/agents/a1.state.json")).isEqualTo("changed_during_delete");
    assertThat(archive.snapshot()).containsKeys(key, P + "organization/agents/a1.state.json");
    Row failure = executions(result).filter("state_file_key = '" + P + "organization/agents/a1.state.json'")
        .selectExpr("failures[0].key", "failures[0].code").first();
    assertThat(failure.getString(0)).isEqualTo(key);
    assertThat(failure.getString(1)).isEqualTo("PreconditionFailed");
    assertThat(result.summary().recordsDeleted()).isEqualTo(2);
  }

  @Test
  void crashAfterSomeBatchesThenARerunFinishesWithNothingLostAndNothingTwice() {
    Map<String, StoredObject> before = archive.snapshot();
    PlanResult plan = plan();
    CRASH_AFTER.set(2);
    BATCHES_SEEN.set(0);

    ExecuteResult crashed = execute(plan.runId(), new CrashAfterBatches(), "1");

    assertThat(crashed.summary().complete()).isFalse();
    assertThat(crashed.summary().exitCode()).isEqualTo(1);
    Map<String, StoredObject> between = archive.snapshot();
    assertThat(before.size() - between.size()).isBetween(1, DELETED.size() - 1);
    // Every key the aborted attempt deleted is on its record, and its summary counts them.
    Set<String> goneInTheCrash = new TreeSet<>(before.keySet());
    goneInTheCrash.removeAll(between.keySet());
    assertThat(deletedKeys(crashed)).isEqualTo(goneInTheCrash);
    long stateFilesGone = goneInTheCrash.stream().filter(key -> key.endsWith("state.json")).count();
    assertThat(crashed.summary().recordsDeleted()).isEqualTo(stateFilesGone);
    assertThat(crashed.summary().childKeysDeleted()).isEqualTo(goneInTheCrash.size() - stateFilesGone);
    assertThat(ledgerObjects()).as("the ledger, once executions holds it").isEmpty();
    System.out.printf("ledger, a job aborted after some deletes: %d keys deleted, %d recorded%n", goneInTheCrash.size(),
        deletedKeys(crashed).size());
    for (String stateFile : List.of("projects/p1/meetings/m1/state.json", "projects/p1/documents/d1/state.json",
        "organization/agents/a1.state.json")) {
      if (!between.containsKey(P + stateFile)) {
        String folder = stateFile.substring(0, stateFile.lastIndexOf('/') + 1);
        assertThat(between.keySet()).noneMatch(k -> k.startsWith(P + folder) && DELETED.contains(k.substring(P.length())));
      }
    }

    ExecuteResult rerun = execute(plan.runId(), ExecutionHook.NONE, "1");

    assertThat(rerun.summary().complete()).isTrue();
    Set<String> expectedLeft = new TreeSet<>(before.keySet());
    DELETED.forEach(key -> expectedLeft.remove(P + key));
    assertThat(archive.snapshot().keySet()).isEqualTo(expectedLeft);
    List<Row> stateDeletes = TableReader.of(rerun.tables()).executions()
        .filter("run_id = '" + plan.runId() + "' and state_file_deleted").groupBy("state_file_key").count()
        .collectAsList();
    assertThat(stateDeletes).allMatch(row -> row.getLong(1) == 1);
    // The two attempts' records together: every planned key once.
    Set<String> goneInTheRerun = deletedKeys(rerun);
    assertThat(goneInTheRerun).doesNotContainAnyElementsOf(goneInTheCrash);
    Set<String> both = new TreeSet<>(goneInTheCrash);
    both.addAll(goneInTheRerun);
    assertThat(both).isEqualTo(new TreeSet<>(DELETED.stream().map(key -> P + key).toList()));
  }

  @Test
  void aRecordThatCameBackInATaskWhoseJobThenFailedIsNamedKeyByKey() {
    PlanResult plan = plan();
    String meeting = P + "projects/p1/meetings/m1/";

    ExecuteResult result = execute(plan.runId(), new ComeBackThenDie(server.s3Settings(), bucket, meeting));

    assertThat(result.summary().complete()).isFalse();
    assertThat(outcome(result, "projects/p1/meetings/m1/state.json")).isEqualTo("came_back_during_delete");
    assertThat(result.logLines()).contains(
        meeting + "state.json came back during its deletion: " + meeting + "meeting.json was deleted; run Verify bucket"
            + " in the exporter",
        meeting + "state.json came back during its deletion: " + meeting + "transcript.txt was deleted; run Verify"
            + " bucket in the exporter");
    assertThat(result.summary().extra()).containsEntry("came_back_during_delete", "1");
  }

  /**
   * Two attempts of one partition deleting at once, as a speculative copy runs beside a slow task: both verify the
   * same records, both send their deletes, and each key is in one row once, the counts the plan's.
   */
  @Test
  void twoCopiesOfAPartitionDeletingAtOnceRecordEachKeyOnce() {
    Map<String, StoredObject> before = archive.snapshot();
    PlanResult plan = plan();
    RunOptions options = options(Map.of("--dry-run", "false", "--skip-approval", "true"));
    org.apache.spark.sql.SparkSession spark = SharedSpark.session();
    Tables tables = new Tables(warehouse.toString());
    String runDate = RunsTable.planRow(spark, tables, plan.runId()).getAs("run_date");
    String attemptId = "20261202T000000Z-copies";
    org.apache.spark.sql.Dataset<io.statesweep.spark.rows.PlanRow> partition =
        ReviewedPlan.rows(spark, tables, null, runDate, plan.runId()).repartition(1);
    RunMetrics metrics = RunMetrics.register(spark.sparkContext());
    LedgerRecorder ledger = new LedgerRecorder(spark, options.execute(), metrics);
    OVERLAPPING.set(0);
    IN_DELETE.set(0);
    BOTH_COPIES = new java.util.concurrent.CountDownLatch(2);

    partition.union(partition).foreachPartition(new ExecuteFunctions.ExecuteRecords(
        new io.statesweep.plan.Planner(options.export().layout().classifier(options.export().prefix()), options.export().gracePolicy()),
        options.export().maxStateBytes(), options.export().s3(), bucket, 1000, io.statesweep.execute.ConditionalDeletes.ON, 0,
        new SlowDeletes(), new io.statesweep.ledger.LedgerEntry.Header(plan.runId(), runDate, attemptId,
            tables.warehouse(), 0, 0, 0, java.time.Instant.now()), ledger.folder(plan.runId(), attemptId), 1, metrics));
    // Read in Spark tasks (no hint of its size), as a large ledger is.
    ledger.record(plan.runId(), attemptId, runDate, tables, LedgerRecorder.Write.APPEND, true, -1);

    assertThat(OVERLAPPING).as("windows of the two copies deleting at the same time").hasPositiveValue();
    Set<String> gone = new TreeSet<>(before.keySet());
    gone.removeAll(archive.snapshot().keySet());
    assertThat(gone).isEqualTo(new TreeSet<>(DELETED.stream().map(key -> P + key).toList()));
    org.apache.spark.sql.Dataset<Row> rows = TableReader.of(spark, tables).executions()
        .filter("attempt_id = '" + attemptId + "'");
    assertThat(rows.count()).as("one row per planned record").isEqualTo(4);
    assertThat(rows.selectExpr("explode(deleted_keys)").count()).as("each key once").isEqualTo(gone.size());
    assertThat(rows.selectExpr("explode(deleted_keys)").distinct().count()).isEqualTo(gone.size());
    assertThat(rows.filter("outcome = 'deleted'").count()).isEqualTo(3);
    assertThat(rows.filter("task_attempts = 2").count()).as("rows both copies executed").isEqualTo(4);
    System.out.printf("ledger, two copies of a partition at once: %d keys deleted, %d recorded, %d overlapping"
        + " windows%n", gone.size(), rows.selectExpr("explode(deleted_keys)").count(), OVERLAPPING.get());
    assertThat(ledgerObjects()).isEmpty();
  }

  static final AtomicInteger IN_DELETE = new AtomicInteger();
  static final AtomicInteger OVERLAPPING = new AtomicInteger();
  /** Counted down by each copy's first window about to delete. */
  static volatile java.util.concurrent.CountDownLatch BOTH_COPIES = new java.util.concurrent.CountDownLatch(2);

  /**
   * The first window of each copy waits before its deletes until the other copy's is about to delete too (2
   * minutes at most): the two copies' windows overlap however late either task runs.
   */
  static final class SlowDeletes implements ExecutionHook {
    private static final long serialVersionUID = 1L;

    @Override
    public void beforeDelete(List<String> keys) {
      if (IN_DELETE.incrementAndGet() > 1) {
        OVERLAPPING.incrementAndGet();
      }
      try {
        java.util.concurrent.CountDownLatch both = BOTH_COPIES;
        both.countDown();
        both.await(2, java.util.concurrent.TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        IN_DELETE.decrementAndGet();
      }
    }
  }

  /** Every key of the attempt's rows of executions, each row's keys once. */
  private Set<String> deletedKeys(ExecuteResult result) {
    List<Row> keys = executions(result).selectExpr("explode(deleted_keys)").collectAsList();
    Set<String> unique = new TreeSet<>();
    keys.forEach(row -> assertThat(unique.add(row.getString(0))).as("%s recorded twice", row.getString(0)).isTrue());
    return unique;
  }

  /** The objects of statesweep's ledger left in the bucket. */
  private Set<String> ledgerObjects() {
    Set<String> keys = new TreeSet<>();
    S3ObjectStore.open(server.s3Settings(), bucket).listAll("cogram.statesweep/journal/",
        object -> keys.add(object.key()));
    return keys;
  }

  /**
   * The exporter brings the meeting back while its files go (it rewrites the state file as live), and the task that
   * saw it dies right after recording that window, as a lost executor would: its output is thrown away.
   */
  static final class ComeBackThenDie implements ExecutionHook {
    private static final long serialVersionUID = 1L;
    private final S3Settings s3;
    private final String bucket;
    private final String folder;

    ComeBackThenDie(S3Settings s3, String bucket, String folder) {
      this.s3 = s3;
      this.bucket = bucket;
      this.folder = folder;
    }

    @Override
    public void beforeDelete(List<String> keys) {
      if (keys.contains(folder + "meeting.json")) {
        S3ObjectStore.open(s3, bucket).write(folder + "state.json",
            "{\"delete\": false, \"files\": []}".getBytes(StandardCharsets.UTF_8));
      }
    }

    @Override
    public void afterWindow(List<String> stateFiles) {
      if (stateFiles.contains(folder + "state.json")) {
        throw new IllegalStateException("executor lost (simulated) after the window that saw " + folder + " come back");
      }
    }
  }

  @Test
  void recordWith2500FilesSpansBatchesAndItsStateFileGoesLast() {
    List<String> files = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      files.add(String.format("projects/p9/documents/big/pages/page-%04d.png", i));
    }
    files.parallelStream().forEach(file -> archive.put(file, "png"));
    archive.put("projects/p9/documents/big/state.json", archive.state(true, null, files, List.of()));
    PlanResult plan = plan();
    STATE_FILE_EARLY.clear();

    ExecuteResult result = execute(plan.runId(), new StateFileLastCheck(server.s3Settings(), bucket,
        P + "projects/p9/documents/big/"));

    assertThat(outcome(result, "projects/p9/documents/big/state.json")).isEqualTo("deleted");
    assertThat(STATE_FILE_EARLY).isEmpty();
    assertThat(archive.snapshot().keySet()).noneMatch(key -> key.startsWith(P + "projects/p9/"));
    Row row = executions(result).filter("state_file_key = '" + P + "projects/p9/documents/big/state.json'")
        .select("child_keys_deleted").first();
    assertThat(row.getLong(0)).isEqualTo(2_500);
  }

  /**
   * The deletes of a plan run in as many tasks as the execute asks for (parallelism x 2), even where
   * {@code spark.sql.shuffle.partitions} is that same number, as in this module's session (4 on
   * {@code local[2]}): a plain {@code repartition(4, col("stateFileKey"))} after the plan's
   * {@code dropDuplicates} was dropped by Spark and the shuffle coalesced by adaptive execution, so
   * every delete ran in one task.
   */
  @Test
  void theDeletesRunInManyTasksAlsoWhenShufflePartitionsEqualTheirNumber() {
    int partitions = SharedSpark.session().sparkContext().defaultParallelism() * 2;
    assertThat(SharedSpark.session().conf().get("spark.sql.shuffle.partitions"))
        .as("the premise: the session shuffles into the execute's number of partitions")
        .isEqualTo(Integer.toString(partitions));
    for (int i = 0; i < 40; i++) {
      archive.put("organization/agents/many" + i + ".json", "{}");
      archive.put("organization/agents/many" + i + ".state.json", archive.state(true, null,
          List.of("organization/agents/many" + i + ".json"), List.of()));
    }
    PlanResult plan = plan();
    TASKS_DELETING.clear();

    // Unpaced, the execute spreads its records over twice the cores: the session's shuffle partitions.
    ExecuteResult result = new SparkExecuteAction(SharedSpark.session(), options(Map.of("--batch-size", "1000",
        "--dry-run", "false", "--skip-approval", "true", "--pacing", "off")).execute(), plan.runId())
        .hook(new RecordTask()).execute();

    assertThat(result.failure()).isNull();
    assertThat(result.summary().recordsDeleted()).isEqualTo(43);
    assertThat(TASKS_DELETING).as("the partitions whose tasks sent deletes").hasSize(partitions);
  }

  static final Set<Integer> TASKS_DELETING = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Records the partition of each task that is about to delete a window. */
  static final class RecordTask implements ExecutionHook {
    private static final long serialVersionUID = 1L;

    @Override
    public void beforeDelete(List<String> keys) {
      TASKS_DELETING.add(org.apache.spark.TaskContext.getPartitionId());
    }
  }

  private PlanResult plan() {
    PlanResult result = new SparkPlanAction(SharedSpark.session(), options(Map.of()).plan()).execute();
    assertThat(result.failure()).isNull();
    return result;
  }

  private ExecuteResult execute(String runId, ExecutionHook hook) {
    return execute(runId, hook, "1000");
  }

  private ExecuteResult execute(String runId, ExecutionHook hook, String batchSize) {
    return new SparkExecuteAction(SharedSpark.session(), options(Map.of("--batch-size", batchSize,
        "--dry-run", "false", "--skip-approval", "true")).execute(), runId).hook(hook).execute();
  }

  private RunOptions options(Map<String, String> extra) {
    return TestOptions.of(server.endpoint(), bucket, P, warehouse).with("--log-lines", "all").with(extra).options();
  }

  private org.apache.spark.sql.Dataset<Row> executions(ExecuteResult result) {
    return TableReader.of(result.tables()).executions()
        .filter("attempt_id = '" + result.attemptId() + "'");
  }

  private String outcome(ExecuteResult result, String relativeStateKey) {
    return executions(result).filter("state_file_key = '" + P + relativeStateKey + "'").select("outcome").first()
        .getString(0);
  }

  /** Writes the key again (a new ETag) after it was verified and before its delete is sent. */
  static final class RewriteBeforeDelete implements ExecutionHook {
    private static final long serialVersionUID = 1L;
    private final S3Settings s3;
    private final String bucket;
    private final String key;

    RewriteBeforeDelete(S3Settings s3, String bucket, String key) {
      this.s3 = s3;
      this.bucket = bucket;
      this.key = key;
    }

    @Override
    public void beforeDelete(List<String> keys) {
      if (keys.contains(key)) {
        S3ObjectStore.open(s3, bucket).write(key, "{\"rewritten\": true}".getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  static final AtomicInteger CRASH_AFTER = new AtomicInteger();
  static final AtomicInteger BATCHES_SEEN = new AtomicInteger();

  /** Stops the job after some DeleteObjects requests, as a killed executor would. */
  static final class CrashAfterBatches implements ExecutionHook {
    private static final long serialVersionUID = 1L;

    @Override
    public void afterBatch(long batches) {
      if (BATCHES_SEEN.incrementAndGet() >= CRASH_AFTER.get()) {
        throw new IllegalStateException("simulated crash after " + BATCHES_SEEN.get() + " batches");
      }
    }
  }

  static final List<String> STATE_FILE_EARLY = new CopyOnWriteArrayList<>();

  /** After every batch: if the state file is gone, none of its record's files may remain. */
  static final class StateFileLastCheck implements ExecutionHook {
    private static final long serialVersionUID = 1L;
    private final S3Settings s3;
    private final String bucket;
    private final String folder;

    StateFileLastCheck(S3Settings s3, String bucket, String folder) {
      this.s3 = s3;
      this.bucket = bucket;
      this.folder = folder;
    }

    @Override
    public void afterBatch(long batches) {
      ObjectStore store = S3ObjectStore.open(s3, bucket);
      Map<String, StoredObject> left = new TreeMap<>();
      store.listAll(folder, object -> left.put(object.key(), object));
      if (!left.containsKey(folder + "state.json") && !left.isEmpty()) {
        STATE_FILE_EARLY.add("state file gone while " + left.size() + " files remain");
      }
    }
  }
}
