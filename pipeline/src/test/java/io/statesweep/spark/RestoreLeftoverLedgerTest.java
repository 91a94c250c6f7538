package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RestoreResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.ledger.LedgerEntry;
import io.statesweep.ledger.ObjectStoreLedger;
import io.statesweep.ledger.TaskLedger;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * README, "Undoing a run": restore reads every ledger of the run. A run whose driver stopped after its deletes and
 * before it recorded them leaves its ledger in the bucket and no row in {@code executions}; restore records that
 * ledger first, as the next execute would, and takes every delete back, delete markers included: the export's
 * listing after it is the listing before the run.
 */
@ExtendWith(S3ServerExtension.class)
class RestoreLeftoverLedgerTest {
  private static final String BUCKET = "restore-leftover";
  private static final String P = "cogram/";

  @Test
  void aRunWhoseDriverDiedBeforeRecordingIsRestoredFromItsLedger(LocalS3Server server, @TempDir Path warehouse) {
    server.createBucket(BUCKET);
    server.enableVersioning(BUCKET);
    S3ObjectStore store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 11L, Instant.now());
    Map<String, String> before = export(store);
    SparkSession spark = SharedSpark.session();
    RunOptions options = TestOptions.of(server.endpoint(), BUCKET, "cogram", warehouse).with("--dry-run", "false")
        .options();
    PlanResult plan = TestActions.plan(spark, options);
    ExecuteResult executed = TestActions.executeOwnPlan(spark, options, plan);
    assertThat(executed.failure()).isNull();
    Tables tables = executed.tables();
    String runId = plan.runId();
    List<Row> rows = TableReader.of(spark, tables).executions(runId).collectAsList();
    assertThat(export(store)).as("the run deleted keys").isNotEqualTo(before);

    // Its driver "stops" before recording: the rows are not in executions, and the ledger is where the tasks left it.
    String attemptId = rows.get(0).getAs("attempt_id");
    String runDate = rows.get(0).getAs("run_date");
    DeltaTable.forPath(spark, tables.executions()).delete("run_id = '" + runId + "'");
    LedgerRecorder recorder = new LedgerRecorder(spark, options.execute(), RunMetrics.register(spark.sparkContext()));
    Instant at = Instant.now();
    TaskLedger ledger = new TaskLedger(new ObjectStoreLedger(store), recorder.folder(runId, attemptId),
        new LedgerEntry.Header(runId, runDate, attemptId, tables.warehouse(), 0, 1, 0, at),
        Clock.fixed(at, ZoneOffset.UTC));
    ledger.nextWindow();
    List<ExecutionOutcome> outcomes = new ArrayList<>();
    for (Row row : rows) {
      outcomes.add(outcome(row, at));
    }
    ledger.recordOutcomes(outcomes);
    ledger.close();
    assertThat(TableReader.of(spark, tables).executions(runId).isEmpty()).isTrue();

    RestoreResult restored = Statesweep.get(spark).restore(runId).environment(Map.of()).bucket(BUCKET).prefix(P)
        .option("--endpoint", server.endpoint()).warehouse(warehouse.toString()).dryRun(false).execute();

    assertThat(restored.failure()).isNull();
    assertThat(restored.counts().restored()).as("every key the run deleted")
        .isEqualTo(rows.stream().mapToLong(row -> row.<scala.collection.Seq<?>>getAs("deleted").size()).sum());
    assertThat(export(store)).as("the listing before the run").isEqualTo(before);
    assertThat(TableReader.of(spark, tables).executions(runId).count()).as("its rows, recorded by the restore")
        .isEqualTo(rows.size());
  }

  /** The outcome a task wrote in the ledger for the record of {@code row}, its keys with their delete markers. */
  private static ExecutionOutcome outcome(Row row, Instant at) {
    List<DeletedKey> deleted = new ArrayList<>();
    for (Row key : row.<Row>getList(row.fieldIndex("deleted"))) {
      deleted.add(new DeletedKey(key.getAs("key"), DeleteRole.fromLabel(key.getAs("role")), key.getAs("etag"), at,
          key.getAs("delete_marker")));
    }
    boolean state = row.<Boolean>getAs("state_file_deleted");
    return new ExecutionOutcome(row.getAs("state_file_key"), Action.fromLabel(row.getAs("action")),
        Outcome.fromLabel(row.getAs("outcome")), row.getAs("message"), deleted.size() - (state ? 1 : 0), state, 0,
        List.of(), at, at, deleted, null);
  }

  /** The export's keys and ETags (statesweep's own folder beside it is not the export). */
  private static Map<String, String> export(S3ObjectStore store) {
    Map<String, String> objects = new TreeMap<>();
    store.listAll(P, object -> objects.put(object.key(), object.etag()));
    return objects;
  }
}
