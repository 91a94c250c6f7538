package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.DeleteTarget;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pipeline/README.md, "What a run does": on a versioned bucket each {@code missing <key>} line says what hides its key.
 * A meeting that {@code run --execute} deleted is written again by the exporter as live without its files: its lines
 * name the run whose delete markers hide them and the {@code restore} that brings them back. Beside it a live email
 * lists a file someone else deleted (a delete marker statesweep did not write) and one never written. The plan looks up
 * only its bound of keys and says so of the others, and a plan whose ListObjectVersions is denied completes, each line
 * saying why it does not know.
 */
@ExtendWith(S3ServerExtension.class)
class MissingVersionsTest {
  private static final String P = "it/";
  private static final String BUCKET = "missing-versions";
  private static final String MEETING = "projects/p1/meetings/m1/";
  private static final String EMAIL = "projects/p1/emails/e1/";
  private static final List<String> MEETING_FILES = List.of(MEETING + "meeting.json", MEETING + "attachments/a1.pdf");

  @Test
  void eachMissingLineSaysWhoseDeleteMarkerHidesItsKeyAndWhichRestoreBringsItBack(LocalS3Server server,
      @TempDir Path warehouse) throws Exception {
    TestArchive archive = new TestArchive(server, BUCKET, P);
    server.enableVersioning(BUCKET);
    MEETING_FILES.forEach(key -> archive.put(key, "content of " + key));
    archive.put(MEETING + "state.json", archive.state(true, null, MEETING_FILES, List.of()));
    archive.put(EMAIL + "body.html", "<p>");
    archive.put(EMAIL + "lost.pdf", "pdf");
    archive.put(EMAIL + "state.json", archive.state(false, null,
        List.of(EMAIL + "body.html", EMAIL + "lost.pdf", EMAIL + "never-written.pdf"), List.of()));
    // Someone else deletes a file of the live email: a delete marker statesweep did not write.
    archive.store().delete(List.of(new DeleteTarget(P + EMAIL + "lost.pdf", null)));
    Thread.sleep(2_100);
    RunOptions options = TestOptions.of(server.endpoint(), BUCKET, "it", warehouse).with("--dry-run", "false")
        .with("--log-lines", "all").options();
    // run --execute deletes the meeting, a delete marker in front of each of its keys.
    PlanResult first = TestActions.plan(SharedSpark.session(), options);
    ExecuteResult executed = TestActions.executeOwnPlan(SharedSpark.session(), options, first);
    assertThat(executed.failure()).isNull();
    assertThat(executed.summary().recordsDeleted()).isEqualTo(1);
    assertThat(TableReader.of(SharedSpark.session(), executed.tables()).executions(first.runId())
        .selectExpr("explode(deleted) as d").filter("d.delete_marker is not null").count()).isEqualTo(3);
    // The exporter writes the meeting again as live, with the files it had, but uploads none of them.
    archive.put(MEETING + "state.json", archive.state(false, null, MEETING_FILES, List.of()));
    Thread.sleep(2_100);
    String run = first.runId();
    String restore = "hidden by the delete marker of run " + run + " (statesweep restore --run-id " + run
        + " --record " + P + MEETING + "state.json)";
    String email = ": listed by live record " + P + EMAIL + "state.json: ";
    String meeting = ": listed by live record " + P + MEETING + "state.json: ";

    PlanResult plan = new SparkPlanAction(SharedSpark.session(), options.plan()).execute();

    assertThat(plan.failure()).isNull();
    assertThat(plan.summary().line()).contains(" missing_files=4 ").contains(" bucket_versioning=Enabled");
    assertThat(missingLines(plan)).containsExactly(
        "missing " + P + EMAIL + "lost.pdf" + email + "hidden by a delete marker statesweep did not write",
        "missing " + P + EMAIL + "never-written.pdf" + email
            + "no version of it exists (never written, or every version expired)",
        "missing " + P + MEETING + "meeting.json" + meeting + restore,
        "missing " + P + MEETING + "attachments/a1.pdf" + meeting + restore);
    // One ListObjectVersions per missing file, counted and priced with the plan's other requests.
    assertThat(TableReader.of(SharedSpark.session(), plan.tables()).runs(plan.runId()).select("s3_requests").first()
        .<String, Long>getJavaMap(0)).containsEntry("ListObjectVersions", 4L);

    // A bound of two lookups: the first two lines by state file and position are looked up, the others say not.
    PlanResult bounded = new SparkPlanAction(SharedSpark.session(), options.plan()).missingLookups(2).execute();
    assertThat(bounded.failure()).isNull();
    String notLookedUp = "its versions were not looked up: the plan looks up the latest version of the first 2"
        + " missing files only";
    assertThat(missingLines(bounded)).containsExactly(
        "missing " + P + EMAIL + "lost.pdf" + email + "hidden by a delete marker statesweep did not write",
        "missing " + P + EMAIL + "never-written.pdf" + email
            + "no version of it exists (never written, or every version expired)",
        "missing " + P + MEETING + "meeting.json" + meeting + notLookedUp,
        "missing " + P + MEETING + "attachments/a1.pdf" + meeting + notLookedUp);

    // ListObjectVersions denied (no s3:ListBucketVersions): the plan completes, and each line says why it cannot tell.
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(request -> request.method().equals("GET") && request.target().contains("?versions")
          ? FaultProxy.Fault.ACCESS_DENIED : null);
      RunOptions denied = TestOptions.of(proxy.endpoint(), BUCKET, "it", warehouse).with("--log-lines", "all")
          .options();

      PlanResult deniedPlan = new SparkPlanAction(SharedSpark.session(), denied.plan()).execute();

      assertThat(deniedPlan.failure()).isNull();
      assertThat(deniedPlan.summary().line()).contains(" complete=true ").contains(" errors=0 ")
          .contains(" missing_files=4 ");
      assertThat(proxy.injected()).containsKey(FaultProxy.Fault.ACCESS_DENIED);
      List<String> lines = missingLines(deniedPlan);
      assertThat(lines).hasSize(4).allSatisfy(line -> assertThat(line)
          .contains(": its versions could not be looked up: ")
          .contains("AccessDenied (403)")
          .endsWith("it needs s3:ListBucketVersions on arn:aws:s3:::" + BUCKET));
      // The first key a task asks names itself; the task asks no more after a denial and says so.
      assertThat(lines).anySatisfy(line -> assertThat(line).contains("its versions could not be looked up: Cannot list"
          + " the versions of s3://" + BUCKET + "/" + line.substring("missing ".length(), line.indexOf(": listed by"))
          + ": AccessDenied (403)"));
      assertThat(lines).allSatisfy(line -> assertThat(line).containsAnyOf("could not be looked up: Cannot list",
          "could not be looked up: not asked after ListObjectVersions was denied in the same task: Cannot list"));
    }
  }

  /**
   * Suspended versioning, as S3 documents it: a delete writes a delete marker whose version id is {@code null}, which
   * executions records as it is; a file the exporter did not write again is still hidden by that marker, and its line
   * names the run and the restore.
   */
  @Test
  void onASuspendedBucketTheNullDeleteMarkerOfARunIsNamedToo(LocalS3Server server, @TempDir Path warehouse)
      throws Exception {
    String bucket = "missing-suspended";
    TestArchive archive = new TestArchive(server, bucket, P);
    server.enableVersioning(bucket);
    MEETING_FILES.forEach(key -> archive.put(key, "content of " + key));
    archive.put(MEETING + "state.json", archive.state(true, null, MEETING_FILES, List.of()));
    server.suspendVersioning(bucket);
    Thread.sleep(2_100);
    RunOptions options = TestOptions.of(server.endpoint(), bucket, "it", warehouse).with("--dry-run", "false")
        .options();
    PlanResult first = TestActions.plan(SharedSpark.session(), options);
    ExecuteResult executed = TestActions.executeOwnPlan(SharedSpark.session(), options, first);
    assertThat(executed.failure()).isNull();
    assertThat(first.summary().line()).contains(" bucket_versioning=Suspended");
    assertThat(TableReader.of(SharedSpark.session(), executed.tables()).executions(first.runId())
        .selectExpr("explode(deleted) as d").selectExpr("d.delete_marker").collectAsList())
        .extracting(row -> row.getString(0)).containsExactly("null", "null", "null");
    archive.put(MEETING + "state.json", archive.state(false, null, MEETING_FILES, List.of()));
    Thread.sleep(2_100);

    PlanResult plan = TestActions.plan(SharedSpark.session(), options);

    assertThat(plan.failure()).isNull();
    String line = ": listed by live record " + P + MEETING + "state.json: hidden by the delete marker of run "
        + first.runId() + " (statesweep restore --run-id " + first.runId() + " --record " + P + MEETING + "state.json)";
    assertThat(missingLines(plan)).containsExactly("missing " + P + MEETING + "meeting.json" + line,
        "missing " + P + MEETING + "attachments/a1.pdf" + line);
  }

  private static List<String> missingLines(PlanResult plan) {
    return plan.logLines().stream().filter(line -> line.startsWith("missing ")).toList();
  }
}
