package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RestoreResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.DeleteJournal;
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
 * pipeline/README.md, "Undoing a run": restore reads every ledger of the run. A run whose driver stopped after its
 * deletes and before it recorded them leaves its ledger in the bucket and no row in {@code executions}; restore records
 * that ledger first, as the next execute would, and takes every delete back, delete markers included: the export's
 * listing after it is the listing before the run. So too when its tasks stopped before the store's answers were
 * recorded: the markers nobody recorded are proven by their time and the version below them.
 */
@ExtendWith(S3ServerExtension.class)
class RestoreLeftoverLedgerTest {
  private static final String BUCKET = "restore-leftover";
  private static final String P = "cogram/";

  /**
   * A run executed on a versioned bucket whose rows are then taken out of executions, as if its driver had stopped
   * before recording them: its rows as they were, and the ledger of its attempt to write them into.
   */
  private record Forgotten(S3ObjectStore store, Map<String, String> before, SparkSession spark, Tables tables,
      String runId, List<Row> rows, TaskLedger ledger, Instant at) {
    static Forgotten executed(LocalS3Server server, Path warehouse, String bucket) {
      server.createBucket(bucket);
      server.enableVersioning(bucket);
      S3ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
      SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 11L, Instant.now());
      Map<String, String> before = export(store);
      SparkSession spark = SharedSpark.session();
      RunOptions options = TestOptions.of(server.endpoint(), bucket, "cogram", warehouse).with("--dry-run", "false")
          .options();
      PlanResult plan = TestActions.plan(spark, options);
      ExecuteResult executed = TestActions.executeOwnPlan(spark, options, plan);
      assertThat(executed.failure()).isNull();
      Tables tables = executed.tables();
      String runId = plan.runId();
      List<Row> rows = TableReader.of(spark, tables).executions(runId).collectAsList();
      assertThat(export(store)).as("the run deleted keys").isNotEqualTo(before);

      // Its driver "stops" before recording: the rows are not in executions, the ledger is where the tasks left it.
      String attemptId = rows.get(0).getAs("attempt_id");
      String runDate = rows.get(0).getAs("run_date");
      DeltaTable.forPath(spark, tables.executions()).delete("run_id = '" + runId + "'");
      LedgerRecorder recorder = new LedgerRecorder(spark, options.execute(), RunMetrics.register(spark.sparkContext()));
      Instant at = Instant.now();
      TaskLedger ledger = new TaskLedger(new ObjectStoreLedger(store), recorder.folder(runId, attemptId),
          new LedgerEntry.Header(runId, runDate, attemptId, tables.warehouse(), 0, 1, 0, at),
          Clock.fixed(at, ZoneOffset.UTC));
      ledger.nextWindow();
      assertThat(TableReader.of(spark, tables).executions(runId).isEmpty()).isTrue();
      return new Forgotten(store, before, spark, tables, runId, rows, ledger, at);
    }

    RestoreResult restore(LocalS3Server server, Path warehouse) {
      return Statesweep.get(spark).restore(runId).environment(Map.of()).bucket(store.bucket()).prefix(P)
          .option("--endpoint", server.endpoint()).warehouse(warehouse.toString()).dryRun(false).execute();
    }

    long keysDeleted() {
      return rows.stream().mapToLong(row -> row.<scala.collection.Seq<?>>getAs("deleted").size()).sum();
    }
  }

  @Test
  void aRunWhoseDriverDiedBeforeRecordingIsRestoredFromItsLedger(LocalS3Server server, @TempDir Path warehouse) {
    Forgotten run = Forgotten.executed(server, warehouse, BUCKET);
    List<ExecutionOutcome> outcomes = new ArrayList<>();
    for (Row row : run.rows()) {
      outcomes.add(outcome(row, run.at()));
    }
    run.ledger().recordOutcomes(outcomes);
    run.ledger().close();

    RestoreResult restored = run.restore(server, warehouse);

    assertThat(restored.failure()).isNull();
    assertThat(restored.counts().restored()).as("every key the run deleted").isEqualTo(run.keysDeleted());
    assertThat(export(run.store())).as("the listing before the run").isEqualTo(run.before());
    assertThat(TableReader.of(run.spark(), run.tables()).executions(run.runId()).count())
        .as("its rows, recorded by the restore").isEqualTo(run.rows().size());
  }

  /**
   * Its tasks stopped after each window's intent and before the store's answers were recorded: recorded from the
   * intent, its keys are found gone with no delete marker known, and each is restored on the proof of its marker (the
   * key's latest version is a delete marker written between its record's verification and the end of its attempt,
   * directly above the version with the ETag it was deleted with): the listing after it is the listing before the run.
   */
  @Test
  void aRunWhoseTasksStoppedBeforeTheirAnswersIsRestoredOnTheProofOfItsMarkers(LocalS3Server server,
      @TempDir Path warehouse) {
    Forgotten run = Forgotten.executed(server, warehouse, BUCKET + "-unanswered");
    List<DeleteJournal.IntendedRecord> intents = new ArrayList<>();
    for (Row row : run.rows()) {
      intents.add(intent(row, run.store()));
    }
    run.ledger().intend(intents);
    run.ledger().close();

    RestoreResult restored = run.restore(server, warehouse);

    assertThat(restored.failure()).isNull();
    List<Row> recorded = TableReader.of(run.spark(), run.tables()).executions(run.runId()).collectAsList();
    assertThat(recorded).as("its rows, recorded from the intent").hasSize(run.rows().size())
        .allSatisfy(row -> assertThat(row.<String>getAs("recorded_from")).isEqualTo("intent"));
    assertThat(restored.counts().restored()).as("every key the run deleted, no marker recorded")
        .isEqualTo(run.keysDeleted());
    assertThat(export(run.store())).as("the listing before the run").isEqualTo(run.before());
  }

  /** The intent a task wrote in the ledger before deleting the keys of the record of {@code row}. */
  private static DeleteJournal.IntendedRecord intent(Row row, S3ObjectStore store) {
    String stateFile = row.getAs("state_file_key");
    String stateEtag = null;
    List<DeleteJournal.IntendedKey> keys = new ArrayList<>();
    for (Row key : row.<Row>getList(row.fieldIndex("deleted"))) {
      DeleteRole role = DeleteRole.fromLabel(key.getAs("role"));
      keys.add(new DeleteJournal.IntendedKey(key.getAs("key"), role, key.getAs("etag")));
      if (role == DeleteRole.STATE_FILE) {
        stateEtag = key.getAs("etag");
      }
    }
    if (stateEtag == null) {
      stateEtag = store.listedObject(stateFile).etag(); // files of a record that stays: its state file is there
    }
    return new DeleteJournal.IntendedRecord(stateFile, Action.fromLabel(row.getAs("action")), stateEtag, keys, 0,
        row.<java.sql.Timestamp>getAs("started_at").toInstant());
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
