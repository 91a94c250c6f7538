package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;

import io.statesweep.spark.tables.PlanDigest;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.tables.TableWrites;
import io.delta.tables.DeltaTable;
import io.statesweep.api.Approval;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code execute --run-id} of a plan made by another job: refused until someone approves the plan, refused for a
 * plan whose rows changed after its newest approval, and refused for a plan older than {@code --max-plan-age}; a
 * refusal deletes nothing and writes no attempt.
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
  private static final Set<String> MEETING = Set.of(P + "projects/p1/meetings/m1/minutes.pdf",
      P + "projects/p1/meetings/m1/audio.m4a", P + "projects/p1/meetings/m1/state.json");
  private static final String MEETING_STATE = P + "projects/p1/meetings/m1/state.json";
  private static final String EMAIL_STATE = P + "projects/p1/emails/e1/state.json";

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

    Approval approval = new SparkApproveAction(spark, tables())
        .clock(Clock.fixed(approvedAt, ZoneOffset.UTC))
        .approve(runId, "  ana@example.com ", " looked at plan_summary ");

    String digest = currentDigest(runId).digest();
    assertThat(digest).matches("[0-9a-f]{64}");
    assertThat(approval).isEqualTo(new Approval(runId, "ana@example.com", approvedAt, 1, 1, 4,
        plannedBytes, 3, digest));
    assertThat(approval.line()).isEqualTo("approved run " + runId + " by ana@example.com at " + approvedAt
        + ": records_to_delete=1 records_with_removed_files=1 keys_to_delete=4 bytes_to_delete=" + plannedBytes
        + " plan_rows=3 plan_digest=" + digest);
    Row row = approvalRow(runId);
    assertThat(row.<String>getAs("run_id")).isEqualTo(runId);
    assertThat(row.<String>getAs("run_date")).isEqualTo(planRun(runId).<String>getAs("run_date"));
    assertThat(row.<String>getAs("approved_by")).isEqualTo("ana@example.com");
    assertThat(row.<Timestamp>getAs("approved_at").toInstant()).isEqualTo(approvedAt);
    assertThat(row.<String>getAs("note")).isEqualTo("looked at plan_summary");
    assertThat(row.<String>getAs("bucket")).isEqualTo(bucket);
    assertThat(row.<String>getAs("prefix")).isEqualTo(P);
    assertThat(row.<Timestamp>getAs("planned_at").toInstant()).isEqualTo(plannedAt);
    Row plan = TableReader.of(spark, tables()).deletionPlan(runId)
        .selectExpr("sum(keys_to_delete)", "sum(bytes_to_delete)").first();
    assertThat(row.<Long>getAs("records_to_delete")).isEqualTo(1);
    assertThat(row.<Long>getAs("records_with_removed_files")).isEqualTo(1);
    assertThat(row.<Long>getAs("keys_to_delete")).isEqualTo(plan.getLong(0)).isEqualTo(PLANNED.size());
    assertThat(row.<Long>getAs("bytes_to_delete")).isEqualTo(plan.getLong(1)).isEqualTo(plannedBytes);
    assertThat(row.<Long>getAs("plan_rows")).isEqualTo(3);
    assertThat(row.<String>getAs("plan_digest")).isEqualTo(digest).isNotEqualTo(currentDigest(otherRunId).digest());

    // The other plan of the same bucket is not approved by it.
    assertThatThrownBy(() -> execute(otherRunId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("The plan of run " + otherRunId + " has not been approved.");
    assertThat(archive.snapshot()).isEqualTo(before);

    // Its own approval, without a note.
    approve(otherRunId, "bo", "  ");
    assertThat(approvalRow(otherRunId).<String>getAs("note")).isNull();
    assertThat(TableReader.of(spark, tables()).approvals().count()).isEqualTo(2);
  }

  /** What happens to an approved plan's rows before it is executed. */
  enum Tampering {
    /** A copy of the meeting's row, for another state file. */
    ROW_APPENDED(4),
    /** The live project's row turned into delete_record. */
    ACTION_EDITED(3),
    /** The ETag the meeting's minutes are deleted at. */
    DELETE_ETAG_EDITED(3),
    /** The email's row, which deletes its removed attachment. */
    ROW_DELETED(2);

    final long rowsAfter;

    Tampering(long rowsAfter) {
      this.rowsAfter = rowsAfter;
    }
  }

  @ParameterizedTest
  @EnumSource(Tampering.class)
  void planChangedAfterItsApprovalIsRefusedAndNothingIsDeleted(Tampering tampering) {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    Instant approvedAt = plannedAt(runId).plus(Duration.ofMinutes(1));
    approveAt(runId, "ana", approvedAt);
    String approved = approvalRow(runId).getAs("plan_digest");

    tamper(runId, tampering);
    PlanDigest.Result current = currentDigest(runId);

    assertThat(current.rows()).isEqualTo(tampering.rowsAfter);
    assertThat(current.digest()).isNotEqualTo(approved);
    assertThatThrownBy(() -> execute(runId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The plan of run " + runId + " changed after it was approved: approved digest " + approved
            + " (3 rows, approved by ana at " + approvedAt + "), current digest " + current.digest() + " ("
            + tampering.rowsAfter + " rows of the run in table " + warehouse + "/deletion_plan). Nothing was deleted."
            + " Review the plan again, then approve it again with: statesweep approve --run-id " + runId
            + " --by <your name> --warehouse " + warehouse);
    assertThat(archive.snapshot()).isEqualTo(before);
    assertThat(executionRows(runId)).isZero();
    assertThat(commands(runId)).containsExactly("plan");
  }

  /**
   * Where no JVM computes a digest (a notebook on Databricks standard access or serverless, EMR Studio), an approval is
   * an SQL row bound to the version of deletion_plan the reviewer read: execute digests the run's rows of that
   * version and requires today's to match. Rows changed after it are refused; approved again at the new version, the
   * plan is executed.
   */
  @Test
  void anApprovalWrittenBySqlIsBoundToTheVersionTheReviewerReadAndExecutedWhileTheRowsAreThose() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    long read = PlanDigest.currentVersion(spark, tables());
    spark.sql(approvalBySql(runId, read, "ana"));
    PlanDigest.Result approved = PlanDigest.of(spark, tables(), read, planRun(runId).getAs("run_date"), runId);
    assertThat(approvalRow(runId).<String>getAs("plan_digest")).isEqualTo("deletion_plan version " + read);

    tamper(runId, Tampering.ROW_DELETED);
    assertThatThrownBy(() -> execute(runId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("The plan of run " + runId + " changed after it was approved: approved digest "
            + approved.digest() + " (3 rows, approved by ana at ");
    assertThat(archive.snapshot()).isEqualTo(before);

    spark.sql(approvalBySql(runId, PlanDigest.currentVersion(spark, tables()), "ana"));
    ExecuteResult executed = execute(runId, Map.of()).execute();
    assertThat(executed.failure()).isNull();
    assertThat(before.keySet().stream().filter(key -> !archive.snapshot().containsKey(key)))
        .as("what the plan approved at its new version deletes").containsExactlyInAnyOrderElementsOf(MEETING);
  }

  /** An approval as SQL writes it, bound to version {@code version} of deletion_plan, counted from that version. */
  private String approvalBySql(String runId, long version, String by) {
    return "INSERT INTO delta.`" + tables().approvals() + "` (run_id, run_date, approved_by, approved_at, note,"
        + " bucket, prefix, planned_at, records_to_delete, records_with_removed_files, keys_to_delete, bytes_to_delete,"
        + " plan_rows, plan_digest, plan_version)"
        + " SELECT p.run_id, p.run_date, '" + by + "', current_timestamp(), 'reviewed in a notebook', r.bucket, r.prefix,"
        + " r.planned_at, count_if(p.action = 'delete_record'), count_if(p.action = 'delete_removed_files'),"
        + " coalesce(sum(p.keys_to_delete), 0), coalesce(sum(p.bytes_to_delete), 0), count(*),"
        + " concat('deletion_plan version ', " + version + "), " + version
        + " FROM delta.`" + tables().deletionPlan() + "` VERSION AS OF " + version + " p"
        + " JOIN delta.`" + tables().runs() + "` r ON r.run_id = p.run_id AND r.command = 'plan'"
        + " WHERE p.run_id = '" + runId + "' GROUP BY p.run_id, p.run_date, r.bucket, r.prefix, r.planned_at";
  }

  @Test
  void onlyTheNewestApprovalCountsSoAPlanTurnedBackToAnEarlierApprovedVersionIsRefused() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    Instant plannedAt = plannedAt(runId);
    approveAt(runId, "ana", plannedAt.plus(Duration.ofMinutes(1)));
    String first = approvalDigests(runId).get(0);
    Dataset<Row> emailRow = spark.createDataFrame(planRows(runId).filter(col("state_file_key").equalTo(EMAIL_STATE))
        .collectAsList(), planRows(runId).schema());
    // The reviewer takes the email's row out of the plan and approves what is left.
    tamper(runId, Tampering.ROW_DELETED);
    Instant secondAt = plannedAt.plus(Duration.ofMinutes(2));
    approveAt(runId, "bo", secondAt);
    String second = approvalDigests(runId).get(0);
    // Then the row comes back: the plan is again what ana approved, not what bo approved last.
    emailRow.write().format("delta").mode("append").save(tables().deletionPlan());

    assertThat(currentDigest(runId).digest()).isEqualTo(first).isNotEqualTo(second);
    assertThatThrownBy(() -> execute(runId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("The plan of run " + runId + " changed after it was approved: approved digest "
            + second + " (2 rows, approved by bo at " + secondAt + "), current digest " + first + " (3 rows of the run ");
    assertThat(archive.snapshot()).isEqualTo(before);

    // As bo approved it: the meeting goes, the email keeps its removed attachment.
    tamper(runId, Tampering.ROW_DELETED);
    ExecuteResult result = execute(runId, Map.of()).execute();

    assertThat(result.failure()).isNull();
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), MEETING));
  }

  @Test
  void approvalRecordedBeforeDigestsIsRefusedUntilThePlanIsApprovedAgain() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    Instant approvedAt = plannedAt(runId).plus(Duration.ofMinutes(1));
    Row plan = planRun(runId);
    // The approvals table as the version before digests wrote it.
    StructType legacy = new StructType(java.util.Arrays.stream(TableSchemas.APPROVALS.structType().fields())
        .filter(field -> !Set.of("plan_rows", "plan_digest", "plan_version").contains(field.name()))
        .toArray(StructField[]::new));
    TableWrites.append(spark.createDataFrame(List.of(RowFactory.create(runId, plan.getAs("run_date"), "ana",
        Timestamp.from(approvedAt), null, bucket, P, plan.getAs("planned_at"), 1L, 1L, 4L, 0L)), legacy),
        tables().approvals());

    assertThatThrownBy(() -> execute(runId, Map.of()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The approval of run " + runId + " by ana at " + approvedAt + " was recorded before approvals"
            + " carried a digest of the plan's rows, so it cannot show that table " + warehouse + "/deletion_plan still"
            + " holds the plan that was approved. Review the plan again, then approve it again with: statesweep"
            + " approve --run-id " + runId + " --by <your name> --warehouse " + warehouse);
    assertThat(archive.snapshot()).isEqualTo(before);
    assertThat(executionRows(runId)).isZero();

    approveAt(runId, "ana", approvedAt.plus(Duration.ofMinutes(1)));
    ExecuteResult result = execute(runId, Map.of()).execute();

    assertThat(result.failure()).isNull();
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), PLANNED));
  }

  @Test
  void unchangedPlanExecutesThoughItsTableFilesAndTheSessionTimeZoneDiffer() {
    Map<String, StoredObject> before = archive.snapshot();
    String runId = plan();
    spark.conf().set("spark.sql.session.timeZone", "America/New_York");
    try {
      approveAt(runId, "ana", plannedAt(runId).plus(Duration.ofMinutes(1)));
    } finally {
      spark.conf().set("spark.sql.session.timeZone", "UTC");
    }
    String approved = approvalDigests(runId).get(0);
    // The same rows rewritten into other files, in another order (as a compaction might).
    Dataset<Row> all = TableReader.of(spark, tables()).deletionPlan();
    spark.createDataFrame(all.collectAsList(), all.schema()).orderBy(col("state_file_key").desc()).repartition(3)
        .write().format("delta").mode("overwrite").partitionBy("run_date").save(tables().deletionPlan());

    assertThat(currentDigest(runId).digest()).isEqualTo(approved);
    ExecuteResult result = execute(runId, Map.of()).execute();

    assertThat(result.failure()).isNull();
    assertThat(archive.snapshot().keySet()).isEqualTo(without(before.keySet(), PLANNED));
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
    // The plan made the table, empty: nothing was approved.
    assertThat(TableReader.of(spark, tables()).approvals().count()).isZero();
  }

  @Test
  void planMadeInTheSameJobNeedsNoApproval() {
    Map<String, StoredObject> before = archive.snapshot();
    PlanResult plan = planResult();

    ExecuteResult result = execute(plan.runId(), Map.of()).plannedInThisJob(plan).execute();

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
    // The plan made the table, empty: nothing was approved.
    assertThat(TableReader.of(spark, tables()).approvals().count()).isZero();
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
    return planResult().runId();
  }

  private PlanResult planResult() {
    PlanResult result = new SparkPlanAction(spark, options(Map.of()).plan()).execute();
    assertThat(result.failure()).isNull();
    return result;
  }

  private void approve(String runId, String by, String note) {
    new SparkApproveAction(spark, tables()).approve(runId, by, note);
  }

  private void approveAt(String runId, String by, Instant at) {
    new SparkApproveAction(spark, tables()).clock(Clock.fixed(at, ZoneOffset.UTC)).approve(runId, by, null);
  }

  /** The digests of the run's approvals, newest first. */
  private List<String> approvalDigests(String runId) {
    return TableReader.of(spark, tables()).approvals(runId)
        .orderBy(col("approved_at").desc()).select("plan_digest").as(Encoders.STRING()).collectAsList();
  }

  private Dataset<Row> planRows(String runId) {
    return TableReader.of(spark, tables()).deletionPlan(runId);
  }

  private PlanDigest.Result currentDigest(String runId) {
    return PlanDigest.of(spark, tables(), PlanDigest.currentVersion(spark, tables()),
        planRun(runId).getAs("run_date"), runId);
  }

  /** Changes the run's rows of deletion_plan as a person or a program with write access could. */
  private void tamper(String runId, Tampering tampering) {
    DeltaTable plan = DeltaTable.forPath(spark, tables().deletionPlan());
    Column ofRun = col("run_id").equalTo(runId);
    switch (tampering) {
      case ROW_APPENDED -> planRows(runId).filter(col("state_file_key").equalTo(MEETING_STATE))
          .withColumn("state_file_key", lit(P + "projects/p1/meetings/m2/state.json"))
          .write().format("delta").mode("append").save(tables().deletionPlan());
      case ACTION_EDITED -> plan.update(ofRun.and(col("state_file_key").equalTo(P + "projects/p1/state.json")),
          Map.of("action", lit("delete_record")));
      case DELETE_ETAG_EDITED -> plan.update(ofRun.and(col("state_file_key").equalTo(MEETING_STATE)),
          Map.of("deletes", expr("transform(deletes, d -> named_struct('key', d.key, 'etag', if(d.role = 'file',"
              + " 'ffffffffffffffffffffffffffffffff', d.etag), 'last_modified', d.last_modified, 'size', d.size,"
              + " 'role', d.role))")));
      case ROW_DELETED -> plan.delete(ofRun.and(col("state_file_key").equalTo(EMAIL_STATE)));
    }
  }

  private SparkExecuteAction execute(String runId, Map<String, String> extra) {
    Map<String, String> flags = new HashMap<>(extra);
    flags.put("--dry-run", "false");
    return new SparkExecuteAction(spark, options(flags).execute(), runId);
  }

  private RunOptions options(Map<String, String> extra) {
    return TestOptions.of(server.endpoint(), bucket, P, warehouse).with(extra).options();
  }

  private Tables tables() {
    return new Tables(warehouse.toString());
  }

  private Row planRun(String runId) {
    return TableReader.of(spark, tables()).runs()
        .filter("run_id = '" + runId + "' and command = 'plan'").first();
  }

  private Row approvalRow(String runId) {
    List<Row> rows = TableReader.of(spark, tables()).approvals(runId)
        .collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private Instant plannedAt(String runId) {
    return planRun(runId).<Timestamp>getAs("planned_at").toInstant();
  }

  /** The commands the runs table holds for the run, sorted: its plan and each execute attempt. */
  private List<String> commands(String runId) {
    return TableReader.of(spark, tables()).runs(runId)
        .orderBy("command").select("command").as(Encoders.STRING()).collectAsList();
  }

  private Set<String> plannedKeys(String runId) {
    return new TreeSet<>(TableReader.of(spark, tables()).deletionPlan(runId).selectExpr("explode(deletes.key)")
        .as(Encoders.STRING()).collectAsList());
  }

  private long executionRows(String runId) {
    TableReader reader = TableReader.of(spark, tables());
    return reader.exists(Tables.EXECUTIONS) ? reader.count(Tables.EXECUTIONS, runId) : 0;
  }

  private static Set<String> without(Set<String> keys, Set<String> removed) {
    Set<String> left = new TreeSet<>(keys);
    left.removeAll(removed);
    return left;
  }
}
