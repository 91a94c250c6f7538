package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pipeline/README.md, "What a run does", on a bucket with S3 Versioning (S3Proxy versions as S3 documents:
 * {@code local/S3ProxyScenarioTest}): a delete leaves a delete marker in front of the key's versions, so statesweep
 * sends no delete that would only stack another one. A removed file of a live record ({@code delete_files}) is
 * deleted while it exists, once: the next run finds it gone and sends nothing, and a key that never existed gets no
 * marker at all. The run reports the bucket's versioning ({@code bucket_versioning=Enabled}), and {@code executions}
 * names the delete marker each deleted key got ({@code deleted.delete_marker}): the marker S3 lists for it.
 */
@ExtendWith(S3ServerExtension.class)
class VersionedBucketTest {
  private static final String P = "it/";
  private static final String EMAIL = "projects/p1/emails/e1/";
  private static final String DOCUMENT = "projects/p1/documents/d1/";

  @Test
  void aRemovedFileGetsOneDeleteMarkerHoweverManyRunsFindItGone(LocalS3Server server, @TempDir Path warehouse)
      throws InterruptedException {
    TestArchive archive = new TestArchive(server, "versioned-runs", P);
    server.enableVersioning("versioned-runs");
    archive.put(EMAIL + "body.html", "<p>");
    archive.put(EMAIL + "old.pdf", "pdf");
    archive.put(EMAIL + "state.json", archive.state(false, null, List.of(EMAIL + "body.html"),
        List.of(EMAIL + "old.pdf", EMAIL + "never-written.pdf")));
    archive.put(DOCUMENT + "doc.pdf", "doc");
    archive.put(DOCUMENT + "state.json", archive.state(true, null, List.of(DOCUMENT + "doc.pdf"), List.of()));
    // A state file counts as listed only when it was written before the listing began (whole seconds here).
    Thread.sleep(2_100);
    RunOptions options = TestOptions.of(server.endpoint(), "versioned-runs", "it", warehouse)
        .with("--dry-run", "false").options();

    for (int run = 1; run <= 2; run++) {
      PlanResult plan = TestActions.plan(SharedSpark.session(), options);
      ExecuteResult executed = TestActions.executeOwnPlan(SharedSpark.session(), options, plan);

      assertThat(executed.failure()).as("run %d", run).isNull();
      assertThat(plan.summary().line()).as("run %d", run).contains(" bucket_versioning=Enabled");
      assertThat(executed.summary().recordsDeleted()).as("run %d", run).isEqualTo(run == 1 ? 1 : 0);
      // The second plan finds old.pdf gone: no record with removed files to delete, and no key sent.
      assertThat(plan.summary().line()).as("run %d", run)
          .contains(" records_with_removed_files=" + (run == 1 ? 1 : 0) + " ");
      assertThat(executed.summary().line()).as("run %d", run)
          .contains(" child_keys_deleted=" + (run == 1 ? 2 : 0) + " ");
      // The export's keys only: statesweep's own folder (it.statesweep/: the lock, the probes, the ledger) is not the
      // archive.
      Map<String, List<String>> markers = new TreeMap<>(server.deleteMarkers("versioned-runs"));
      markers.keySet().removeIf(key -> !key.startsWith(P));
      assertThat(markers.keySet()).as("the keys with delete markers after run %d", run).containsExactlyInAnyOrder(
          P + EMAIL + "old.pdf", P + DOCUMENT + "doc.pdf", P + DOCUMENT + "state.json");
      assertThat(markers.values()).as("one marker each after run %d", run).allSatisfy(ids -> assertThat(ids).hasSize(1));
      if (run == 1) {
        // executions names, for each key the run deleted, the marker the store answered: the one S3 lists.
        Map<String, String> recorded = new TreeMap<>();
        TableReader.of(SharedSpark.session(), executed.tables()).executions(plan.runId())
            .selectExpr("explode(deleted) as d").selectExpr("d.key", "d.delete_marker").collectAsList()
            .forEach(row -> recorded.put(row.getString(0), row.getString(1)));
        Map<String, String> listed = new TreeMap<>();
        markers.forEach((key, ids) -> listed.put(key, ids.get(0)));
        assertThat(recorded).isEqualTo(listed);
      }
    }
    assertThat(archive.snapshot().keySet()).containsExactlyInAnyOrder(P + EMAIL + "body.html", P + EMAIL + "state.json");
  }

  /**
   * A warehouse whose {@code executions} table was written before {@code deleted.delete_marker} existed takes the
   * rows of a new execute: the field is added to the table (its older rows read it as null).
   */
  @Test
  void anExecutionsTableFromBeforeDeleteMarkersTakesTheNewRows(LocalS3Server server, @TempDir Path warehouse)
      throws InterruptedException {
    TestArchive archive = new TestArchive(server, "executions-upgrade", P);
    archive.put(DOCUMENT + "doc.pdf", "doc");
    archive.put(DOCUMENT + "state.json", archive.state(true, null, List.of(DOCUMENT + "doc.pdf"), List.of()));
    Thread.sleep(2_100);
    RunOptions options = TestOptions.of(server.endpoint(), "executions-upgrade", "it", warehouse)
        .with("--dry-run", "false").options();
    PlanResult first = TestActions.plan(SharedSpark.session(), options);
    assertThat(TestActions.executeOwnPlan(SharedSpark.session(), options, first).failure()).isNull();
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> executions =
        TableReader.of(SharedSpark.session(), first.tables()).executions();
    executions.withColumn("deleted", org.apache.spark.sql.functions.expr("transform(deleted, d -> named_struct("
            + "'key', d.key, 'role', d.role, 'etag', d.etag, 'deleted_at', d.deleted_at))"))
        .write().format("delta").mode("overwrite").option("overwriteSchema", "true").partitionBy("run_date")
        .save(first.tables().path(io.statesweep.api.Tables.EXECUTIONS));
    assertThat(TableReader.of(SharedSpark.session(), first.tables()).executions().schema().simpleString())
        .doesNotContain("delete_marker");
    String second = "projects/p1/documents/d2/";
    archive.put(second + "doc.pdf", "doc");
    archive.put(second + "state.json", archive.state(true, null, List.of(second + "doc.pdf"), List.of()));
    Thread.sleep(2_100);

    PlanResult plan = TestActions.plan(SharedSpark.session(), options);
    ExecuteResult executed = TestActions.executeOwnPlan(SharedSpark.session(), options, plan);

    assertThat(executed.failure()).isNull();
    assertThat(executed.summary().recordsDeleted()).isEqualTo(1);
    List<org.apache.spark.sql.Row> rows = TableReader.of(SharedSpark.session(), plan.tables()).executions()
        .selectExpr("run_id", "explode(deleted) as d").selectExpr("run_id", "d.key", "d.delete_marker")
        .orderBy("run_id", "key").collectAsList();
    assertThat(rows).extracting(row -> row.getString(1)).containsExactly(P + DOCUMENT + "doc.pdf",
        P + DOCUMENT + "state.json", P + second + "doc.pdf", P + second + "state.json");
    // No versioning here: no marker, in the old rows or the new.
    assertThat(rows).allSatisfy(row -> assertThat(row.isNullAt(2)).isTrue());
  }
}
