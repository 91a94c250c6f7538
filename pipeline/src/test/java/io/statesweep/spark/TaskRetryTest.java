package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark task that dies in the middle of its partition (an executor lost after some of its batches
 * went) is retried by Spark: the retry verifies every record again, so nothing is deleted twice or
 * beyond the plan, no record is counted twice, and the job completes. The dead task's output is thrown
 * away, but not its ledger: every key it deleted is in the record's one row of executions, beside the
 * retry's. Runs in the build's {@code task-retries} execution, whose session ({@code local[2,4]})
 * retries failed tasks.
 *
 * <p>One execute task dies after its second DeleteObjects batch, Spark retries it, and the job completes: the bucket is
 * exactly the bucket less the plan, {@code executions} has one row per planned record, and the keys its rows name as
 * deleted are exactly the bucket's missing keys, each once: those of the dead task's last window found by looking at
 * its intent ({@code recorded_from = 'intent'}, {@code task_attempts = 2}), merged with its retry's.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class TaskRetryTest {
  private static final String PREFIX = "cogram/";
  /** Set by the first task that reaches its second DeleteObjects batch, which then dies. */
  static final AtomicBoolean KILLED = new AtomicBoolean();

  @Test
  void aTaskKilledMidPartitionIsRetriedWithNothingDeletedTwiceOrCountedTwice(LocalS3Server server,
      @TempDir Path warehouse) {
    assertThat(SharedSpark.session().sparkContext().master()).as("a session that retries tasks").isEqualTo("local[2,4]");
    String bucket = server.createBucket("task-retry");
    Instant now = Instant.now();
    SampleArchive.Manifest manifest = SampleArchive.generate(S3ObjectStore.open(server.s3Settings(),
        bucket), PREFIX, SampleArchive.minimumRecordCount() + 60, 5L, now);
    Set<String> before = keys(server, bucket);
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes(Duration.ZERO));
    TestOptions options = TestOptions.of(server.endpoint(), bucket, PREFIX, warehouse);
    PlanResult plan = new SparkPlanAction(SharedSpark.session(), options.options().plan())
        .clock(Clock.fixed(now, ZoneOffset.UTC)).execute();
    assertThat(plan.failure()).isNull();

    options.with("--dry-run", "false").with("--skip-approval", "true").with("--batch-size", "3");
    ExecuteResult result = new SparkExecuteAction(SharedSpark.session(), options.options().execute(), plan.runId())
        .hook(new KillOnce()).execute();

    assertThat(KILLED).as("a task died mid-partition").isTrue();
    assertThat(result.failure()).isNull();
    assertThat(result.summary().complete()).isTrue();
    assertThat(result.summary().errors()).isZero();
    assertThat(keys(server, bucket)).as("exactly the plan is gone").isEqualTo(expectedLeft);

    Dataset<Row> executions = TableReader.of(result.tables()).executions()
        .filter("attempt_id = '" + result.attemptId() + "'");
    Dataset<Row> planned = TableReader.of(result.tables()).deletionPlan()
        .filter("run_id = '" + plan.runId() + "' and action in ('delete_record', 'delete_removed_files')");
    assertThat(executions.count()).as("one row per planned record, none from the dead task").isEqualTo(planned.count());
    assertThat(executions.select("state_file_key").distinct().count()).isEqualTo(planned.count());
    // Keys the dead task deleted are "already gone" to its retry, and a record it finished (state file
    // included) is "already_deleted" with its planned keys: each key deleted once, accounted for once.
    Row counted = executions.join(planned.selectExpr("state_file_key", "child_keys_to_delete"), "state_file_key")
        .selectExpr("sum(if(outcome = 'already_deleted', child_keys_to_delete, child_keys_deleted + keys_already_gone))",
            "count_if(outcome in ('deleted', 'already_deleted'))").first();
    Row promised = planned.selectExpr("sum(child_keys_to_delete)", "count_if(action = 'delete_record')").first();
    assertThat(counted.getLong(0)).isEqualTo(promised.getLong(0));
    assertThat(counted.getLong(1)).isEqualTo(promised.getLong(1));
    assertThat(result.summary().recordsDeleted() + result.summary().extra().getOrDefault("already_deleted", "0")
        .transform(Long::parseLong)).isEqualTo(plan.summary().recordsDeleted());
    // The bucket's missing keys are the keys executions says the attempt deleted, each once.
    Set<String> gone = new TreeSet<>(before);
    gone.removeAll(keys(server, bucket));
    java.util.List<String> recorded = executions.selectExpr("explode(deleted_keys)").as(
        org.apache.spark.sql.Encoders.STRING()).collectAsList();
    assertThat(new TreeSet<>(recorded)).isEqualTo(gone);
    assertThat(recorded).hasSize(gone.size());
    System.out.printf("ledger, a task retried after dying mid-window: %d keys deleted, %d recorded%n", gone.size(),
        recorded.size());
    assertThat(executions.filter("task_attempts = 2 and recorded_from = 'intent'").count())
        .as("records of the dead task's last window, found by looking at its intent, merged with its retry's")
        .isPositive();
  }

  private static Set<String> keys(LocalS3Server server, String bucket) {
    return TestArchive.keys(S3ObjectStore.open(server.s3Settings(), bucket), PREFIX);
  }

  /** The first task to finish its second batch dies, as if its executor were lost. */
  static final class KillOnce implements ExecutionHook {
    private static final long serialVersionUID = 1L;
    private transient int batches;

    @Override
    public void afterBatch(long batchesOfThisJvm) {
      if (++batches == 2 && KILLED.compareAndSet(false, true)) {
        throw new IllegalStateException("executor lost (simulated) after 2 batches of this task");
      }
    }
  }
}
