package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3Clients;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.StorageClass;

/**
 * The cost of a run on a real S3-protocol server, every request going through a proxy that records what
 * the server was asked: the requests a plan reports (runs.s3_requests, the summary's requests=) are the
 * requests the server saw, the execute's estimate (execute_requests) is what the execute then sends, the
 * bytes by storage class are those of the keys planned as they were written, and the dollars are those
 * of a price table given with --prices.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunCostTest {
  private static final String BUCKET = "cost-it";
  private static final String P = "cost/";
  /** Prices that make every count a whole number of dollars: $1 a LIST or PUT, $0.1 a GET, $1 a byte-month of STANDARD. */
  private static final String PRICES = """
      {"name": "test", "currency": "USD", "checked": "2026-12-01",
       "request_classes": {"ListObjectsV2": "tier1", "PutObject": "tier1", "GetObject": "tier2",
                           "GetBucketVersioning": "tier2", "DeleteObjects": "delete", "DeleteObject": "delete"},
       "default_request_class": "tier2", "default_storage_class": "STANDARD",
       "minimum_days": {"STANDARD_IA": 30},
       "regions": {"us-east-1": {"requests_per_1000": {"tier1": 1000, "tier2": 100, "delete": 0},
                                 "storage_per_gb_month": {"STANDARD": 1073741824, "STANDARD_IA": 2147483648}}}}
      """;

  private LocalS3Server server;
  private TestArchive archive;
  private FaultProxy proxy;
  private final List<FaultProxy.Request> seen = java.util.Collections.synchronizedList(new ArrayList<>());
  /** Bytes of the keys a plan deletes, by the storage class they were written with. */
  private final Map<String, Long> plannedBytes = new TreeMap<>();

  @BeforeAll
  void seedArchive(LocalS3Server server) throws IOException {
    this.server = server;
    archive = new TestArchive(server, BUCKET, P);
    for (int m = 1; m <= 5; m++) {
      String folder = "projects/p1/meetings/m" + m + "/";
      put(folder + "meeting.json", "{\"meeting\": " + m + "}", StorageClass.STANDARD, true);
      put(folder + "transcript.txt", "words ".repeat(10 * m), StorageClass.STANDARD_IA, true);
      put(folder + "state.json", archive.state(true, null, List.of(archive.key(folder + "meeting.json").substring(P.length()),
          archive.key(folder + "transcript.txt").substring(P.length())), List.of()), StorageClass.STANDARD, true);
    }
    for (int a = 1; a <= 3; a++) {
      put("organization/agents/a" + a + ".json", "{\"agent\": " + a + "}", StorageClass.STANDARD, true);
      put("organization/agents/a" + a + ".state.json", archive.state(true, null,
          List.of("organization/agents/a" + a + ".json"), List.of()), StorageClass.STANDARD, true);
    }
    // A live email with a removed attachment (it goes), and a live document (it stays).
    put("projects/p1/emails/e1/body.html", "<p>", StorageClass.STANDARD, false);
    put("projects/p1/emails/e1/old.pdf", "pdf ".repeat(50), StorageClass.STANDARD_IA, true);
    put("projects/p1/emails/e1/state.json", archive.state(false, null, List.of("projects/p1/emails/e1/body.html"),
        List.of("projects/p1/emails/e1/old.pdf")), StorageClass.STANDARD, false);
    put("projects/p1/documents/d1/doc.pdf", "pdf", StorageClass.STANDARD, false);
    put("projects/p1/documents/d1/state.json", archive.state(false, null, List.of("projects/p1/documents/d1/doc.pdf"),
        List.of()), StorageClass.STANDARD, false);
    proxy = new FaultProxy(server.endpoint()).plan(request -> {
      seen.add(request);
      return null;
    });
  }

  @AfterAll
  void stopProxy() throws IOException {
    proxy.close();
  }

  /** Writes a key of the archive (its state files list keys relative to the prefix, TestArchive adds it). */
  private void put(String relativeKey, String content, StorageClass storageClass, boolean planned) {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    S3Clients.shared(server.s3Settings()).putObject(b -> b.bucket(BUCKET).key(archive.key(relativeKey))
        .storageClass(storageClass), RequestBody.fromBytes(bytes));
    if (planned) {
      plannedBytes.merge(storageClass.toString(), (long) bytes.length, Long::sum);
    }
  }

  @Test
  void aPlanReportsTheRequestsTheServerSawAndItsExecuteSendsWhatThePlanEstimated(@TempDir Path warehouse)
      throws IOException {
    Path prices = warehouse.resolve("prices.json");
    Files.writeString(prices, PRICES);
    // The default --log-lines: the plan's lines are checked below.
    TestOptions options = TestOptions.of(proxy.endpoint(), BUCKET, "cost", warehouse.resolve("wh"))
        .without("--log-lines").with("--prices", prices.toString());

    seen.clear();
    PlanResult plan = new SparkPlanAction(SharedSpark.session(), options.options().plan()).execute();
    Map<String, Long> planSeen = byOperation(seen);
    System.out.println("plan: " + plan.summary().line() + "; the server saw " + planSeen);
    assertThat(plan.failure()).isNull();

    Row run = TableReader.of(warehouse.resolve("wh")).runs()
        .filter("command = 'plan'").first();
    Map<String, Long> reported = javaMap(run.getJavaMap(run.fieldIndex("s3_requests")));
    // The lock's release (one DeleteObjects) follows the run's row.
    Map<String, Long> releasedToo = new TreeMap<>(reported);
    releasedToo.merge("DeleteObjects", 1L, Long::sum);
    assertThat(releasedToo).isEqualTo(planSeen);
    long requests = reported.values().stream().mapToLong(Long::longValue).sum();
    assertThat(plan.summary().extra()).containsEntry("requests", Long.toString(requests));
    // $1 a LIST or PUT, $0.1 a GET (state files, the lock's reads, GetBucketVersioning).
    BigDecimal cost = BigDecimal.valueOf(reported.getOrDefault("ListObjectsV2", 0L) + reported.getOrDefault("PutObject", 0L))
        .add(BigDecimal.valueOf(reported.getOrDefault("GetObject", 0L) + reported.getOrDefault("GetBucketVersioning", 0L),
            1));
    assertThat(run.getDecimal(run.fieldIndex("cost_usd"))).isEqualByComparingTo(cost);
    assertThat(plan.summary().extra()).containsEntry("cost_usd", cost.setScale(6).toPlainString());

    // Bytes by the storage class each planned key was written with; $1 a byte-month of STANDARD, $2 of STANDARD_IA,
    // and each STANDARD_IA key deleted on the day it was written owes its 30 days: $2 a byte.
    assertThat(javaMap(run.getJavaMap(run.fieldIndex("bytes_by_storage_class")))).isEqualTo(plannedBytes);
    BigDecimal saves = BigDecimal.valueOf(plannedBytes.get("STANDARD") + 2 * plannedBytes.get("STANDARD_IA"));
    assertThat(run.getDecimal(run.fieldIndex("saves_usd_per_month"))).isEqualByComparingTo(saves);
    assertThat(run.getDecimal(run.fieldIndex("early_delete_usd")))
        .isEqualByComparingTo(BigDecimal.valueOf(2 * plannedBytes.get("STANDARD_IA")));
    assertThat(plan.summary().extra()).containsEntry("saves_usd_per_month", saves.setScale(6).toPlainString())
        .containsEntry("price_region", "us-east-1");
    assertThat(run.<String>getAs("price_region")).isEqualTo("us-east-1");
    assertThat(run.<String>getAs("prices")).isEqualTo(prices + ", checked 2026-12-01");
    Row summed = TableReader.of(warehouse.resolve("wh")).planSummary()
        .selectExpr("sum(saves_usd_per_month)", "sum(bytes_by_storage_class['STANDARD'])",
            "sum(bytes_by_storage_class['STANDARD_IA'])").first();
    assertThat(summed.getDecimal(0)).isEqualByComparingTo(saves);
    assertThat(summed.getLong(1)).isEqualTo(plannedBytes.get("STANDARD"));
    assertThat(summed.getLong(2)).isEqualTo(plannedBytes.get("STANDARD_IA"));

    // S3Proxy has no bucket versioning: it answers as for a bucket where it was never enabled.
    assertThat(run.<String>getAs("bucket_versioning")).isEqualTo("Off");
    assertThat(run.<String>getAs("versioning_note")).isNull();
    assertThat(plan.summary().extra()).containsEntry("bucket_versioning", "Off");
    assertThat(plan.logLines()).noneMatch(line -> line.contains("noncurrent"));

    // The execute sends what the plan estimated, request for request, on the unchanged bucket.
    Map<String, Long> estimated = javaMap(run.getJavaMap(run.fieldIndex("execute_requests")));
    options.with("--dry-run", "false").with("--skip-approval", "true");
    seen.clear();
    ExecuteResult execute = new SparkExecuteAction(SharedSpark.session(),
        options.options().execute(), plan.runId()).execute();
    System.out.println("execute: " + execute.summary().line() + "; the server saw " + byOperation(seen)
        + ", the plan estimated " + estimated);
    assertThat(execute.summary().recordsDeleted()).isEqualTo(8);
    // S3Proxy honours GET If-Match and PutObject If-None-Match: *: the probes (in the counts below) say so.
    assertThat(execute.summary().extra()).containsEntry("conditional_reads", "honoured")
        .doesNotContainKey("conditional_writes");
    assertThat(plan.summary().extra()).doesNotContainKey("conditional_writes");
    Map<String, Long> executeSeen = byOperation(seen);
    assertThat(executeSeen).isEqualTo(estimated);
    // The attempt reports what it sent (all but the lock's release) and what that cost.
    Row attempt = TableReader.of(warehouse.resolve("wh")).runs()
        .filter("command = 'execute'").first();
    Map<String, Long> attemptReported = new TreeMap<>(javaMap(attempt.getJavaMap(attempt.fieldIndex("s3_requests"))));
    attemptReported.merge("DeleteObjects", 1L, Long::sum);
    assertThat(attemptReported).isEqualTo(executeSeen);
    assertThat(execute.summary().extra()).containsEntry("requests",
        Long.toString(executeSeen.values().stream().mapToLong(Long::longValue).sum() - 1))
        .containsEntry("price_region", "us-east-1");
    assertThat(attempt.isNullAt(attempt.fieldIndex("execute_requests"))).isTrue();
    assertThat(attempt.isNullAt(attempt.fieldIndex("bucket_versioning"))).isTrue();

    // GetBucketVersioning denied: the plan goes on, and says the versioning is unknown and why.
    options.with("--dry-run", "true").without("--skip-approval");
    proxy.plan(request -> {
      seen.add(request);
      return request.method().equals("GET") && request.target().contains("?versioning") ? FaultProxy.Fault.ACCESS_DENIED
          : null;
    });
    try {
      PlanResult denied = new SparkPlanAction(SharedSpark.session(), options.options().plan()).execute();
      assertThat(denied.failure()).isNull();
      assertThat(denied.summary().extra()).containsEntry("bucket_versioning", "unknown");
      Row deniedRun = TableReader.of(warehouse.resolve("wh")).runs(denied.runId()).first();
      assertThat(deniedRun.<String>getAs("bucket_versioning")).isEqualTo("unknown");
      assertThat(deniedRun.<String>getAs("versioning_note"))
          .startsWith("the versioning of bucket cost-it is unknown (Cannot read the versioning of s3://cost-it/:"
              + " AccessDenied (403)")
          .contains("; it needs s3:GetBucketVersioning on arn:aws:s3:::cost-it): on a versioned bucket the ")
          .endsWith("bytes this plan deletes are freed only when noncurrent versions expire, with a lifecycle rule"
              + " such as {\"Rules\":[{\"ID\":\"expire-noncurrent-versions\",\"Filter\":{\"Prefix\":\"cost/\"},"
              + "\"Status\":\"Enabled\",\"NoncurrentVersionExpiration\":{\"NoncurrentDays\":30},"
              + "\"Expiration\":{\"ExpiredObjectDeleteMarker\":true}}]}");
    } finally {
      proxy.plan(request -> {
        seen.add(request);
        return null;
      });
    }
  }

  private static Map<String, Long> javaMap(Map<String, Long> map) {
    return new TreeMap<>(map);
  }

  /** The requests by S3 operation, from their method and path. */
  private static Map<String, Long> byOperation(List<FaultProxy.Request> requests) {
    Map<String, Long> counts = new TreeMap<>();
    synchronized (requests) {
      for (FaultProxy.Request request : requests) {
        String operation = switch (request.method()) {
          case "GET" -> request.isList() ? "ListObjectsV2"
              : request.target().contains("?versioning") ? "GetBucketVersioning" : "GetObject";
          case "HEAD" -> "HeadObject";
          case "PUT" -> "PutObject";
          case "POST" -> request.isDeleteObjects() ? "DeleteObjects" : "POST " + request.target();
          case "DELETE" -> "DeleteObject";
          default -> request.method() + " " + request.target();
        };
        counts.merge(operation, 1L, Long::sum);
      }
    }
    return counts;
  }
}
