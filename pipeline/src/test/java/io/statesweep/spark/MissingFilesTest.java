package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.DeleteTarget;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pipeline/README.md, "What a run does": every plan names each file that a live record lists and the bucket lacks
 * ({@code missing <key>: listed by live record <state file>}, summary pair {@code missing_files=}), and only those: not
 * a due record's, not a key that only {@code delete_files} names, not a record kept whole. The execute of {@code run
 * --execute} repeats its plan's count.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MissingFilesTest {
  private static final String P = "it/";
  private static final String MEETING = "projects/p1/meetings/m1/";
  private static final List<String> MEETING_FILES = List.of(MEETING + "meeting.json", MEETING + "attachments/a1.pdf",
      MEETING + "attachments/a2.pdf", MEETING + "attachments/a3.pdf", MEETING + "attachments/a4.pdf");

  private LocalS3Server server;
  private int buckets;

  @BeforeAll
  void start(LocalS3Server server) {
    this.server = server;
  }

  /**
   * A live meeting with 2 of its 5 files gone, beside records whose absent keys are no loss: a live
   * email whose removed attachment is gone, a deleted document with a file gone, a refused record and
   * a bad one.
   */
  private TestArchive seed() throws InterruptedException {
    TestArchive archive = new TestArchive(server, "missing-" + ++buckets, P);
    MEETING_FILES.forEach(key -> archive.put(key, "content of " + key));
    archive.put(MEETING + "state.json", archive.state(false, null, MEETING_FILES, List.of()));
    archive.store().delete(List.of(new DeleteTarget(P + MEETING + "attachments/a1.pdf", null),
        new DeleteTarget(P + MEETING + "attachments/a3.pdf", null)));
    archive.put("projects/p1/emails/e1/body.html", "<p>");
    archive.put("projects/p1/emails/e1/state.json", archive.state(false, null, List.of("projects/p1/emails/e1/body.html"),
        List.of("projects/p1/emails/e1/attachments/removed.pdf")));
    archive.put("projects/p1/documents/d1/doc.pdf", "pdf");
    archive.put("projects/p1/documents/d1/state.json", archive.state(true, null,
        List.of("projects/p1/documents/d1/doc.pdf", "projects/p1/documents/d1/gone.pdf"), List.of()));
    archive.put("projects/p1/emails/e2/state.json", archive.state(false, null,
        List.of("projects/p1/emails/e2/gone.eml", "projects/p1/documents/d1/doc.pdf"), List.of()));
    archive.put("workflows/w1/runs/r1.state.json", "{\"delete\": false, \"files\": [\"it/workflows/w1/runs/r1.json\"");
    // A state file counts as listed only when it was written before the listing began (whole seconds here).
    Thread.sleep(2_100);
    return archive;
  }

  @Test
  void everyPlanNamesEachFileALiveRecordListsAndTheBucketLacksAndRunExecuteCountsThem(@TempDir Path warehouse)
      throws InterruptedException {
    TestArchive archive = seed();
    List<String> expected = List.of(
        "missing " + P + MEETING + "attachments/a1.pdf: listed by live record " + P + MEETING + "state.json",
        "missing " + P + MEETING + "attachments/a3.pdf: listed by live record " + P + MEETING + "state.json");

    PlanResult plan = plan(archive, warehouse, Map.of());

    assertThat(plan.failure()).isNull();
    assertThat(missingLines(plan.logLines())).containsExactlyElementsOf(expected);
    assertThat(plan.summary().line()).startsWith("summary: dry_run=true complete=true state_files_scanned=5"
        + " records_deleted=1 child_keys_deleted=1 records_kept=4 kept_newer_files=0 kept_refused=1 skipped=0"
        + " errors=0 bad_state=1 missing_files=2 ");

    SparkSession spark = SharedSpark.session();
    Map<String, List<String>> missingFiles = new TreeMap<>();
    TableReader.of(spark, plan.tables()).deletionPlan(plan.runId())
        .select("state_file_key", "missing_files").collectAsList()
        .forEach(row -> missingFiles.put(row.getString(0).substring(P.length()), row.getList(1)));
    assertThat(missingFiles).isEqualTo(Map.of(
        MEETING + "state.json", List.of(P + MEETING + "attachments/a1.pdf", P + MEETING + "attachments/a3.pdf"),
        "projects/p1/emails/e1/state.json", List.of(),
        "projects/p1/documents/d1/state.json", List.of(),
        "projects/p1/emails/e2/state.json", List.of(),
        "workflows/w1/runs/r1.state.json", List.of()));
    assertThat(runsMissingFiles(plan.tables(), plan.runId(), "plan")).isEqualTo(2);

    // An incremental plan takes every parsed state file from the first: the same lines, no GET.
    PlanResult incremental = plan(archive, warehouse, Map.of());
    assertThat(incremental.summary().line()).contains(" missing_files=2 ").contains(" state_file_gets=0 ");
    assertThat(missingLines(incremental.logLines())).containsExactlyElementsOf(expected);

    // run --execute: the execute's summary, the one printed last, carries its plan's count.
    ExecuteResult executed = new SparkExecuteAction(spark, options(archive, warehouse, Map.of("--dry-run", "false")).execute(),
        incremental.runId()).plannedInThisJob(incremental).execute();
    assertThat(executed.failure()).isNull();
    assertThat(executed.summary().line()).startsWith("summary: dry_run=false complete=true state_files_scanned=5"
        + " records_deleted=1 child_keys_deleted=1 ").contains(" bad_state=1 missing_files=2 ");
    assertThat(runsMissingFiles(executed.tables(), incremental.runId(), "execute")).isEqualTo(2);
    assertThat(archive.snapshot()).doesNotContainKey(P + "projects/p1/documents/d1/state.json");
  }

  @Test
  void aPlanRecordedBeforeTheTablesHadMissingFilesStillExecutes(@TempDir Path warehouse) throws InterruptedException {
    TestArchive archive = seed();
    PlanResult plan = plan(archive, warehouse, Map.of());
    assertThat(plan.failure()).isNull();
    SparkSession spark = SharedSpark.session();
    for (String table : List.of(Tables.DELETION_PLAN, Tables.RUNS)) {
      TableReader.of(spark, plan.tables()).table(table).drop("missing_files").write().format("delta").mode("overwrite")
          .option("overwriteSchema", "true").partitionBy("run_date").save(plan.tables().path(table));
    }

    ExecuteResult executed = new SparkExecuteAction(spark, options(archive, warehouse,
        Map.of("--dry-run", "false", "--skip-approval", "true")).execute(), plan.runId()).execute();

    assertThat(executed.failure()).isNull();
    assertThat(executed.summary().recordsDeleted()).isEqualTo(1);
    assertThat(executed.summary().line()).contains(" bad_state=1 conditional_deletes=")
        .doesNotContain("missing_files=");
  }

  private static List<String> missingLines(List<String> lines) {
    return lines.stream().filter(line -> line.startsWith("missing ")).toList();
  }

  private static long runsMissingFiles(Tables tables, String runId, String command) {
    Row run = TableReader.of(tables).runs()
        .filter("run_id = '" + runId + "' and command = '" + command + "'").select("missing_files").first();
    return run.getLong(0);
  }

  private PlanResult plan(TestArchive archive, Path warehouse, Map<String, String> more) {
    return new SparkPlanAction(SharedSpark.session(), options(archive, warehouse, more).plan()).execute();
  }

  private RunOptions options(TestArchive archive, Path warehouse, Map<String, String> more) {
    return TestOptions.of(server.endpoint(), archive.store().bucket(), "it", warehouse).with("--log-lines", "all")
        .with(more).options();
  }
}
