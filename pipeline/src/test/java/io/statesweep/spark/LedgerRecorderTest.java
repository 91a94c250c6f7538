package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.Outcome;
import io.statesweep.ledger.LedgerFixtures;
import io.statesweep.ledger.ObjectStoreLedger;
import io.statesweep.ledger.TaskLedger;
import io.statesweep.local.LocalS3Server;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's recording (pipeline/README.md, "Every delete on the record"): an object of it that cannot be read stays
 * in the bucket, named by its key, whatever the export prefix holds (a prefix with ": " in it, which a reason's text
 * also holds), read on the driver or in Spark tasks; a recording adds to a record's row what an earlier one lacked, and
 * the same objects recorded twice add nothing.
 */
@ExtendWith(S3ServerExtension.class)
class LedgerRecorderTest {
  private static final String RUN = "20261201T060000Z-aaaaaa";

  /** The meeting's keys as the executions row of attempt {@code ATTEMPT_ID} names them: key to delete marker. */
  private static java.util.Map<String, String> deleted(SparkSession spark, Tables tables) {
    java.util.Map<String, String> keys = new java.util.TreeMap<>();
    for (org.apache.spark.sql.Row row : spark.read().format("delta").load(tables.executions())
        .filter("attempt_id = '" + ATTEMPT_ID + "'").selectExpr("explode(deleted) as d")
        .selectExpr("d.key", "coalesce(d.delete_marker, 'none')").collectAsList()) {
      keys.put(row.getString(0), row.getString(1));
    }
    return keys;
  }

  private static final String ATTEMPT_ID = "20261201T060500Z-bbbbbb";

  private static io.statesweep.execute.ExecutionOutcome answered(java.time.Instant at, String... keys) {
    return answered(LedgerFixtures.STATE, at, keys);
  }

  /** The answers to the deletes of {@code keys} of the record of {@code stateFile}: deleted if it is one of them. */
  private static io.statesweep.execute.ExecutionOutcome answered(String stateFile, java.time.Instant at,
      String... keys) {
    List<DeletedKey> deleted = new java.util.ArrayList<>();
    for (String key : keys) {
      deleted.add(new DeletedKey(key, key.equals(stateFile) ? DeleteRole.STATE_FILE : DeleteRole.FILE,
          "etag", at, "marker-" + key.substring(key.lastIndexOf('/') + 1)));
    }
    boolean state = List.of(keys).contains(stateFile);
    return new io.statesweep.execute.ExecutionOutcome(stateFile, Action.DELETE_RECORD,
        state ? Outcome.DELETED : Outcome.INTERRUPTED, "as the test says", keys.length - (state ? 1 : 0), state, 0,
        List.of(), LedgerFixtures.VERIFIED, at, deleted, null);
  }

  /** A bucket of its own, the recorder of its export {@code prefix} and the warehouse it records into. */
  private record Recording(RunOptions options, SparkSession spark, LedgerRecorder ledger, Tables tables,
      S3ObjectStore store) {
    static Recording of(LocalS3Server server, String bucket, String prefix, Path warehouse) {
      server.createBucket(bucket);
      RunOptions options = TestOptions.of(server.endpoint(), bucket, prefix, warehouse).with("--dry-run", "false")
          .options();
      SparkSession spark = SharedSpark.session();
      return new Recording(options, spark, new LedgerRecorder(spark, options.execute(),
          RunMetrics.register(spark.sparkContext())), new Tables(warehouse.toString()),
          S3ObjectStore.open(server.s3Settings(), bucket));
    }
  }

  @Test
  void aSecondRecordingAddsTheMarkersAndKeysTheFirstLackedAndTheSameObjectsAgainAddNothing(LocalS3Server server,
      @TempDir Path warehouse) {
    long recordsHint = -1; // read in Spark tasks, as a large ledger is; the rows are written the same way either way
    Recording recording = Recording.of(server, "ledger-again", "cogram/", warehouse);
    SparkSession spark = recording.spark();
    LedgerRecorder ledger = recording.ledger();
    Tables tables = recording.tables();
    S3ObjectStore store = recording.store();
    ObjectStoreLedger objects = new ObjectStoreLedger(store);
    String folder = ledger.folder(RUN, ATTEMPT_ID);
    java.time.Instant at = LedgerFixtures.ANSWERED;
    Clock clock = Clock.fixed(at, ZoneOffset.UTC);

    // A holder whose lock was taken over: its task had written the window's intent, not yet its answers. The run that
    // took over records it from the intent: the keys are gone (looked at), their markers unknown.
    TaskLedger holder = new TaskLedger(objects, folder, LedgerFixtures.header(7, 0, at), clock);
    holder.nextWindow();
    holder.intend(List.of(LedgerFixtures.meetingIntent(0)));
    ledger.record(RUN, ATTEMPT_ID, "2026-12-01", tables, LedgerRecorder.Write.INSERT_NEW, true, recordsHint);
    assertThat(deleted(spark, tables)).containsOnly(entry(LedgerFixtures.MINUTES, "none"),
        entry(LedgerFixtures.AUDIO, "none"), entry(LedgerFixtures.STATE, "none"));

    // The holder's answers land after it: recorded again, the row gains the markers.
    holder.recordOutcomes(List.of(answered(at, LedgerFixtures.MINUTES, LedgerFixtures.AUDIO, LedgerFixtures.STATE)));
    holder.close();
    ledger.record(RUN, ATTEMPT_ID, "2026-12-01", tables, LedgerRecorder.Write.INSERT_NEW, true, recordsHint);
    java.util.Map<String, String> withMarkers = java.util.Map.of(LedgerFixtures.MINUTES, "marker-minutes.pdf",
        LedgerFixtures.AUDIO, "marker-audio.m4a", LedgerFixtures.STATE, "marker-state.json");
    assertThat(deleted(spark, tables)).isEqualTo(withMarkers);

    // The same objects again (a recording that died before it removed them): nothing changes, the message included.
    TaskLedger again = new TaskLedger(objects, folder, LedgerFixtures.header(7, 0, at), clock);
    again.nextWindow();
    again.recordOutcomes(List.of(answered(at, LedgerFixtures.MINUTES, LedgerFixtures.AUDIO, LedgerFixtures.STATE)));
    again.close();
    List<org.apache.spark.sql.Row> before = spark.read().format("delta").load(tables.executions()).collectAsList();
    ledger.record(RUN, ATTEMPT_ID, "2026-12-01", tables, LedgerRecorder.Write.INSERT_NEW, true, recordsHint);
    assertThat(spark.read().format("delta").load(tables.executions()).collectAsList())
        .as("one row per record, unchanged").hasSize(1).isEqualTo(before);

    // An executor lost mid-window: its retry's window (another task attempt) cannot be read at the first recording
    // and stays; read at the next, its keys join the row.
    String another = "20261201T060700Z-dddddd";
    String unreadable = ledger.folder(RUN, another) + "p00003/t9-w000001-outcomes-p00001.json";
    TaskLedger first = new TaskLedger(objects, ledger.folder(RUN, another), header(another, 8, at), clock);
    first.nextWindow();
    first.recordOutcomes(List.of(answered(at, LedgerFixtures.MINUTES)));
    first.close();
    store.write(unreadable, "{\"version\":2, \"kind\":".getBytes(StandardCharsets.UTF_8));
    LedgerRecorder.Recorded partly = ledger.record(RUN, another, "2026-12-01", tables,
        LedgerRecorder.Write.INSERT_NEW, true, recordsHint);
    assertThat(partly.unreadable()).isEqualTo(1);
    TaskLedger retry = new TaskLedger(objects, ledger.folder(RUN, another), header(another, 9, at), clock);
    retry.nextWindow();
    retry.recordOutcomes(List.of(answered(at, LedgerFixtures.AUDIO, LedgerFixtures.STATE)));
    retry.close();
    ledger.record(RUN, another, "2026-12-01", tables, LedgerRecorder.Write.INSERT_NEW, true, recordsHint);
    assertThat(spark.read().format("delta").load(tables.executions()).filter("attempt_id = '" + another + "'")
        .selectExpr("explode(deleted) as d").selectExpr("d.key", "d.delete_marker").collectAsList())
        .extracting(row -> row.getString(0) + " " + row.getString(1))
        .containsExactlyInAnyOrder(LedgerFixtures.MINUTES + " marker-minutes.pdf",
            LedgerFixtures.AUDIO + " marker-audio.m4a", LedgerFixtures.STATE + " marker-state.json");
  }

  /**
   * A holder whose lock was taken over wrote a window's intent; the run that took over records it while the keys are
   * still there (nothing of the record deleted yet), and leaves the intent in place, young as it is. The holder's
   * delete, still in flight, then goes through and the holder dies before its answers are written: the next recording
   * finds the keys gone and adds them, so the keys missing from the bucket are the keys executions names; the intent
   * goes once its window is answered or old.
   */
  @Test
  void anIntentRecordedBeforeItsDeletesWentStaysUntilTheyCanNoLongerComeAndTheyAreAdded(LocalS3Server server,
      @TempDir Path warehouse) {
    Recording recording = Recording.of(server, "ledger-in-flight", "cogram/", warehouse);
    S3ObjectStore store = recording.store();
    java.util.Map<String, String> etags = new java.util.LinkedHashMap<>();
    for (String key : List.of(LedgerFixtures.MINUTES, LedgerFixtures.AUDIO, LedgerFixtures.STATE)) {
      etags.put(key, store.write(key, key.getBytes(StandardCharsets.UTF_8)));
    }
    java.time.Instant at = java.time.Instant.now();
    String folder = recording.ledger().folder(RUN, ATTEMPT_ID);
    TaskLedger holder = new TaskLedger(new ObjectStoreLedger(store), folder, LedgerFixtures.header(7, 0, at),
        Clock.fixed(at, ZoneOffset.UTC));
    holder.nextWindow();
    holder.intend(List.of(new io.statesweep.execute.DeleteJournal.IntendedRecord(LedgerFixtures.STATE,
        Action.DELETE_RECORD, etags.get(LedgerFixtures.STATE), List.of(
            new io.statesweep.execute.DeleteJournal.IntendedKey(LedgerFixtures.MINUTES, DeleteRole.FILE,
                etags.get(LedgerFixtures.MINUTES)),
            new io.statesweep.execute.DeleteJournal.IntendedKey(LedgerFixtures.AUDIO, DeleteRole.FILE,
                etags.get(LedgerFixtures.AUDIO)),
            new io.statesweep.execute.DeleteJournal.IntendedKey(LedgerFixtures.STATE, DeleteRole.STATE_FILE,
                etags.get(LedgerFixtures.STATE))), 0, at)));

    recording.ledger().record(RUN, ATTEMPT_ID, "2026-12-01", recording.tables(), LedgerRecorder.Write.INSERT_NEW, true,
        -1);
    assertThat(deleted(recording.spark(), recording.tables())).as("nothing gone yet").isEmpty();
    assertThat(io.statesweep.testing.TestArchive.keys(store, folder)).as("the intent stays").isNotEmpty();

    // The holder's DeleteObjects, sent before it lost its lock, goes through; the holder dies before its answers.
    List<io.statesweep.store.DeleteTarget> inFlight = new java.util.ArrayList<>();
    etags.forEach((key, etag) -> inFlight.add(new io.statesweep.store.DeleteTarget(key, etag)));
    store.delete(inFlight);
    recording.ledger().record(RUN, ATTEMPT_ID, "2026-12-01", recording.tables(), LedgerRecorder.Write.INSERT_NEW, true,
        -1);

    assertThat(deleted(recording.spark(), recording.tables()).keySet()).as("the keys missing from the bucket")
        .isEqualTo(etags.keySet()).allSatisfy(key -> assertThat(store.read(key, 10)).isNull());
  }

  /**
   * The attempt's row of runs follows its rows of executions: a leftover ledger one of whose windows could not be read
   * is recorded with the records it could read, and its row of runs counts them; recorded again once that window can
   * be read, its row counts every record, stays incomplete and keeps its failure with the second recording's after it,
   * and no second row is written.
   */
  @Test
  void aLaterRecordingOfAnAttemptCountsWhatItAddedInTheAttemptsRowOfRuns(LocalS3Server server,
      @TempDir Path warehouse) {
    Recording recording = Recording.of(server, "ledger-runs", "cogram/", warehouse);
    SparkSession spark = recording.spark();
    Tables tables = recording.tables();
    String runId = TestActions.plan(spark, recording.options()).runId();
    String runDate = spark.read().format("delta").load(tables.runs()).first().getAs("run_date");
    ObjectStoreLedger objects = new ObjectStoreLedger(recording.store());
    java.time.Instant at = LedgerFixtures.ANSWERED;
    String folder = recording.ledger().folder(runId, ATTEMPT_ID);
    io.statesweep.ledger.LedgerEntry.Header header = new io.statesweep.ledger.LedgerEntry.Header(runId, runDate,
        ATTEMPT_ID, tables.warehouse(), 3, 1, 0, at);
    TaskLedger task = new TaskLedger(objects, folder, header, Clock.fixed(at, ZoneOffset.UTC));
    task.nextWindow();
    task.recordOutcomes(List.of(answered(at, LedgerFixtures.MINUTES, LedgerFixtures.AUDIO, LedgerFixtures.STATE)));
    task.close();
    String late = folder + "p00004/t2-w000001-outcomes-p00001.json";
    recording.store().write(late, "{\"version\":2, \"kind\":".getBytes(StandardCharsets.UTF_8));
    io.statesweep.spark.execute.LeftoverLedgers leftovers = new io.statesweep.spark.execute.LeftoverLedgers(spark,
        recording.options().execute(), recording.ledger(),
        new io.statesweep.spark.execute.AttemptReport(spark, recording.options().execute()),
        org.slf4j.LoggerFactory.getLogger(LedgerRecorderTest.class));

    leftovers.record(tables, "20261201T070000Z-eeeeee");
    org.apache.spark.sql.Row first = attemptRun(spark, tables);
    assertThat(first.<Long>getAs("records_deleted")).isEqualTo(1);
    assertThat(first.<Long>getAs("child_keys_deleted")).isEqualTo(2);
    assertThat(first.<String>getAs("failure")).endsWith("; 1 objects of its ledger cannot be read");
    assertThat(first.<String>getAs("statesweep_version")).as("the version that recorded it, as the build wrote it")
        .isEqualTo(io.statesweep.spark.tables.RunsTable.VERSION).matches("\\d+\\.\\d+\\.\\d+.*");

    // The window can be read now (its object written whole): another record of the attempt, its two files and its
    // state file.
    recording.store().delete(List.of(new io.statesweep.store.DeleteTarget(late, null)));
    TaskLedger retry = new TaskLedger(objects, folder, new io.statesweep.ledger.LedgerEntry.Header(runId, runDate,
        ATTEMPT_ID, tables.warehouse(), 4, 2, 0, at), Clock.fixed(at, ZoneOffset.UTC));
    retry.nextWindow();
    String other = "cogram/projects/p1/meetings/m2/";
    retry.recordOutcomes(List.of(answered(other + "state.json", at, other + "minutes.pdf", other + "audio.m4a",
        other + "state.json")));
    retry.close();
    leftovers.record(tables, "20261201T080000Z-ffffff");

    org.apache.spark.sql.Row again = attemptRun(spark, tables);
    assertThat(again.<Long>getAs("records_deleted")).as("both records").isEqualTo(2);
    assertThat(again.<Long>getAs("child_keys_deleted")).isEqualTo(4);
    assertThat(again.<Boolean>getAs("complete")).isFalse();
    assertThat(again.<String>getAs("failure")).as("the first failure kept, who recorded it again after it")
        .isEqualTo(first.getAs("failure") + "; then: its driver stopped before it recorded what it deleted; recorded"
            + " from its ledger by attempt 20261201T080000Z-ffffff");
    assertThat(spark.read().format("delta").load(tables.executions()).count()).isEqualTo(2);
  }

  /** The one row of runs of attempt {@link #ATTEMPT_ID}. */
  private static org.apache.spark.sql.Row attemptRun(SparkSession spark, Tables tables) {
    List<org.apache.spark.sql.Row> rows = spark.read().format("delta").load(tables.runs())
        .filter("attempt_id = '" + ATTEMPT_ID + "'").collectAsList();
    assertThat(rows).as("one row of runs for the attempt").hasSize(1);
    return rows.get(0);
  }

  private static io.statesweep.ledger.LedgerEntry.Header header(String attemptId, long taskAttempt,
      java.time.Instant at) {
    return new io.statesweep.ledger.LedgerEntry.Header(RUN, "2026-12-01", attemptId, "s3a://reports/statesweep", 3,
        taskAttempt, 0, at);
  }

  @Test
  void anObjectThatCannotBeReadStaysUnderAPrefixWithAColonOnTheDriverAndInTasks(LocalS3Server server,
      @TempDir Path warehouse) {
    Recording recording = Recording.of(server, "ledger-colon", "exports: eu", warehouse);
    LedgerRecorder ledger = recording.ledger();
    Tables tables = recording.tables();
    S3ObjectStore store = recording.store();

    for (long recordsHint : new long[] {0, -1}) {
      String attempt = recordsHint == 0 ? "20261201T060500Z-bbbbbb" : "20261201T060600Z-cccccc";
      String unreadable = ledger.folder(RUN, attempt) + "p00000/t1-w000001-intent-g0001-p00001.json";
      store.write(unreadable, "{\"version\":2, \"kind\":".getBytes(StandardCharsets.UTF_8));

      LedgerRecorder.Recorded recorded = ledger.record(RUN, attempt, "2026-12-01", tables,
          LedgerRecorder.Write.APPEND, true, recordsHint);

      assertThat(unreadable).startsWith("exports: eu");
      assertThat(recorded.unreadable()).as("read %s", recordsHint == 0 ? "on the driver" : "in tasks").isEqualTo(1);
      assertThat(store.read(unreadable, 100)).as("it stays, as the log says, read %s", recordsHint == 0
          ? "on the driver" : "in tasks").isNotNull();
    }
  }
}
