package io.statesweep.spark;

import static io.statesweep.testing.DatasetAssertions.assertSameRows;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RunMetrics;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plan after a plan GETs only the state files whose ETag changed, and still decides every record again; a row
 * of the earlier plan stands in for a GET only when it is what a parse writes.
 */
@ExtendWith(S3ServerExtension.class)
class IncrementalPlanTest {
  private static final String[] PLAN_COLUMNS = {"state_file_key", "action", "reason", "due_at", "state_etag",
      "state_last_modified", "keys_to_delete", "child_keys_to_delete", "missing_keys", "kept_keys", "missing_files",
      "deletes"};
  private static final String[] STATE_COLUMNS = {"key", "status", "message", "etag", "delete", "expires_at",
      "marked_at", "files", "delete_files", "raw_json"};

  /**
   * Also: rows of the plan that the third reuses are changed first, as no parse writes them (a null key in
   * {@code files}, a null {@code delete}, a timestamp no document may hold, a {@code bad_state} row without its
   * message, a second row of one key that lists nothing): those state files are read again, and the third plan
   * is, record for record, the plan that reads every document.
   */
  @Test
  void readsOnlyChangedStateFilesAndPlansEveryRecordAgain(LocalS3Server server, @TempDir Path warehouse)
      throws Exception {
    TestArchive archive = new TestArchive(server, "incremental", "cogram/");
    for (int i = 0; i < 20; i++) {
      String folder = "projects/p1/documents/d" + i + "/";
      archive.put(folder + "doc.pdf", "pdf");
      archive.put(folder + "state.json", archive.state(false, null, List.of(folder + "doc.pdf"), List.of()));
    }

    PlanResult first = plan(server, warehouse, "true");
    PlanResult second = plan(server, warehouse, "true");
    archive.put("projects/p1/documents/d7/state.json", archive.state(true, null,
        List.of("projects/p1/documents/d7/doc.pdf"), List.of()));
    tamper(second);
    PlanResult third = plan(server, warehouse, "true");
    PlanResult full = plan(server, warehouse, "false");

    assertThat(first.summary().extra()).containsEntry("state_file_gets", "20");
    assertThat(second.summary().extra()).containsEntry("state_file_gets", "0");
    assertThat(second.summary().line()).contains(" state_files_scanned=20 records_deleted=0 ");
    assertThat(third.summary().extra()).containsEntry("state_file_gets", "7");
    assertThat(third.summary().line()).contains(" state_files_scanned=20 records_deleted=1 child_keys_deleted=1 ");
    assertThat(full.summary().extra()).containsEntry("state_file_gets", "20");
    assertThat(full.summary().line()).contains(" state_files_scanned=20 records_deleted=1 child_keys_deleted=1 ");
    assertSameRows("the plan from reused rows", rows(full, Tables.DELETION_PLAN, full.runId(), PLAN_COLUMNS),
        rows(full, Tables.DELETION_PLAN, third.runId(), PLAN_COLUMNS));
    assertSameRows("the state files of the plan from reused rows", rows(full, Tables.STATE_FILES, full.runId(),
        STATE_COLUMNS), rows(full, Tables.STATE_FILES, third.runId(), STATE_COLUMNS));

    // The metrics JSON counts the same GETs, by operation, beside the listing and the phases.
    JsonNode firstMetrics = new ObjectMapper().readTree(first.metricsJson());
    JsonNode secondMetrics = new ObjectMapper().readTree(second.metricsJson());
    assertThat(firstMetrics.get("metric").asText()).isEqualTo("statesweep.run");
    assertThat(firstMetrics.get("run_id").asText()).isEqualTo(first.runId());
    assertThat(firstMetrics.at("/s3_requests/GetObject/calls").asLong()).isEqualTo(20);
    assertThat(firstMetrics.at("/counts/state_files_read").asLong()).isEqualTo(20);
    assertThat(firstMetrics.at("/counts/keys_listed").asLong()).isEqualTo(40)
        .isEqualTo(Long.parseLong(first.summary().extra().get("keys_listed")));
    assertThat(firstMetrics.at("/s3_requests/ListObjectsV2/calls").asLong()).isPositive();
    assertThat(firstMetrics.at("/counts/records_planned").asLong()).isEqualTo(20);
    assertThat(firstMetrics.at("/seconds/total").asDouble()).isPositive();
    assertThat(firstMetrics.get("retries").asLong()).isZero();
    assertThat(secondMetrics.at("/s3_requests/GetObject/calls").asLong()).isZero();
  }

  /**
   * Parses of an older parser are not reused: version 1 let a lone surrogate through, and its table
   * stored the key altered ({@code a\ud800b.pdf} as {@code a?b.pdf}); reusing that row would plan a
   * key no state file lists.
   */
  @Test
  void aPlanOfAnotherParserVersionIsNotReused(LocalS3Server server, @TempDir Path warehouse) {
    TestArchive archive = new TestArchive(server, "incremental-versions", "cogram/");
    String folder = "projects/p1/documents/d0/";
    archive.put(folder + "doc.pdf", "pdf");
    archive.put(folder + "a?b.pdf", "listed by no state file");
    archive.put(folder + "state.json", "{\"delete\": false, \"files\": [\"cogram/" + folder
        + "doc.pdf\"], \"delete_files\": [\"cogram/" + folder + "a\\ud800b.pdf\"]}");
    PlanResult first = plan(server, warehouse, "incremental-versions", "true");
    assertThat(first.summary().line()).contains(" records_deleted=0 child_keys_deleted=0 ").contains(" bad_state=1 ");
    // What a plan of version 1 wrote for that document: a read row with the key altered.
    SharedSpark.session().sql("UPDATE delta.`" + first.tables().runs() + "` SET state_parser = NULL WHERE run_id = '"
        + first.runId() + "'");
    SharedSpark.session().sql("UPDATE delta.`" + first.tables().stateFiles() + "` SET status = 'read', message = NULL,"
        + " delete_files = array('cogram/" + folder + "a?b.pdf') WHERE run_id = '" + first.runId() + "'");

    PlanResult second = plan(server, warehouse, "incremental-versions", "true");

    assertThat(second.summary().extra()).containsEntry("state_file_gets", "1").containsEntry("bad_state", "1");
    assertThat(second.summary().line()).contains(" records_deleted=0 child_keys_deleted=0 ");
  }

  @Test
  void theProgressLineNamesThePhaseItsCountersRateAndEta() {
    RunMetrics metrics = RunMetrics.register(SharedSpark.session().sparkContext());
    try (Progress progress = Progress.every(0, metrics, "20261129T000000Z-abcdef")) {
      progress.phase("read-state-files", "state_files_read", 1000);
      metrics.stateFilesRead.add(250);
      metrics.keysListed.add(5000);

      String line = progress.line();

      assertThat(line).startsWith("progress run=20261129T000000Z-abcdef phase=read-state-files keys_listed=5000"
          + " state_files_read=250 records_planned=0 records_verified=0 keys_deleted=0 rate=");
      assertThat(line).contains(" of=1000 eta=").endsWith("s");
    }
  }

  /**
   * Changes one row each of {@code plan}'s state_files as no parse writes them, and adds a second row of d5 that
   * lists no file: one commit.
   */
  private static void tamper(PlanResult plan) {
    Dataset<Row> rows = TableReader.of(plan.tables()).stateFiles();
    String runDate = rows.filter(col("run_id").equalTo(plan.runId())).select("run_date").first().getString(0);
    String ofRun = "run_id = '" + plan.runId() + "' AND key = 'cogram/projects/p1/documents/";
    Dataset<Row> changed = rows.filter(col("run_date").equalTo(runDate))
        .withColumn("files", replaced(ofRun + "d0", "files", "array(cast(null as string))"))
        .withColumn("delete", replaced(ofRun + "d1", "`delete`", "null"))
        .withColumn("expires_at", replaced(ofRun + "d2", "expires_at", "timestamp_seconds(600000000000)"))
        .withColumn("status", replaced(ofRun + "d3", "status", "'bad_state'"))
        .withColumn("message", replaced(ofRun + "d3", "message", "null"))
        .withColumn("delete_files", replaced(ofRun + "d4", "delete_files",
            "array('cogram/projects/p1/documents/d4/doc.pdf', null)"));
    Dataset<Row> second = rows.filter(ofRun + "d5/state.json'").withColumn("files",
        expr("cast(array() as array<string>)"));
    changed.union(second).write().format("delta").mode("overwrite")
        .option("replaceWhere", "run_date = '" + runDate + "'").save(plan.tables().stateFiles());
  }

  /** {@code column}, or {@code value} in the row that {@code where} (ending in a record's folder) selects. */
  private static Column replaced(String where, String column, String value) {
    return expr("CASE WHEN " + where + "/state.json' THEN " + value + " ELSE " + column + " END");
  }

  private static Dataset<Row> rows(PlanResult plan, String table, String runId, String... columns) {
    return TableReader.of(plan.tables()).table(table, runId)
        .select(Arrays.stream(columns).map(org.apache.spark.sql.functions::col).toArray(Column[]::new));
  }

  private static PlanResult plan(LocalS3Server server, Path warehouse, String reuse) {
    return plan(server, warehouse, "incremental", reuse);
  }

  private static PlanResult plan(LocalS3Server server, Path warehouse, String bucket, String reuse) {
    PlanResult result = new SparkPlanAction(SharedSpark.session(),
        TestOptions.of(server.endpoint(), bucket, "cogram/", warehouse).with("--reuse-state-files", reuse).options().plan())
        .execute();
    assertThat(result.failure()).isNull();
    return result;
  }
}
