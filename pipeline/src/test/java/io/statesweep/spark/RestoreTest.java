package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LogLine;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RestoreAction;
import io.statesweep.api.RestoreResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.RestoreRefusedException;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.DeleteTarget;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pipeline/README.md, "Undoing a run", on a versioned bucket of the S3Proxy the tests share: the sample archive is
 * executed ({@code run --execute}), then restored, step by step on the same bucket (one archive for the class): a dry
 * run changes nothing and names every key; one record restored alone; a key written again after the run is
 * {@code written_since} and keeps its new bytes; a key deleted again by someone else is {@code not_restored} and stays
 * deleted, and so does its record's state file (never a state file without its files); every other key comes back
 * with the bytes it had before the run (its ETag), and {@code restorations} has
 * one {@code restored} row per key; a second restore of the run restores nothing more ({@code already_restored}). An
 * unknown run and a bucket without versioning are refused before anything changes.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RestoreTest {
  private static final String BUCKET = "restore-versioned";
  private static final String P = "cogram/";

  @TempDir
  static Path warehouse;
  private LocalS3Server server;
  private S3ObjectStore store;
  /** The export before the run: key to ETag. */
  private Map<String, String> before;
  private String runId;
  /** Every key the run deleted, with its record's state file. */
  private Map<String, String> deleted;
  private Tables tables;

  @BeforeAll
  void executeTheSampleArchiveOnAVersionedBucket(LocalS3Server server) {
    this.server = server;
    server.createBucket(BUCKET);
    server.enableVersioning(BUCKET);
    store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 11L, Instant.now());
    before = export();
    RunOptions options = TestOptions.of(server.endpoint(), BUCKET, "cogram", warehouse).with("--dry-run", "false")
        .options();
    PlanResult plan = TestActions.plan(SharedSpark.session(), options);
    ExecuteResult executed = TestActions.executeOwnPlan(SharedSpark.session(), options, plan);
    assertThat(executed.failure()).isNull();
    runId = plan.runId();
    tables = executed.tables();
    deleted = new TreeMap<>();
    TableReader.of(SharedSpark.session(), tables).executions(runId)
        .selectExpr("state_file_key", "explode(deleted) as d").selectExpr("d.key", "state_file_key", "d.delete_marker")
        .collectAsList().forEach(row -> {
          assertThat(row.isNullAt(2)).as("the marker of %s", row.getString(0)).isFalse();
          deleted.put(row.getString(0), row.getString(1));
        });
    assertThat(deleted.values().stream().distinct().count()).as("records the run deleted").isGreaterThan(3);
    assertThat(export().keySet()).as("the run deleted them").doesNotContainAnyElementsOf(deleted.keySet());
  }

  @Test
  @Order(1)
  void aDryRunChangesNothingAndNamesEveryKeyTheRunDeleted() {
    Map<String, String> exportBefore = export();
    Map<String, List<String>> markersBefore = markers();
    List<LogLine> lines = new ArrayList<>();

    RestoreResult result = restore().lines(lines::add).execute();

    assertThat(result.dryRun()).isTrue();
    assertThat(export()).isEqualTo(exportBefore);
    assertThat(markers()).isEqualTo(markersBefore);
    assertThat(lines).extracting(LogLine::kind).containsOnly(LogLine.Kind.WOULD_RESTORE);
    assertThat(lines).extracting(LogLine::key).containsExactlyInAnyOrderElementsOf(deleted.keySet());
    assertThat(lines.get(0).text()).matches("would restore " + P + "\\S+: removes delete marker \\S+ of run " + runId);
    assertThat(result.counts()).isEqualTo(new RestoreResult.Counts(deleted.size(), deleted.size(), 0, 0, 0, 0));
    assertThat(result.summaryLine()).startsWith("summary: dry_run=true complete=true restored=" + deleted.size()
        + " written_since=0 already_restored=0 not_restored=0 keys=" + deleted.size() + " errors=0 run_id=" + runId
        + " restore_id=");
    assertThat(result.exitCode()).isZero();
    assertThat(TableReader.of(SharedSpark.session(), tables).count(Tables.RESTORATIONS)).as("a dry run writes no row")
        .isZero();
  }

  @Test
  @Order(2)
  void oneRecordIsRestoredAloneItsFilesFirstAndItsStateFileLast() {
    // A record deleted whole: its state file and at least one file.
    String record = deleted.entrySet().stream().filter(e -> !e.getKey().equals(e.getValue()))
        .map(Map.Entry::getValue).filter(deleted::containsKey).findFirst().orElseThrow();
    List<String> keys = deleted.entrySet().stream().filter(e -> e.getValue().equals(record)).map(Map.Entry::getKey)
        .toList();
    List<LogLine> lines = new ArrayList<>();

    RestoreResult result = restore().record(record).dryRun(false).lines(lines::add).execute();

    assertThat(result.counts().restored()).isEqualTo(keys.size());
    assertThat(lines).extracting(LogLine::kind).containsOnly(LogLine.Kind.RESTORED);
    assertThat(lines).extracting(LogLine::key).containsExactlyInAnyOrderElementsOf(keys);
    assertThat(lines.get(lines.size() - 1).key()).as("the state file last").isEqualTo(record);
    Map<String, String> now = export();
    for (String key : keys) {
      assertThat(now.get(key)).as("%s's bytes, as before the run", key).isEqualTo(before.get(key));
    }
    List<Row> rows = restorations(result.restoreId());
    assertThat(rows).extracting(row -> row.<String>getAs("key")).containsExactlyInAnyOrderElementsOf(keys);
    Row stateFile = rows.stream().filter(row -> row.getAs("key").equals(record)).findFirst().orElseThrow();
    assertThat(rows).allSatisfy(row -> assertThat(row.<java.sql.Timestamp>getAs("restored_at"))
        .isBeforeOrEqualTo(stateFile.<java.sql.Timestamp>getAs("restored_at")));
  }

  @Test
  @Order(3)
  void theRunIsRestoredSaveAKeyWrittenSinceAndOneDeletedAgainAndASecondRestoreRestoresNothing() {
    List<String> files = deleted.entrySet().stream().filter(e -> !e.getKey().equals(e.getValue()))
        .filter(e -> !export().containsKey(e.getKey())).map(Map.Entry::getKey).toList();
    String rewritten = files.get(0);
    String deletedAgain = files.get(files.size() - 1);
    // The key comes back with other bytes, and another key gets a second delete marker, not the run's.
    store.write(rewritten, "written after the run".getBytes(StandardCharsets.UTF_8));
    String newBytes = store.listedObject(rewritten).etag();
    store.delete(List.of(new DeleteTarget(deletedAgain, null)));
    // Its record's state file, which the run deleted too, stays deleted: never a state file without its files.
    String keptStateFile = deleted.get(deletedAgain);
    assertThat(deleted).as("the run deleted the record of %s whole", deletedAgain).containsKey(keptStateFile);
    List<LogLine> lines = new ArrayList<>();

    RestoreResult result = restore().dryRun(false).lines(lines::add).execute();

    Map<String, String> expected = new TreeMap<>(before);
    expected.put(rewritten, newBytes);
    expected.remove(deletedAgain);
    expected.remove(keptStateFile);
    assertThat(export()).isEqualTo(expected);
    assertThat(lines).filteredOn(line -> line.kind() == LogLine.Kind.LEFT).extracting(LogLine::text)
        .anyMatch(text -> text.startsWith("left " + rewritten + ": it was written again since"))
        .anyMatch(text -> text.startsWith("left " + deletedAgain + ": its latest version is another delete marker"))
        .anyMatch(text -> text.startsWith("left " + keptStateFile + ": stays deleted, since a file of its record is"
            + " not restored (" + deletedAgain + ": its latest version is another delete marker"))
        .anyMatch(text -> text.contains("restored it already"));
    List<Row> rows = restorations(result.restoreId());
    assertThat(rows).hasSize(deleted.size());
    assertThat(status(rows, rewritten)).isEqualTo("written_since");
    assertThat(status(rows, deletedAgain)).isEqualTo("not_restored");
    assertThat(status(rows, keptStateFile)).isEqualTo("not_restored");
    // Every key the run deleted has one restored row, of this restore or the record's before it.
    List<Row> all = TableReader.of(SharedSpark.session(), tables).table(Tables.RESTORATIONS)
        .filter("restore_status = 'restored'").collectAsList();
    Map<String, Long> restoredRows = new TreeMap<>();
    all.forEach(row -> restoredRows.merge(row.getAs("key"), 1L, Long::sum));
    Map<String, Long> expectedRows = new TreeMap<>();
    deleted.keySet().stream().filter(key -> !key.equals(rewritten) && !key.equals(deletedAgain)
        && !key.equals(keptStateFile))
        .forEach(key -> expectedRows.put(key, 1L));
    assertThat(restoredRows).isEqualTo(expectedRows);
    assertThat(result.summaryLine()).contains(" written_since=1 ").contains(" not_restored=2 ");

    Map<String, List<String>> markers = markers();
    RestoreResult again = restore().dryRun(false).execute();

    assertThat(again.counts().restored()).isZero();
    assertThat(again.counts().alreadyRestored()).isEqualTo(deleted.size() - 3);
    assertThat(again.counts().writtenSince()).isEqualTo(1);
    assertThat(again.counts().notRestored()).isEqualTo(2);
    assertThat(export()).isEqualTo(expected);
    assertThat(markers()).isEqualTo(markers);
  }

  @Test
  @Order(4)
  void aRunWithoutExecutionsAndABucketWithoutVersioningAreRefusedBeforeAnythingChanges() {
    Map<String, String> exportBefore = export();
    assertThatThrownBy(() -> Statesweep.get(SharedSpark.session()).restore("20260101T000000Z-000000")
        .environment(Map.of()).bucket(BUCKET).prefix(P).option("--endpoint", server.endpoint())
        .warehouse(warehouse.toString()).execute())
        .isInstanceOf(RestoreRefusedException.class)
        .hasMessageStartingWith("Nothing to restore: run 20260101T000000Z-000000 has no rows in table executions (");
    server.createBucket("restore-unversioned");
    assertThatThrownBy(() -> restore().bucket("restore-unversioned").dryRun(false).execute())
        .isInstanceOf(RestoreRefusedException.class)
        .hasMessage("Cannot restore run " + runId + ": bucket s3://restore-unversioned has no versioning"
            + " (GetBucketVersioning answers Off), so its deletes removed the objects for good: no earlier version"
            + " stays behind a delete marker to be made current again. Nothing was changed");
    assertThat(export()).isEqualTo(exportBefore);
    assertThat(TestArchive.keys(S3ObjectStore.open(server.s3Settings(), "restore-unversioned"))).isEmpty();
  }

  private RestoreAction restore() {
    return Statesweep.get(SharedSpark.session()).restore(runId).environment(Map.of()).bucket(BUCKET).prefix(P)
        .option("--endpoint", server.endpoint()).warehouse(warehouse.toString());
  }

  private List<Row> restorations(String restoreId) {
    return TableReader.of(SharedSpark.session(), tables).table(Tables.RESTORATIONS)
        .filter(org.apache.spark.sql.functions.col("restore_id").equalTo(restoreId)).collectAsList();
  }

  private static String status(List<Row> rows, String key) {
    return rows.stream().filter(row -> row.getAs("key").equals(key)).map(row -> row.<String>getAs("restore_status"))
        .findFirst().orElseThrow();
  }

  /** The delete markers of the export's keys, by key (the run lock's folder beside it gets its own). */
  private Map<String, List<String>> markers() {
    Map<String, List<String>> markers = new TreeMap<>(server.deleteMarkers(BUCKET));
    markers.keySet().removeIf(key -> !key.startsWith(P));
    return markers;
  }

  /** The export's keys and ETags (statesweep's own folder beside it is not the export). */
  private Map<String, String> export() {
    Map<String, String> objects = new TreeMap<>();
    store.listAll(P, object -> objects.put(object.key(), object.etag()));
    return objects;
  }
}
