package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static io.statesweep.testing.TestArchive.keys;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TableReader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review before delete, from the command line: plan, approve --run-id --by, then execute --run-id, which refuses
 * a plan that nobody approved or that changed after its approval.
 */
@ExtendWith(S3ServerExtension.class)
class ApproveCommandTest {

  @Test
  void executeRefusesAPlanUntilItIsApprovedThenDeletesWhatItPlanned(LocalS3Server server, @TempDir Path warehouse) {
    server.createBucket("approve-cli");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "approve-cli");
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 120, 12L, Instant.now());
    Set<String> before = keys(store);
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_BUCKET", "approve-cli", "COGRAM_CLEANUP_PREFIX",
        "cogram/", "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE", warehouse.toString());

    CommandOutput plan = run(environment, "plan");
    String runId = runId(plan.summary());
    CommandOutput refused = run(environment, "execute", "--run-id", runId);

    assertThat(plan.code()).as(plan.errors()).isZero();
    assertThat(refused.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(refused.errors()).isEqualTo("statesweep: The plan of run " + runId + " has not been approved. Review it"
        + " (table " + warehouse + "/deletion_plan, view plan_summary, notebooks/), then record the approval with:"
        + " statesweep approve --run-id " + runId + " --by <your name> --warehouse " + warehouse + "; or execute"
        + " with --skip-approval\n");
    assertThat(keys(store)).isEqualTo(before);

    CommandOutput approved = run(Map.of(), "approve", "--run-id", runId, "--by", "ana", "--note",
        "looked at plan_summary", "--warehouse", warehouse.toString());

    assertThat(approved.code()).as(approved.errors()).isZero();
    String[] lines = approved.text().split("\n");
    assertThat(lines[0]).startsWith("approved run " + runId + " by ana at ")
        .contains(": records_to_delete=" + field(plan.summary(), "records_deleted")
            + " records_with_removed_files=" + field(plan.summary(), "records_with_removed_files")
            + " keys_to_delete=" + manifest.expectedDeletes().size()
            + " bytes_to_delete=" + field(plan.summary(), "bytes_deleted") + " plan_rows=")
        .matches(".* plan_rows=[1-9][0-9]* plan_digest=[0-9a-f]{64}");
    assertThat(lines[1]).isEqualTo("execute it with: statesweep execute --run-id " + runId + " (and the plan's"
        + " --bucket, --prefix and --warehouse)");

    // A row appended to the approved plan: refused, naming both digests; nothing deleted.
    SparkSession spark = SparkSession.builder().getOrCreate();
    String planTable = warehouse + "/deletion_plan";
    TableReader.of(spark, warehouse).deletionPlan().filter("run_id = '" + runId + "' AND action = 'delete_record'")
        .limit(1).withColumn("state_file_key", lit("cogram/appended/state.json"))
        .write().format("delta").mode("append").save(planTable);
    CommandOutput changed = run(environment, "execute", "--run-id", runId);

    assertThat(changed.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    String approvedDigest = field(lines[0], "plan_digest");
    long planRows = Long.parseLong(field(lines[0], "plan_rows"));
    assertThat(changed.errors()).matches(Pattern.quote("statesweep: The plan of run " + runId + " changed after it was"
        + " approved: approved digest " + approvedDigest + " (" + planRows + " rows, approved by ana at ")
        + "[^)]+" + Pattern.quote("), current digest ") + "(?!" + approvedDigest + ")[0-9a-f]{64}"
        + Pattern.quote(" (" + (planRows + 1) + " rows of the run in table " + planTable + "). Nothing was deleted."
        + " Review the plan again, then approve it again with: statesweep approve --run-id " + runId
        + " --by <your name> --warehouse " + warehouse + "\n"));
    assertThat(keys(store)).isEqualTo(before);
    // Taken out again, the plan is what was approved.
    DeltaTable.forPath(spark, planTable).delete("state_file_key = 'cogram/appended/state.json'");

    CommandOutput execute = run(environment, "execute", "--run-id", runId);

    assertThat(execute.code()).as(execute.errors()).isZero();
    assertThat(execute.summary()).startsWith("summary: dry_run=false complete=true");
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes());
    assertThat(keys(store)).isEqualTo(expectedLeft);
  }

  @Test
  void approveNeedsTheRunIdAndWhoApproves(@TempDir Path warehouse) {
    CommandOutput noRunId = run(Map.of(), "approve", "--by", "ana", "--warehouse", warehouse.toString());
    CommandOutput noBy = run(Map.of(), "approve", "--run-id", "20990101T000000Z-000000", "--warehouse",
        warehouse.toString());

    assertThat(noRunId.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(noRunId.errors()).isEqualTo("statesweep: Missing --run-id: the run_id of the plan you reviewed (table"
        + " runs)\n");
    assertThat(noBy.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(noBy.errors()).isEqualTo("statesweep: Missing --by: who approves the plan (a name or an email)\n");
  }

  @Test
  void approveHelpListsItsOptions() {
    CommandOutput help = run(Map.of(), "approve", "--help");

    assertThat(help.code()).isZero();
    assertThat(help.text()).startsWith("usage: statesweep approve [options]\n")
        .contains("--run-id=ID", "--by=NAME", "who approves the plan, a name or an email (required)", "--note=TEXT",
            "--warehouse=V")
        .doesNotContain("--grace-days", "--bucket");
  }

  @Test
  void executeHelpListsTheApprovalAndPlanAgeOptions() {
    CommandOutput help = run(Map.of(), "execute", "--help");

    assertThat(help.code()).isZero();
    assertThat(help.text()).contains("--skip-approval", "--max-plan-age", "default: 24h; env STATESWEEP_MAX_PLAN_AGE;"
        + " config-file key sweep.execute.max-plan-age");
  }

  private static String runId(String summary) {
    Matcher matcher = Pattern.compile(" run_id=(\\S+)").matcher(summary);
    assertThat(matcher.find()).as(summary).isTrue();
    return matcher.group(1);
  }

  private static String field(String summary, String name) {
    Matcher matcher = Pattern.compile(" " + name + "=(\\S+)").matcher(summary);
    assertThat(matcher.find()).as(name + " in " + summary).isTrue();
    return matcher.group(1);
  }
}
