package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.tables.DeltaTable;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.local.LocalS3Server;
import io.statesweep.plan.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestArchive;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execute --run-id} of a plan made by another job: refused until someone approves the plan, and refused
 * for a plan older than {@code --max-plan-age}; a refusal deletes nothing and writes no attempt.
 */
@ExtendWith(S3ServerExtension.class)
class ApprovalTest {
  private static final String P = "cogram/";
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final String UNKNOWN_RUN = "20990101T000000Z-000000";

  /** What the plan of the archive below deletes: the deleted meeting, and the email's removed attachment. */
  private static final Set<String> PLANNED = Set.of(
      P + "projects/p1/meetings/m1/minutes.pdf", P + "projects/p1/meetings/m1/audio.m4a",
      P + "projects/p1/meetings/m1/state.json", P + "projects/p1/emails/e1/attachments/old.pdf");

  private final SparkSession spark = SharedSpark.session();
  private LocalS3Server server;
  private TestArchive archive;
  private String bucket;
  @TempDir
  Path warehouse;

  @BeforeEach
  void seed(LocalS3Server server) {
    this.server = server;
    bucket = "approval-" + BUCKETS.incrementAndGet();
    archive = new TestArchive(server, bucket, P);
    archive.put("projects/p1/project.json", "{}");
    archive.put("projects/p1/state.json", archive.state(false, null, List.of("projects/p1/project.json"), List.of()));
    archive.put("projects/p1/meetings/m1/minutes.pdf", "minutes");
    archive.put("projects/p1/meetings/m1/audio.m4a", "audio-bytes");
    archive.put("projects/p1/meetings/m1/state.json", archive.state(true, null,
        List.of("projects/p1/meetings/m1/minutes.pdf", "projects/p1/meetings/m1/audio.m4a"), List.of()));
    archive.put("projects/p1/emails/e1/body.html", "<p>");
    archive.put("projects/p1/emails/e1/attachments/old.pdf", "old-pdf");
    archive.put("projects/p1/emails/e1/state.json", archive.state(false, null, List.of("projects/p1/emails/e1/body.html"),
        List.of("projects/p1/emails/e1/attachments/old.pdf")));
  }

  @Test
  void unapprovedPlanIsRefusedAndNothingIsDeletedUntilSomeoneApprovesIt() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    assertThat(plannedKeys(runId)).isEqualTo(PLANNED);

    assertThatThrownBy(() -> execute(runId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The plan of run " + runId + " has not been approved. Review it (table " + warehouse
            + "/deletion_plan, view plan_summary, notebooks/), then record the approval with: statesweep approve"
            + " --run-id " + runId + " --by <your name> --warehouse " + warehouse + "; or execute with --skip-approval");
    assertThat(archive.snapshot()).isEqualTo(before);
    assertThat(executionRows(runId)).isZero();
    assertThat(commands(runId)).containsExactly("plan");

    approve(runId, "ana@example.com", "looked at plan_summary");
    ExecuteResult result = execute(runId, Map.of()).execute();

    assertThat(result.failure()).isNull();
    assertThat(result.summary().recordsDeleted()).isEqualTo(1);
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), PLANNED));
    assertThat(commands(runId)).containsExactly("execute", "plan");
  }

  @Test
  void approvalRecordsWhoWhenWhyAndWhatThePlanDeletesForThatRunOnly() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    String otherRunId = plan();
    Instant plannedAt = plannedAt(runId);
    Instant approvedAt = plannedAt.plus(Duration.ofMinutes(30));
    long plannedBytes = PLANNED.stream().mapToLong(key -> before.get(key).size()).sum();

    SparkApproveAction.Approval approval = new SparkApproveAction(spark, tables())
        .clock(Clock.fixed(approvedAt, ZoneOffset.UTC))
        .approve(runId, "  ana@example.com ", " looked at plan_summary ");

    assertThat(approval).isEqualTo(new SparkApproveAction.Approval(runId, "ana@example.com", approvedAt, 1, 1, 4,
        plannedBytes));
    assertThat(approval.line()).isEqualTo("approved run " + runId + " by ana@example.com at " + approvedAt
        + ": records_to_delete=1 records_with_removed_files=1 keys_to_delete=4 bytes_to_delete=" + plannedBytes);
    Row row = approvalRow(runId);
    assertThat(row.<String>getAs("run_id")).isEqualTo(runId);
    assertThat(row.<String>getAs("run_date")).isEqualTo(planRun(runId).<String>getAs("run_date"));
    assertThat(row.<String>getAs("approved_by")).isEqualTo("ana@example.com");
    assertThat(row.<Timestamp>getAs("approved_at").toInstant()).isEqualTo(approvedAt);
    assertThat(row.<String>getAs("note")).isEqualTo("looked at plan_summary");
    assertThat(row.<String>getAs("bucket")).isEqualTo(bucket);
    assertThat(row.<String>getAs("prefix")).isEqualTo(P);
    assertThat(row.<Timestamp>getAs("planned_at").toInstant()).isEqualTo(plannedAt);
    Row plan = spark.read().format("delta").load(tables().deletionPlan()).filter("run_id = '" + runId + "'")
        .selectExpr("sum(keys_to_delete)", "sum(bytes_to_delete)").first();
    assertThat(row.<Long>getAs("records_to_delete")).isEqualTo(1);
    assertThat(row.<Long>getAs("records_with_removed_files")).isEqualTo(1);
    assertThat(row.<Long>getAs("keys_to_delete")).isEqualTo(plan.getLong(0)).isEqualTo(PLANNED.size());
    assertThat(row.<Long>getAs("bytes_to_delete")).isEqualTo(plan.getLong(1)).isEqualTo(plannedBytes);

    // The other plan of the same bucket is not approved by it.
    assertThatThrownBy(() -> execute(otherRunId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("The plan of run " + otherRunId + " has not been approved.");
    assertThat(archive.snapshot()).isEqualTo(before);

    // Its own approval, without a note.
    approve(otherRunId, "bo", "  ");
    assertThat(approvalRow(otherRunId).<String>getAs("note")).isNull();
    assertThat(spark.read().format("delta").load(tables().approvals()).count()).isEqualTo(2);
  }

  @Test
  void approvedPlanOlderThanMaxPlanAgeIsRefusedUntilMaxPlanAgeIsRaised() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    Instant plannedAt = plannedAt(runId);
    Clock dayLater = Clock.fixed(plannedAt.plus(Duration.ofHours(24)), ZoneOffset.UTC);
    Clock dayAndAnHourLater = Clock.fixed(plannedAt.plus(Duration.ofHours(25)), ZoneOffset.UTC);

    // Exactly max-plan-age old is not too old: what stops it is the missing approval.
    assertThatThrownBy(() -> execute(runId, Map.of()).clock(dayLater).execute())
        .hasMessageStartingWith("The plan of run " + runId + " has not been approved.");
    // --skip-approval skips the approval, never the age.
    assertThatThrownBy(() -> execute(runId, Map.of("--skip-approval", "true")).clock(dayAndAnHourLater).execute())
        .hasMessageContaining(", 25h ago, more than max-plan-age 24h: ");
    approve(runId, "ana", null);
    assertThatThrownBy(() -> execute(runId, Map.of()).clock(dayAndAnHourLater).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The plan of run " + runId + " was made at " + plannedAt + ", 25h ago, more than max-plan-age 24h:"
            + " the bucket has moved on since. Plan again, review and approve the new plan, and execute that; or give"
            + " --max-plan-age to execute this one anyway");
    assertThatThrownBy(() -> execute(runId, Map.of("--max-plan-age", "90m")).clock(dayAndAnHourLater).execute())
        .hasMessageContaining(", 25h ago, more than max-plan-age 1h30m: ");
    assertThat(archive.snapshot()).isEqualTo(before);
    assertThat(executionRows(runId)).isZero();
    assertThat(commands(runId)).containsExactly("plan");

    ExecuteResult result = execute(runId, Map.of("--max-plan-age", "48h")).clock(dayAndAnHourLater).execute();

    assertThat(result.failure()).isNull();
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), PLANNED));
  }

  @Test
  void skipApprovalExecutesAnUnapprovedPlan() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();

    ExecuteResult result = execute(runId, Map.of("--skip-approval", "true")).execute();

    assertThat(result.failure()).isNull();
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), PLANNED));
    assertThat(DeltaTable.isDeltaTable(spark, tables().approvals())).isFalse();
  }

  @Test
  void planMadeInTheSameJobNeedsNoApproval() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();

    ExecuteResult result = execute(runId, Map.of()).plannedInThisJob().execute();

    assertThat(result.failure()).isNull();
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), PLANNED));
  }

  @Test
  void approvingARunIdWithoutAPlanIsRefused() {
    SparkApproveAction action = new SparkApproveAction(spark, tables());

    assertThatThrownBy(() -> action.approve(UNKNOWN_RUN, "ana", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("No plan with run id " + UNKNOWN_RUN + ": cannot read table " + warehouse + "/runs: ");
    plan();
    assertThatThrownBy(() -> action.approve(UNKNOWN_RUN, "ana", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("No plan with run id " + UNKNOWN_RUN + " in " + warehouse + "/runs: run plan first, and give its"
            + " run_id");
    assertThat(DeltaTable.isDeltaTable(spark, tables().approvals())).isFalse();
  }

  @Test
  void approvalNamesWhoApproves() {
    SparkApproveAction action = new SparkApproveAction(spark, tables());

    for (String blank : new String[] {null, "", "   "}) {
      assertThatThrownBy(() -> action.approve(UNKNOWN_RUN, blank, "note"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Missing --by: who approves the plan (a name or an email)");
    }
    assertThatThrownBy(() -> action.approve(UNKNOWN_RUN, "a".repeat(201), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--by is longer than 200 characters");
  }

  private String plan() {
    PlanResult result = new SparkPlanAction(spark, options(Map.of())).execute();
    assertThat(result.failure()).isNull();
    return result.runId();
  }

  private void approve(String runId, String by, String note) {
    new SparkApproveAction(spark, tables()).approve(runId, by, note);
  }

  private SparkExecuteAction execute(String runId, Map<String, String> extra) {
    Map<String, String> flags = new HashMap<>(extra);
    flags.put("--dry-run", "false");
    return new SparkExecuteAction(spark, options(flags), runId);
  }

  private RunOptions options(Map<String, String> extra) {
    Map<String, String> flags = new HashMap<>(extra);
    flags.put("--bucket", bucket);
    flags.put("--prefix", P);
    flags.put("--endpoint", server.endpoint());
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    return RunOptions.from(Settings.resolve(flags, Map.of(), null));
  }

  private Tables tables() {
    return new Tables(warehouse.toString());
  }

  private Row planRun(String runId) {
    return spark.read().format("delta").load(tables().runs())
        .filter("run_id = '" + runId + "' and command = 'plan'").first();
  }

  private Row approvalRow(String runId) {
    List<Row> rows = spark.read().format("delta").load(tables().approvals()).filter("run_id = '" + runId + "'")
        .collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private Instant plannedAt(String runId) {
    return planRun(runId).<Timestamp>getAs("planned_at").toInstant();
  }

  /** The commands the runs table holds for the run, sorted: its plan and each execute attempt. */
  private List<String> commands(String runId) {
    return spark.read().format("delta").load(tables().runs()).filter("run_id = '" + runId + "'")
        .orderBy("command").select("command").as(Encoders.STRING()).collectAsList();
  }

  private Set<String> plannedKeys(String runId) {
    return new TreeSet<>(spark.read().format("delta").load(tables().deletionPlan())
        .filter("run_id = '" + runId + "'").selectExpr("explode(deletes.key)")
        .as(Encoders.STRING()).collectAsList());
  }

  private long executionRows(String runId) {
    if (!DeltaTable.isDeltaTable(spark, tables().executions())) {
      return 0;
    }
    return spark.read().format("delta").load(tables().executions()).filter("run_id = '" + runId + "'").count();
  }

  private static Set<String> without(Set<String> keys, Set<String> removed) {
    Set<String> left = new TreeSet<>(keys);
    left.removeAll(removed);
    return left;
  }
}
