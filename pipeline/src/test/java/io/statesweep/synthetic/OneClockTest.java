package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.plan.StoredObject;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.ExecuteResult;
import io.statesweep.spark.PlanResult;
import io.statesweep.spark.SparkExecuteAction;
import io.statesweep.spark.SparkPlanAction;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One clock per comparison, on an endpoint that answers as S3 does: LastModified to the millisecond
 * in listings, in whole seconds in the Last-Modified header of GET and HEAD. A state file and its files
 * are compared on the listing's clock, in the plan and in execution, reused state files included.
 * (The S3Proxy extension only sets the SDK's credentials, as for the other tests on this endpoint.)
 */
@ExtendWith(S3ServerExtension.class)
class OneClockTest {
  private static final String BUCKET = "clock";
  private static final String P = "cogram/";
  /** A second; every write of these tests falls inside it or the next. */
  private static final Instant T = Instant.parse("2026-03-02T10:00:00Z");

  @Test
  void aLookedUpKeyHasTheListingsTimeWhereHeadHasWholeSeconds() throws Exception {
    try (SyntheticS3Server server = server()) {
      ObjectStore store = new ObjectStore(S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true)),
          BUCKET);
      server.put(P + "organization/agents/a1.json", bytes("a1"), at(300));
      server.put(P + "organization/agents/a1.json.bak", bytes("older copy"), at(100));
      server.put(P + "organization/agents/a2.json.bak", bytes("no a2.json"), at(100));

      StoredObject listed = store.listedObject(P + "organization/agents/a1.json");

      assertThat(store.head(P + "organization/agents/a1.json").lastModified()).isEqualTo(T);
      assertThat(listed).isEqualTo(new StoredObject(P + "organization/agents/a1.json",
          store.head(P + "organization/agents/a1.json").etag(), at(300), 2));
      // A longer key under the same prefix is not the key.
      assertThat(store.listedObject(P + "organization/agents/a2.json")).isNull();
      assertThat(store.listedObject(P + "organization/agents/a3.json")).isNull();
    }
  }

  @Test
  void filesWrittenInTheStateFilesSecondArePlannedAndExecutedOnTheListingsClock(@TempDir Path warehouse)
      throws Exception {
    String before = P + "projects/p1/documents/before/";
    String after = P + "projects/p1/documents/after/";
    String agent = P + "organization/agents/c1";
    try (SyntheticS3Server server = server()) {
      // Written before its state file, in the same second: the record goes.
      server.put(before + "a.pdf", bytes("a"), at(300));
      server.put(before + "state.json", due(before + "a.pdf"), at(700));
      // Written after its state file, in the same second: the record is coming back.
      server.put(after + "state.json", due(after + "b.pdf"), at(300));
      server.put(after + "b.pdf", bytes("b"), at(700));
      // A single-file record, planned to go; its <id>.json is uploaded again, byte for byte, before execution.
      server.put(agent + ".json", bytes("c"), at(100));
      server.put(agent + ".state.json", due(agent + ".json"), at(500));

      PlanResult plan = plan(server, warehouse, "false");

      assertThat(plan.failure()).isNull();
      assertThat(action(plan, before + "state.json")).isEqualTo("delete_record");
      assertThat(action(plan, agent + ".state.json")).isEqualTo("delete_record");
      assertThat(action(plan, after + "state.json")).isEqualTo("kept_newer_files");
      assertThat(planRow(plan, after + "state.json").getString(1)).isEqualTo("the record is coming back: " + after
          + "b.pdf (2026-03-02T10:00:00.700Z) is newer than its state file (2026-03-02T10:00:00.300Z)");
      assertThat(planRow(plan, before + "state.json").getTimestamp(2).toInstant()).isEqualTo(at(700));
      assertThat(stateFileTime(plan, before + "state.json")).isEqualTo(at(700));

      server.put(agent + ".json", bytes("c"), at(900));
      ExecuteResult execution = execute(server, warehouse, plan.runId());

      assertThat(execution.failure()).isNull();
      assertThat(outcome(execution, before + "state.json")).containsExactly("deleted",
          "deleted 1 files, then the state file");
      // HEAD would say 10:00:00, not newer than 10:00:00.500: the file would go with the same ETag.
      assertThat(outcome(execution, agent + ".state.json")).containsExactly("kept_newer_files",
          "the record is coming back: " + agent + ".json (2026-03-02T10:00:00.900Z) is newer than its state file"
              + " (2026-03-02T10:00:00.500Z)");
      ObjectStore store = new ObjectStore(S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true)),
          BUCKET);
      assertThat(store.listedObject(before + "a.pdf")).isNull();
      assertThat(store.listedObject(before + "state.json")).isNull();
      assertThat(store.listedObject(agent + ".json")).isNotNull();
      assertThat(store.listedObject(agent + ".state.json")).isNotNull();
      assertThat(store.listedObject(after + "b.pdf")).isNotNull();
    }
  }

  @Test
  void aReusedStateFileTakesTheCurrentListingsTime(@TempDir Path warehouse) throws Exception {
    String record = P + "projects/p2/documents/reused/";
    try (SyntheticS3Server server = server()) {
      byte[] state = due(record + "r.pdf");
      server.put(record + "state.json", state, at(200));
      server.put(record + "r.pdf", bytes("r"), at(600));
      PlanResult first = plan(server, warehouse, "true");
      // The exporter uploads the same document again (a "Verify bucket"): same ETag, a later time.
      server.put(record + "state.json", state, at(1_400));

      PlanResult second = plan(server, warehouse, "true");

      assertThat(action(first, record + "state.json")).isEqualTo("kept_newer_files");
      assertThat(stateFileTime(first, record + "state.json")).isEqualTo(at(200));
      assertThat(second.summary().extra()).containsEntry("state_file_gets", "0");
      assertThat(stateFileTime(second, record + "state.json")).isEqualTo(at(1_400));
      assertThat(planRow(second, record + "state.json").getTimestamp(2).toInstant()).isEqualTo(at(1_400));
      assertThat(action(second, record + "state.json")).isEqualTo("delete_record");
    }
  }

  private static SyntheticS3Server server() throws Exception {
    // The generated archive lies outside the export prefix: only the keys these tests write are planned.
    return new SyntheticS3Server(BUCKET, new SyntheticArchive("generated/", 1, 0, 1, false, 1), Duration.ZERO, 0);
  }

  private static Instant at(long millis) {
    return T.plusMillis(millis);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] due(String file) {
    return bytes("{\"delete\": true, \"files\": [\"" + file + "\"], \"delete_files\": []}");
  }

  private static Map<String, String> flags(SyntheticS3Server server, Path warehouse) {
    Map<String, String> flags = new HashMap<>();
    flags.put("--bucket", BUCKET);
    flags.put("--prefix", P);
    flags.put("--endpoint", server.endpoint());
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    return flags;
  }

  private static PlanResult plan(SyntheticS3Server server, Path warehouse, String reuse) {
    Map<String, String> flags = flags(server, warehouse);
    flags.put("--reuse-state-files", reuse);
    PlanResult result = new SparkPlanAction(SharedSpark.session(), RunOptions.from(Settings.resolve(flags, Map.of(),
        null))).execute();
    assertThat(result.failure()).isNull();
    return result;
  }

  private static ExecuteResult execute(SyntheticS3Server server, Path warehouse, String runId) {
    Map<String, String> flags = flags(server, warehouse);
    flags.put("--dry-run", "false");
    flags.put("--skip-approval", "true");
    return new SparkExecuteAction(SharedSpark.session(), RunOptions.from(Settings.resolve(flags, Map.of(), null)), runId)
        .execute();
  }

  /** action, reason, state_last_modified of a record's plan row. */
  private static Row planRow(PlanResult plan, String stateKey) {
    return SharedSpark.session().read().format("delta").load(plan.tables().deletionPlan())
        .filter("run_id = '" + plan.runId() + "' and state_file_key = '" + stateKey + "'")
        .select("action", "reason", "state_last_modified").first();
  }

  private static String action(PlanResult plan, String stateKey) {
    return planRow(plan, stateKey).getString(0);
  }

  private static Instant stateFileTime(PlanResult plan, String stateKey) {
    return SharedSpark.session().read().format("delta").load(plan.tables().stateFiles())
        .filter("run_id = '" + plan.runId() + "' and key = '" + stateKey + "'")
        .select("last_modified").first().getTimestamp(0).toInstant();
  }

  /** outcome and message of a record's execution row. */
  private static java.util.List<String> outcome(ExecuteResult execution, String stateKey) {
    Dataset<Row> rows = SharedSpark.session().read().format("delta").load(execution.tables().executions())
        .filter("attempt_id = '" + execution.attemptId() + "' and state_file_key = '" + stateKey + "'");
    Row row = rows.select("outcome", "message").first();
    return java.util.List.of(row.getString(0), row.getString(1));
  }
}
