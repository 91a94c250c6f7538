package io.statesweep.spark;

import static io.statesweep.testing.DatasetAssertions.assertSameRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.FaultProxy.Fault;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plan and execute through a fault-injecting proxy in front of the real S3-protocol server: bursts
 * of 503 SlowDown, 500s, connections reset mid-response after the server did the work, slow answers,
 * and DeleteObjects answers with per-key errors. A run either completes by retrying or ends with
 * errors and loses nothing; once the faults stop, a rerun finishes; no key outside the plan (no file
 * of a live record) is deleted at any point. The archive is the generated sample, whose manifest
 * says independently what must go.
 *
 * <p>The proxy is {@code testing/FaultProxy}; its slow answers take 1.5 s, and its per-key errors are for keys the
 * server did delete. A plan through 24 % faulty requests completes and writes exactly the rows of a fault-free plan;
 * an execute through them ends with its errors counted and the state files of every unfinished record in place, a
 * second attempt with per-key errors on every DeleteObjects likewise, and once the faults stop a third attempt
 * completes: the bucket is then exactly the bucket less the generated archive's expected deletes, and after every
 * attempt no key outside the plan is gone and no state file is gone while a key of its plan remains. An execute whose
 * every DeleteObjects answer leaves keys out counts deleted exactly the keys the answers named.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class FaultInjectionTest {
  private static final String PREFIX = "cogram/";
  private static final int RECORDS = SampleArchive.minimumRecordCount() + 30;

  private LocalS3Server server;
  private FaultProxy proxy;
  private String bucket;
  private SampleArchive.Manifest manifest;
  private Instant now;
  @TempDir
  Path warehouse;

  @BeforeEach
  void seed(LocalS3Server server) throws IOException {
    this.server = server;
    bucket = server.createBucket("faults-" + System.nanoTime());
    now = Instant.now();
    manifest = SampleArchive.generate(S3ObjectStore.open(server.s3Settings(), bucket), PREFIX, RECORDS,
        11L, now);
    proxy = new FaultProxy(server.endpoint());
  }

  @AfterEach
  void stopProxy() throws IOException {
    proxy.close();
  }

  @Test
  void planThroughBurstsOfFaultsRetriesAndPlansExactlyWhatAFaultFreePlanDoes() {
    PlanResult reference = plan(server.endpoint());
    proxy.plan(random(7, Map.of(Fault.SLOW_DOWN, 0.12, Fault.INTERNAL_ERROR, 0.05, Fault.RESET_MID_RESPONSE, 0.05,
        Fault.SLOW, 0.02)));

    PlanResult faulty = plan(proxy.endpoint());
    System.out.println("plan through faults: " + proxy.requests() + " requests, injected " + proxy.injected() + "; "
        + faulty.summary().line());

    assertThat(proxy.injected()).containsKeys(Fault.SLOW_DOWN, Fault.INTERNAL_ERROR, Fault.RESET_MID_RESPONSE);
    assertThat(faulty.failure()).isNull();
    assertThat(faulty.summary().complete()).isTrue();
    assertThat(faulty.summary().errors()).as("state files that could not be read").isZero();
    assertSameRows("records planned under faults", planRows(reference), planRows(faulty));
    assertThat(faulty.summary().recordsDeleted()).isEqualTo(reference.summary().recordsDeleted());
    assertThat(faulty.metricsJson()).contains("\"retries\"");
  }

  @Test
  void executeThroughFaultsLosesNothingAndARerunAfterTheFaultsStopFinishes() {
    Set<String> before = keys();
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes(Duration.ZERO));
    PlanResult plan = plan(server.endpoint());
    assertThat(plan.summary().recordsDeleted()).isPositive();

    // Attempt 1: faults everywhere, and DeleteObjects answers that lose the server's work; the first
    // DeleteObjects of the export's keys (files: state files go after) reports errors for half its keys.
    java.util.concurrent.atomic.AtomicBoolean firstDelete = new java.util.concurrent.atomic.AtomicBoolean(true);
    FaultProxy.FaultPlan faults = random(3, Map.of(Fault.SLOW_DOWN, 0.10, Fault.INTERNAL_ERROR, 0.05,
        Fault.RESET_MID_RESPONSE, 0.05, Fault.SLOW, 0.02, Fault.DELETE_KEY_ERRORS, 0.3));
    proxy.plan(request -> request.isDeleteObjects() && request.deleteKeys().stream().allMatch(
        key -> key.startsWith(PREFIX)) && firstDelete.getAndSet(false) ? Fault.DELETE_KEY_ERRORS
        : faults.faultOf(request));
    ExecuteResult first = execute(plan.runId());
    System.out.println("execute attempt 1 through faults: injected " + proxy.injected() + "; " + first.summary().line());
    assertThat(proxy.injected()).containsKeys(Fault.SLOW_DOWN, Fault.RESET_MID_RESPONSE, Fault.DELETE_KEY_ERRORS);
    assertNothingOutsideThePlanIsGone(before, expectedLeft);
    assertThat(first.summary().errors()).as("per-key errors are the run's errors: %s", first.summary().line())
        .isPositive();
    assertThat(keys()).as("state files of records whose files failed stay for the next run")
        .containsAnyElementsOf(plannedStateFiles());

    // Attempt 2: every DeleteObjects answer reports errors for half its keys.
    proxy.plan(request -> request.isDeleteObjects() ? Fault.DELETE_KEY_ERRORS : null);
    ExecuteResult second = execute(plan.runId());
    System.out.println("execute attempt 2, per-key errors on every DeleteObjects: " + second.summary().line());
    assertNothingOutsideThePlanIsGone(before, expectedLeft);

    // The faults stop: a rerun finishes, and the bucket is exactly the bucket less the plan.
    proxy.heal();
    ExecuteResult last = execute(plan.runId());
    System.out.println("execute attempt 3, healed: " + last.summary().line());
    assertThat(last.failure()).isNull();
    assertThat(last.summary().complete()).isTrue();
    assertThat(last.summary().errors()).isZero();
    assertThat(keys()).isEqualTo(expectedLeft);
    assertThat(keys()).doesNotContainAnyElementsOf(plannedStateFiles());
  }

  /**
   * Deleted means the server said so: when DeleteObjects answers leave keys out (the server deleted
   * them, the answer does not say), those keys count as failures, never as deletions, and their
   * records keep their state files; the keys the answers name are all that is counted.
   */
  @Test
  void aKeyTheDeleteAnswerLeavesOutIsAFailureAndItsStateFileStays() {
    Set<String> before = keys();
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes(Duration.ZERO));
    PlanResult plan = plan(server.endpoint());
    proxy.plan(request -> request.isDeleteObjects() ? Fault.DELETE_ANSWER_OMITS_KEYS : null);

    ExecuteResult first = execute(plan.runId());
    // Keys of the export only: the conditional-delete probe beside it is deleted through the proxy too.
    long leftOut = proxy.keysLeftOut().stream().filter(key -> key.startsWith(PREFIX)).count();
    System.out.println("execute, every DeleteObjects answer leaving keys out (" + leftOut + " keys): "
        + first.summary().line());

    assertThat(leftOut).isPositive();
    assertNothingOutsideThePlanIsGone(before, expectedLeft);
    Set<String> gone = new TreeSet<>(before);
    gone.removeAll(keys());
    assertThat(first.summary().childKeysDeleted() + first.summary().recordsDeleted())
        .as("keys counted deleted: only those the answers named (%s gone, %s left out of the answers)", gone.size(),
            leftOut)
        .isEqualTo(gone.size() - leftOut);
    assertThat(first.summary().errors()).isPositive();
    List<Row> unanswered = TableReader.of(first.tables()).executions()
        .filter("attempt_id = '" + first.attemptId() + "' and exists(failures, f -> f.code = 'NoAnswer')")
        .select("outcome", "state_file_deleted").collectAsList();
    assertThat(unanswered).isNotEmpty().allSatisfy(row -> {
      assertThat(row.getString(0)).isEqualTo("failed");
      assertThat(row.getBoolean(1)).isFalse();
    });

    proxy.heal();
    ExecuteResult last = execute(plan.runId());
    assertThat(last.summary().complete()).isTrue();
    assertThat(last.summary().errors()).isZero();
    assertThat(keys()).isEqualTo(expectedLeft);
  }

  /** No key the plan does not delete has gone, and no state file has gone while a key of its plan remains. */
  private void assertNothingOutsideThePlanIsGone(Set<String> before, Set<String> expectedLeft) {
    Set<String> now = keys();
    assertThat(now).as("every key outside the plan is still there").containsAll(expectedLeft);
    for (SampleArchive.SampleRecord record : manifest.records().values()) {
      Set<String> deletes = record.expectedDeletes(this.now, Duration.ZERO);
      if (deletes.contains(record.stateFileKey()) && !now.contains(record.stateFileKey())) {
        for (String key : deletes) {
          assertThat(now).as("%s is gone while %s of its record remains", record.stateFileKey(), key).doesNotContain(key);
        }
      }
    }
    assertThat(before).containsAll(now);
  }

  private Set<String> plannedStateFiles() {
    Set<String> stateFiles = new TreeSet<>();
    for (SampleArchive.SampleRecord record : manifest.records().values()) {
      if (record.expectedDeletes(now, Duration.ZERO).contains(record.stateFileKey())) {
        stateFiles.add(record.stateFileKey());
      }
    }
    return stateFiles;
  }

  private static FaultProxy.FaultPlan random(long seed, Map<Fault, Double> rates) {
    Random random = new Random(seed);
    Map<Fault, Double> ordered = new TreeMap<>(rates);
    return request -> {
      double roll;
      synchronized (random) {
        roll = random.nextDouble();
      }
      double upTo = 0;
      for (Map.Entry<Fault, Double> rate : ordered.entrySet()) {
        upTo += rate.getValue();
        if (roll < upTo) {
          return rate.getKey();
        }
      }
      return null;
    };
  }

  private Set<String> keys() {
    Set<String> keys = new TreeSet<>();
    S3ObjectStore.open(server.s3Settings(), bucket).listAll(PREFIX,
        (StoredObject object) -> keys.add(object.key()));
    return keys;
  }

  /** Each record's plan: state file, action, reason and the keys to delete with their ETags. */
  private Dataset<Row> planRows(PlanResult result) {
    return TableReader.of(result.tables()).deletionPlan(result.runId())
        .selectExpr("state_file_key", "action", "reason",
            "array_sort(transform(deletes, d -> struct(d.key as key, d.etag as etag))) as deletes");
  }

  private PlanResult plan(String endpoint) {
    return new SparkPlanAction(SharedSpark.session(), options(endpoint, Map.of()).plan())
        .clock(Clock.fixed(now, ZoneOffset.UTC)).execute();
  }

  private ExecuteResult execute(String runId) {
    return new SparkExecuteAction(SharedSpark.session(), options(proxy.endpoint(), Map.of("--dry-run", "false",
        "--skip-approval", "true", "--batch-size", "50", "--reuse-state-files", "false")).execute(), runId)
        .hook(ExecutionHook.NONE).execute();
  }

  private RunOptions options(String endpoint, Map<String, String> extra) {
    return TestOptions.of(endpoint, bucket, PREFIX, warehouse).with("--reuse-state-files", "false").with(extra)
        .options();
  }
}
