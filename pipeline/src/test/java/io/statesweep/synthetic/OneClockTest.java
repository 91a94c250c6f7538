package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.TestActions;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
      ObjectStore store = S3ObjectStore.open(S3Settings.defaults().withEndpoint(server.endpoint(), true),
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

  /** S3 may answer a truncated page with no keys (over delete markers): the lookup goes on with its token. */
  @Test
  void aOneKeyLookupGoesOnPastEmptyTruncatedPages() throws Exception {
    String key = P + "organization/agents/a1.json";
    List<String> queries = new CopyOnWriteArrayList<>();
    HttpServer stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    stub.createContext("/", exchange -> {
      String query = exchange.getRequestURI().getQuery();
      queries.add(query);
      // a1.json exists; a2.json does not, but a2.json.bak, which it prefixes, does.
      String first = query.contains("prefix=" + key) ? key : P + "organization/agents/a2.json.bak";
      String body = query.contains("continuation-token=t1")
          ? "<Contents><Key>" + first + "</Key><LastModified>2026-03-02T10:00:00.300Z</LastModified>"
              + "<ETag>&quot;e1&quot;</ETag><Size>2</Size></Contents><IsTruncated>true</IsTruncated>"
              + "<NextContinuationToken>t2</NextContinuationToken>"
          : "<IsTruncated>true</IsTruncated><NextContinuationToken>t1</NextContinuationToken>";
      byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult "
          + "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>" + BUCKET + "</Name><KeyCount>0</KeyCount>"
          + body + "</ListBucketResult>").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/xml");
      exchange.sendResponseHeaders(200, xml.length);
      exchange.getResponseBody().write(xml);
      exchange.close();
    });
    stub.start();
    try {
      ObjectStore store = S3ObjectStore.open(S3Settings.defaults()
          .withEndpoint("http://127.0.0.1:" + stub.getAddress().getPort(), true), BUCKET);

      StoredObject found = store.listedObject(key);
      int requestsForFound = queries.size();
      StoredObject missing = store.listedObject(P + "organization/agents/a2.json");

      assertThat(found).isEqualTo(new StoredObject(key, "e1", at(300), 2));
      assertThat(requestsForFound).isEqualTo(2);
      assertThat(queries.get(0)).contains("max-keys=1").doesNotContain("continuation-token");
      assertThat(queries.get(1)).contains("continuation-token=t1");
      assertThat(missing).isNull();
      assertThat(queries).hasSize(4);
    } finally {
      stub.stop(0);
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
      ObjectStore store = S3ObjectStore.open(S3Settings.defaults().withEndpoint(server.endpoint(), true),
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

  private static TestOptions options(SyntheticS3Server server, Path warehouse) {
    return TestOptions.of(server.endpoint(), BUCKET, P, warehouse);
  }

  private static PlanResult plan(SyntheticS3Server server, Path warehouse, String reuse) {
    PlanResult result = TestActions.plan(SharedSpark.session(),
        options(server, warehouse).with("--reuse-state-files", reuse).options());
    assertThat(result.failure()).isNull();
    return result;
  }

  private static ExecuteResult execute(SyntheticS3Server server, Path warehouse, String runId) {
    RunOptions options = options(server, warehouse).with("--dry-run", "false").with("--skip-approval", "true")
        .options();
    return TestActions.execute(SharedSpark.session(), options, runId);
  }

  /** action, reason, state_last_modified of a record's plan row. */
  private static Row planRow(PlanResult plan, String stateKey) {
    return TableReader.of(plan.tables()).deletionPlan()
        .filter("run_id = '" + plan.runId() + "' and state_file_key = '" + stateKey + "'")
        .select("action", "reason", "state_last_modified").first();
  }

  private static String action(PlanResult plan, String stateKey) {
    return planRow(plan, stateKey).getString(0);
  }

  private static Instant stateFileTime(PlanResult plan, String stateKey) {
    return TableReader.of(plan.tables()).stateFiles()
        .filter("run_id = '" + plan.runId() + "' and key = '" + stateKey + "'")
        .select("last_modified").first().getTimestamp(0).toInstant();
  }

  /** outcome and message of a record's execution row. */
  private static List<String> outcome(ExecuteResult execution, String stateKey) {
    Dataset<Row> rows = TableReader.of(execution.tables()).executions()
        .filter("attempt_id = '" + execution.attemptId() + "' and state_file_key = '" + stateKey + "'");
    Row row = rows.select("outcome", "message").first();
    return List.of(row.getString(0), row.getString(1));
  }
}
