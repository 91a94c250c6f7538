package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.spark.tables.PlanDigest;
import io.statesweep.api.Approval;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.PlanAction;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.config.Settings;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The action API ({@link Statesweep}) as a notebook or a Scala, Python or Java caller uses it: fluent settings
 * resolved as the command line resolves them, typed results, failures as exceptions.
 */
@ExtendWith(S3ServerExtension.class)
class StatesweepActionsTest {
  private static final String P = "cogram/";
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final Set<String> PLANNED = Set.of(
      P + "projects/p1/meetings/m1/minutes.pdf", P + "projects/p1/meetings/m1/state.json");

  private final SparkSession spark = SharedSpark.session();
  private LocalS3Server server;
  private TestArchive archive;
  private String bucket;
  @TempDir
  Path dir;

  @BeforeEach
  void seed(LocalS3Server server) {
    this.server = server;
    bucket = "actions-" + BUCKETS.incrementAndGet();
    archive = new TestArchive(server, bucket, P);
    archive.put("projects/p1/project.json", "{}");
    archive.put("projects/p1/state.json", archive.state(false, null, List.of("projects/p1/project.json"), List.of()));
    archive.put("projects/p1/meetings/m1/minutes.pdf", "minutes");
    archive.put("projects/p1/meetings/m1/state.json", archive.state(true, null,
        List.of("projects/p1/meetings/m1/minutes.pdf"), List.of()));
  }

  @Test
  void plansApprovesAndExecutesThroughTheFluentActionsAsTheCommandsDo() {
    Map<String, StoredObject> before = archive.snapshot();
    String warehouse = dir.resolve("warehouse").toString();

    List<LogLine> streamed = new ArrayList<>();
    PlanResult plan = Statesweep.get(spark).plan().bucket(bucket).prefix(P).warehouse(warehouse)
        .option("--endpoint", server.endpoint()).option("sweep.log.lines", "all").lines(streamed::add).execute();

    assertThat(plan.failure()).isNull();
    assertThat(plan.exitCode()).isZero();
    assertThat(plan.summary().recordsDeleted()).isEqualTo(1);
    assertThat(plan.log()).containsExactly(
        new LogLine(LogLine.Kind.WOULD_DELETE, P + "projects/p1/meetings/m1/minutes.pdf",
            "would delete " + P + "projects/p1/meetings/m1/minutes.pdf"),
        new LogLine(LogLine.Kind.WOULD_DELETE, P + "projects/p1/meetings/m1/state.json",
            "would delete " + P + "projects/p1/meetings/m1/state.json"));
    assertThat(plan.logLines()).containsExactly("would delete " + P + "projects/p1/meetings/m1/minutes.pdf",
        "would delete " + P + "projects/p1/meetings/m1/state.json");
    // Each line went to the sink as it was read; the result keeps them (fewer than LogLine.RESULT_SAMPLE) and counts.
    assertThat(streamed).isEqualTo(plan.log());
    assertThat(plan.lineCounts()).isEqualTo(Map.of(LogLine.Kind.WOULD_DELETE, 2L));
    Metrics planMetrics = plan.metrics();
    assertThat(planMetrics.command()).isEqualTo("plan");
    assertThat(planMetrics.runId()).isEqualTo(plan.runId());
    assertThat(planMetrics.dryRun()).isTrue();
    assertThat(planMetrics.complete()).isTrue();
    assertThat(planMetrics.count("records_deleted")).isEqualTo(1);
    assertThat(planMetrics.count("keys_listed")).isEqualTo(before.size());
    assertThat(planMetrics.requests()).containsKey("ListObjectsV2");
    assertThat(planMetrics.seconds()).containsKey("total");
    assertThat(planMetrics.json()).isEqualTo(plan.metricsJson());
    assertThat(archive.snapshot()).isEqualTo(before);
    String runId = plan.runId();

    // The notebooks' approval cell, exactly as it calls the API.
    String user = "ana@example.com";
    String note = "looked at plan_summary";
    Approval approval = Statesweep.get(spark).approve(runId).warehouse(warehouse)
        .catalogSchema(null).by(user).note(note).execute();

    Tables tables = new Tables(warehouse);
    Row row = TableReader.of(spark, tables).approvals(runId).first();
    PlanDigest.Result digest = PlanDigest.of(spark, tables, PlanDigest.currentVersion(spark, tables),
        row.<String>getAs("run_date"), runId);
    assertThat(approval.line()).isEqualTo("approved run " + runId + " by " + user + " at " + approval.approvedAt()
        + ": records_to_delete=1 records_with_removed_files=0 keys_to_delete=2 bytes_to_delete="
        + PLANNED.stream().mapToLong(key -> before.get(key).size()).sum() + " plan_rows=2 plan_digest="
        + digest.digest());
    assertThat(row.<String>getAs("approved_by")).isEqualTo(user);
    assertThat(row.<String>getAs("note")).isEqualTo(note);
    assertThat(row.<Timestamp>getAs("approved_at").toInstant())
        .isEqualTo(approval.approvedAt().truncatedTo(java.time.temporal.ChronoUnit.MICROS));
    assertThat(row.<String>getAs("plan_digest")).isEqualTo(digest.digest());

    ExecuteResult executed = Statesweep.get(spark).execute(runId).bucket(bucket).prefix(P).warehouse(warehouse)
        .option("--endpoint", server.endpoint()).execute();

    assertThat(executed.failure()).isNull();
    assertThat(executed.exitCode()).isZero();
    assertThat(executed.summary().recordsDeleted()).isEqualTo(1);
    assertThat(executed.log()).isEmpty();
    Metrics executeMetrics = executed.metrics();
    assertThat(executeMetrics.command()).isEqualTo("execute");
    assertThat(executeMetrics.runId()).isEqualTo(runId);
    assertThat(executeMetrics.attemptId()).isEqualTo(executed.attemptId());
    assertThat(executeMetrics.dryRun()).isFalse();
    assertThat(executeMetrics.count("keys_deleted")).isEqualTo(PLANNED.size());
    assertThat(executeMetrics.verifiedToDeleted().records()).isEqualTo(1);
    Set<String> left = new TreeSet<>(before.keySet());
    left.removeAll(PLANNED);
    assertThat(archive.snapshot().keySet()).isEqualTo(left);
  }

  @Test
  void aSettingSetOnTheActionWinsOverTheEnvironmentWhichWinsOverTheConfigFileWhichWinsOverTheDefault()
      throws IOException {
    Path conf = Files.writeString(dir.resolve("sweep.properties"),
        "sweep.grace-days=9\nsweep.workers=4\nsweep.bucket=from-file\nsweep.prefix=from-file/\n");
    PlanAction plan = Statesweep.get(spark).plan()
        .configFile("file:" + conf)
        .environment(Map.of("COGRAM_CLEANUP_GRACE_DAYS", "5", "COGRAM_CLEANUP_WORKERS", "3",
            "COGRAM_CLEANUP_BUCKET", "from-environment"))
        .option("--grace-days", "3")
        .bucket(null);

    Settings settings = plan.settings();

    assertThat(settings.value(Settings.GRACE_DAYS)).isEqualTo(new Settings.Value("3", "--grace-days"));
    assertThat(settings.value(Settings.WORKERS)).isEqualTo(new Settings.Value("3", "COGRAM_CLEANUP_WORKERS"));
    assertThat(settings.value(Settings.BUCKET)).isEqualTo(new Settings.Value("from-environment", "COGRAM_CLEANUP_BUCKET"));
    assertThat(settings.value(Settings.PREFIX)).isEqualTo(new Settings.Value("from-file/", "file:" + conf
        + ": sweep.prefix"));
    assertThat(settings.value(Settings.BATCH_SIZE)).isEqualTo(new Settings.Value("1000", "default"));
    // A conf key names a setting as well as its flag; a null unsets it again.
    assertThat(plan.option("sweep.grace-days", "7").settings().value(Settings.GRACE_DAYS))
        .isEqualTo(new Settings.Value("7", "--grace-days"));
    assertThat(plan.option("sweep.grace-days", null).settings().value(Settings.GRACE_DAYS))
        .isEqualTo(new Settings.Value("5", "COGRAM_CLEANUP_GRACE_DAYS"));
  }

  @Test
  void badSettingsAndSettingsAnActionDoesNotUseAreExceptionsBeforeAnyRequest() {
    Statesweep statesweep = Statesweep.get(spark);

    assertThatThrownBy(() -> statesweep.approve("20990101T000000Z-000000").option("--grace-days", "3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown option '--grace-days' for approve; its options: --region, --endpoint, --path-style,"
            + " --warehouse, --catalog-schema, --config-file");
    assertThatThrownBy(() -> statesweep.plan().option("--bukcet", "b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Unknown option '--bukcet' for plan; its options: --bucket, --prefix, --dry-run,");
    assertThatThrownBy(() -> statesweep.approve(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Missing --run-id: the run_id of the plan you reviewed (table runs)");
    assertThatThrownBy(() -> statesweep.approve("20990101T000000Z-000000").warehouse(dir.toString()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Missing --by: who approves the plan (a name or an email)");
    assertThatThrownBy(() -> statesweep.plan().bucket(bucket).prefix(P).option("--endpoint", server.endpoint())
        .warehouse(dir.resolve("warehouse").toString()).option("--dry-run", "false").execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The plan command never deletes, but dry_run is false (from --dry-run): use run --execute to"
            + " delete, or execute --run-id for a reviewed plan");
    assertThatThrownBy(() -> statesweep.execute("20990101T000000Z-000000").bucket(bucket).prefix(P)
        .environment(Map.of("COGRAM_CLEANUP_DRY_RUN", "true")).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The execute command deletes, but dry_run is true (from COGRAM_CLEANUP_DRY_RUN): unset it, or"
            + " use plan for a dry run");
    assertThat(dir.resolve("warehouse")).doesNotExist();
  }
}
