package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dry run end to end on a real S3-protocol server: a hand-built archive with one record per rule,
 * the exact keys planned for deletion, the summary counts, the tables, and a bucket left unchanged.
 *
 * <p>The same plan is also written to an {@code s3a://} warehouse on the test server.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkPlanActionTest {
  private static final String BUCKET = "plan-it";
  private static final String P = "it/";

  private LocalS3Server server;
  private TestArchive archive;
  private Map<String, StoredObject> before;

  @BeforeAll
  void seedArchive(LocalS3Server server) throws InterruptedException {
    this.server = server;
    archive = new TestArchive(server, BUCKET, P);

    // A live project and its file.
    put("projects/p1/state.json", archive.state(false, null, List.of("projects/p1/project.json"), List.of()));
    put("projects/p1/project.json", "{}");
    // A deleted meeting: its files, then its state file; one listed file never existed.
    put("projects/p1/meetings/m1/meeting.json", "{}");
    put("projects/p1/meetings/m1/transcript.txt", "words");
    put("projects/p1/meetings/m1/state.json", archive.state(true, null, List.of("projects/p1/meetings/m1/meeting.json",
        "projects/p1/meetings/m1/transcript.txt", "projects/p1/meetings/m1/missing.txt",
        "projects/p1/meetings/m1/meeting.json"), List.of()));
    // A live email with a removed attachment that exists, one already gone, one also in files,
    // and an attachment named state.json (a file of the record, not a state file).
    put("projects/p1/emails/e1/body.html", "<p>");
    put("projects/p1/emails/e1/attachments/old.pdf", "pdf");
    put("projects/p1/emails/e1/attachments/state.json", "{\"not\": \"a state file\"}");
    put("projects/p1/emails/e1/state.json", archive.state(false, null,
        List.of("projects/p1/emails/e1/body.html", "projects/p1/emails/e1/attachments/state.json"),
        List.of("projects/p1/emails/e1/attachments/old.pdf", "projects/p1/emails/e1/attachments/gone.pdf",
            "projects/p1/emails/e1/body.html")));
    // An expired document and one not yet expired.
    put("projects/p1/documents/d1/doc.pdf", "pdf");
    put("projects/p1/documents/d1/state.json", archive.state(false, "2020-01-01T00:00:00Z",
        List.of("projects/p1/documents/d1/doc.pdf"), List.of()));
    put("projects/p1/documents/d2/doc.pdf", "pdf");
    put("projects/p1/documents/d2/state.json", archive.state(false, "2099-01-01T00:00:00Z",
        List.of("projects/p1/documents/d2/doc.pdf"), List.of()));
    // Refused: a key outside the record's folder.
    put("projects/p1/emails/e2/mail.eml", "mail");
    put("projects/p1/emails/e2/state.json", archive.state(true, null,
        List.of("projects/p1/emails/e2/mail.eml", "projects/p1/documents/d2/doc.pdf"), List.of()));
    // A deleted agent, and an agent that lists another agent's file (refused).
    put("organization/agents/a1.json", "{}");
    put("organization/agents/a1.state.json", archive.state(true, null, List.of("organization/agents/a1.json"), List.of()));
    put("organization/agents/a2.json", "{}");
    put("organization/agents/a2.state.json", archive.state(true, null, List.of("organization/agents/a1.json"), List.of()));
    // A bad state file.
    put("workflows/w1/runs/r1.json", "{}");
    put("workflows/w1/runs/r1.state.json", "{\"delete\": tru");
    // A deleted project that lists a file inside a live meeting that has its own state file (refused).
    put("projects/p2/project.json", "{}");
    put("projects/p2/meetings/m2/meeting.json", "{}");
    put("projects/p2/meetings/m2/state.json", archive.state(false, null, List.of("projects/p2/meetings/m2/meeting.json"),
        List.of()));
    put("projects/p2/state.json", archive.state(true, null,
        List.of("projects/p2/project.json", "projects/p2/meetings/m2/meeting.json"), List.of()));
    // A live document whose delete_files point into the exporter's folder (refused).
    put("projects/p3/documents/d3/doc.pdf", "pdf");
    put("projects/p3/documents/d3/state.json", archive.state(false, null, List.of("projects/p3/documents/d3/doc.pdf"),
        List.of("_cogram/manifest.json")));
    // The exporter's own files: never read, never deleted.
    put("_cogram/manifest.json", "{}");
    put("_cogram/runs/state.json", archive.state(true, null, List.of("_cogram/manifest.json"), List.of()));
    // An unknown kind folder: skipped, and visible.
    put("projects/p1/punch_lists/x1/item.json", "{}");
    put("projects/p1/punch_lists/x1/state.json", archive.state(true, null,
        List.of("projects/p1/punch_lists/x1/item.json"), List.of()));
    // A chat message with no project.
    put("unassigned_project/chat/c1/messages/m1.json", "{}");
    put("unassigned_project/chat/c1/messages/m1.state.json", archive.state(true, null,
        List.of("unassigned_project/chat/c1/messages/m1.json"), List.of()));
    // A record coming back: delete: true, but its file was written again after its state file
    // (LastModified has whole seconds here, so wait past the next second).
    put("projects/p1/rfis/r1/state.json", archive.state(true, null, List.of("projects/p1/rfis/r1/rfi.json"), List.of()));
    Thread.sleep(1_100);
    put("projects/p1/rfis/r1/rfi.json", "{}");

    before = snapshot();
  }

  @Test
  void dryRunPlansExactlyTheDueKeysAndDeletesNothing(@TempDir Path warehouse) {
    PlanResult result = plan(warehouse.toString());

    assertThat(result.failure()).isNull();
    assertThat(wouldDelete(result)).containsExactlyInAnyOrder(
        P + "projects/p1/meetings/m1/meeting.json",
        P + "projects/p1/meetings/m1/transcript.txt",
        P + "projects/p1/meetings/m1/state.json",
        P + "projects/p1/emails/e1/attachments/old.pdf",
        P + "projects/p1/documents/d1/doc.pdf",
        P + "projects/p1/documents/d1/state.json",
        P + "organization/agents/a1.json",
        P + "organization/agents/a1.state.json",
        P + "unassigned_project/chat/c1/messages/m1.json",
        P + "unassigned_project/chat/c1/messages/m1.state.json");
    assertThat(result.summary().line()).startsWith("summary: dry_run=true complete=true state_files_scanned=14"
        + " records_deleted=4 child_keys_deleted=6 records_kept=10 kept_newer_files=1 kept_refused=4 skipped=2"
        + " errors=0 bad_state=1 ");
    assertThat(snapshot()).isEqualTo(before);
  }

  /**
   * The plan's tables are made one after the other beside the plan, each awaited before its first write: the first
   * that cannot be made (here a file stands where {@code state_files} goes) fails the plan there, the ones after it
   * are not tried, nothing is deleted, and the failed run is still recorded in {@code runs}.
   */
  @Test
  void aTableThatCannotBeMadeFailsThePlanAtItsFirstWriteAndTheLaterOnesAreNotTried(@TempDir Path warehouse)
      throws java.io.IOException {
    java.nio.file.Files.writeString(warehouse.resolve("state_files"), "not a table");

    PlanResult result = plan(warehouse.toString());

    assertThat(result.failure()).isNotNull();
    assertThat(result.summary().line()).startsWith("summary: dry_run=true complete=false ");
    for (String table : List.of("deletion_plan", "plan_summary", "approvals", "executions")) {
      assertThat(warehouse.resolve(table)).as(table).doesNotExist();
    }
    SparkSession spark = SharedSpark.session();
    Row run = TableReader.of(spark, warehouse).runs()
        .selectExpr("count(*)", "count_if(complete)").first();
    assertThat(run.getLong(0)).isEqualTo(1);
    assertThat(run.getLong(1)).isZero();
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void tablesHoldOneRowPerRecordWithItsActionAndTheStateFileLast(@TempDir Path warehouse) {
    PlanResult result = plan(warehouse.toString());
    SparkSession spark = SharedSpark.session();

    List<Row> plan = TableReader.of(spark, result.tables()).deletionPlan(result.runId())
        .select("state_file_key", "action").collectAsList();
    Map<String, String> actions = new TreeMap<>();
    plan.forEach(row -> actions.put(row.getString(0).substring(P.length()), row.getString(1)));
    assertThat(plan).hasSize(14);
    assertThat(actions).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        Map.entry("projects/p1/state.json", "keep"),
        Map.entry("projects/p1/meetings/m1/state.json", "delete_record"),
        Map.entry("projects/p1/emails/e1/state.json", "delete_removed_files"),
        Map.entry("projects/p1/documents/d1/state.json", "delete_record"),
        Map.entry("projects/p1/documents/d2/state.json", "keep"),
        Map.entry("projects/p1/emails/e2/state.json", "kept_refused"),
        Map.entry("organization/agents/a1.state.json", "delete_record"),
        Map.entry("organization/agents/a2.state.json", "kept_refused"),
        Map.entry("workflows/w1/runs/r1.state.json", "bad_state"),
        Map.entry("projects/p2/meetings/m2/state.json", "keep"),
        Map.entry("projects/p2/state.json", "kept_refused"),
        Map.entry("projects/p3/documents/d3/state.json", "kept_refused"),
        Map.entry("unassigned_project/chat/c1/messages/m1.state.json", "delete_record"),
        Map.entry("projects/p1/rfis/r1/state.json", "kept_newer_files")));

    Row meeting = TableReader.of(spark, result.tables()).deletionPlan()
        .filter("run_id = '" + result.runId() + "' and state_file_key = '" + P + "projects/p1/meetings/m1/state.json'")
        .selectExpr("transform(deletes, d -> d.role) as roles", "missing_keys", "bytes_to_delete").first();
    assertThat(meeting.<String>getList(0)).containsExactly("file", "file", "state_file");
    assertThat(meeting.getInt(1)).isEqualTo(1);

    List<Row> skipped = TableReader.of(spark, result.tables()).stateFiles()
        .filter("run_id = '" + result.runId() + "' and status = 'skipped'").select("key", "message")
        .orderBy("key").collectAsList();
    assertThat(skipped).extracting(row -> row.getString(0)).containsExactly(
        P + "projects/p1/emails/e1/attachments/state.json", P + "projects/p1/punch_lists/x1/state.json");
    assertThat(skipped.get(1).getString(1)).contains("unknown kind folder 'punch_lists'");

    Row run = TableReader.of(spark, result.tables()).runs(result.runId())
        .select("complete", "dry_run", "records_deleted", "summary")
        .first();
    assertThat(run.getBoolean(0)).isTrue();
    assertThat(run.getBoolean(1)).isTrue();
    assertThat(run.getLong(2)).isEqualTo(4);
    assertThat(run.getString(3)).isEqualTo(result.summary().line());
  }

  @Test
  void writesTheTablesToAnS3aWarehouseOnTheTestServer() {
    server.createBucket("warehouse");
    SparkSession spark = SharedSpark.session();
    SharedSpark.s3a(spark, server.endpoint(), server.accessKey(), server.secretKey());

    PlanResult result = plan("s3a://warehouse/statesweep");

    assertThat(result.failure()).isNull();
    assertThat(result.summary().recordsDeleted()).isEqualTo(4);
    long rows = TableReader.of(spark, "s3a://warehouse/statesweep").deletionPlan(result.runId()).count();
    assertThat(rows).isEqualTo(14);
    List<String> written = new ArrayList<>();
    S3ObjectStore.open(server.s3Settings(), "warehouse").listAll("statesweep/", o -> written.add(o.key()));
    assertThat(written).anyMatch(key -> key.startsWith("statesweep/deletion_plan/_delta_log/"));
    assertThat(snapshot()).isEqualTo(before);
  }

  private PlanResult plan(String warehouse) {
    RunOptions options = TestOptions.of(server.endpoint(), BUCKET, "it", warehouse).with("--log-lines", "all")
        .options();
    return new SparkPlanAction(SharedSpark.session(), options.plan()).execute();
  }

  private static Set<String> wouldDelete(PlanResult result) {
    return result.logLines().stream().filter(line -> line.startsWith("would delete "))
        .map(line -> line.substring("would delete ".length())).collect(Collectors.toSet());
  }

  private Map<String, StoredObject> snapshot() {
    return archive.snapshot();
  }

  private void put(String relativeKey, String content) {
    archive.put(relativeKey, content);
  }
}
