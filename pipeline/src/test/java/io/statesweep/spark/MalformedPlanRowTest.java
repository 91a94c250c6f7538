package io.statesweep.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code deletion_plan} row that cannot be executed (a null field, an unknown role, the state file out of
 * place) costs only the record it names: that record is {@code kept_refused}, naming the field, and every other
 * record of the plan is executed exactly as planned (pipeline/README.md "Deleting").
 */
@ExtendWith(S3ServerExtension.class)
class MalformedPlanRowTest {
  private static final String P = "cogram/";
  private static final int DUE = 13;
  private static final int LIVE = 19;
  private static final String DELETES_TYPE =
      "array<struct<key:string,etag:string,last_modified:timestamp,size:bigint,role:string>>";

  private final SparkSession spark = SharedSpark.session();
  @TempDir
  Path warehouse;

  @Test
  void aMalformedRowIsRefusedNamingItsFieldAndEveryOtherRecordIsExecutedAsPlanned(LocalS3Server server) {
    TestArchive archive = new TestArchive(server, "malformed-plan-rows", P);
    for (int i = 0; i < DUE; i++) {
      String folder = "projects/p1/documents/d" + i + "/";
      archive.put(folder + "doc.pdf", "pdf " + i);
      archive.put(folder + "page.png", "png " + i);
      archive.put(folder + "state.json", archive.state(true, null, List.of(folder + "doc.pdf", folder + "page.png"),
          List.of()));
    }
    for (int i = 0; i < LIVE; i++) {
      String folder = "projects/p1/meetings/m" + i + "/";
      archive.put(folder + "notes.txt", "notes " + i);
      List<String> removed = i < 2 ? List.of(folder + "removed.txt") : List.of();
      removed.forEach(key -> archive.put(key, "removed"));
      archive.put(folder + "state.json", archive.state(false, null, List.of(folder + "notes.txt"), removed));
    }
    Map<String, StoredObject> before = archive.snapshot();
    PlanResult plan = new SparkPlanAction(spark, options(server, Map.of()).plan()).execute();
    assertThat(plan.failure()).isNull();
    assertThat(plan.summary().line()).contains(" state_files_scanned=32 records_deleted=13 child_keys_deleted=28 ");
    Tables tables = new Tables(warehouse.toString());
    Dataset<Row> rows = TableReader.of(spark, tables).deletionPlan(plan.runId());
    Set<String> planned = new TreeSet<>(rows.selectExpr("explode(deletes.key)").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList());
    Dataset<Row> due = rows.filter(col("state_file_key").equalTo(stateFile("documents/d0")));

    // Rows that anyone who can write the plan table may append: copies of a due record's row, each with
    // another state file's key and one field broken (the first: a null state_last_modified).
    List<Dataset<Row>> hostile = new ArrayList<>();
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m2")))
        .withColumn("state_last_modified", lit(null).cast("timestamp")));
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m3")))
        .withColumn("deletes", expr("transform(deletes, (d, i) -> if(i = 1, named_struct('key', d.key,"
            + " 'etag', cast(null as string), 'last_modified', d.last_modified, 'size', d.size, 'role', d.role), d))")));
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m4")))
        .withColumn("deletes", expr("cast(null as " + DELETES_TYPE + ")")));
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m5")))
        .withColumn("deletes", expr("transform(deletes, (d, i) -> if(i = 0, named_struct('key', d.key,"
            + " 'etag', d.etag, 'last_modified', d.last_modified, 'size', d.size, 'role', 'everything'), d))")));
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m6")))
        .withColumn("deletes", expr("reverse(deletes)")));
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m7")))
        .withColumn("deletes", expr("transform(deletes, (d, i) -> if(i = 0, named_struct('key', d.key,"
            + " 'etag', d.etag, 'last_modified', d.last_modified, 'size', cast(null as bigint), 'role', d.role), d))")));
    // A copy of a live record's row with every column that execution does not use set to null: it is
    // executed as the row it copies, whichever of the two execution takes.
    Dataset<Row> removedFiles = rows.filter(col("state_file_key").equalTo(stateFile("meetings/m0")));
    for (String column : List.of("record_type", "kind", "ids", "reason", "due_at", "grace_days", "grace_rule",
        "keys_to_delete", "child_keys_to_delete", "bytes_to_delete", "missing_keys", "missing_files", "kept_keys",
        "planned_at")) {
      removedFiles = removedFiles.withColumn(column, lit(null).cast(removedFiles.schema().apply(column).dataType()));
    }
    hostile.add(removedFiles);
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m8"))).withColumn("action",
        lit("delete_everything")));
    hostile.add(due.withColumn("state_file_key", lit(stateFile("meetings/m9"))).withColumn("action",
        lit(null).cast("string")));
    hostile.add(due.withColumn("state_file_key", lit(null).cast("string")));
    // A second row of a due record's own state file: whichever of the two rows execution takes, the record
    // loses at most what its own plan deletes.
    hostile.add(rows.filter(col("state_file_key").equalTo(stateFile("documents/d12")))
        .withColumn("state_etag", lit(null).cast("string")));
    hostile.stream().reduce(Dataset::union).orElseThrow()
        .write().format("delta").mode("append").save(tables.deletionPlan());

    ExecuteResult result = new SparkExecuteAction(spark, options(server, Map.of("--dry-run", "false",
        "--skip-approval", "true")).execute(), plan.runId()).execute();

    assertThat(result.failure()).isNull();
    Map<String, Row> outcomes = new TreeMap<>();
    TableReader.of(spark, tables).executions().filter(col("attempt_id").equalTo(result.attemptId()))
        .select("state_file_key", "outcome", "message", "child_keys_deleted", "state_file_deleted", "action")
        .collectAsList()
        .forEach(row -> outcomes.put(row.getString(0), row));
    String refused = ": its plan row cannot be executed: field ";
    Map<String, String> refusedFields = new TreeMap<>(Map.of("meetings/m2", "state_last_modified is null",
        "meetings/m3", "deletes[1].etag is null", "meetings/m4", "deletes is null",
        "meetings/m5", "deletes[0].role is not file, removed_file or state_file: \"everything\"",
        "meetings/m6", "deletes[0].role is state_file, but only the last delete of a row is its state file",
        "meetings/m7", "deletes[0].size is null",
        "meetings/m8", "action is not delete_record or delete_removed_files: \"delete_everything\"",
        "meetings/m9", "action is null"));
    refusedFields.forEach((record, field) -> {
      Row outcome = outcomes.get(stateFile(record));
      assertThat(outcome).as("the outcome of %s", record).isNotNull();
      assertThat(outcome.getString(1)).isEqualTo("kept_refused");
      assertThat(outcome.getString(2)).isEqualTo("refused to delete " + stateFile(record) + refused + field);
      assertThat(outcome.getLong(3)).isZero();
    });
    // A row whose action no plan writes is recorded with the action kept_refused.
    assertThat(outcomes.get(stateFile("meetings/m8")).getString(5)).isEqualTo("kept_refused");
    // A row that names no state file: kept, recorded under an empty key.
    assertThat(outcomes.get("")).isNotNull();
    assertThat(outcomes.get("").getString(2)).isEqualTo("refused to delete anything for a plan row that names no"
        + " state file: field state_file_key is null");
    assertThat(outcomes.get("").getString(1)).isEqualTo("kept_refused");

    // Every other record exactly as planned; the twice-planned one either as planned or kept whole.
    Row twice = outcomes.get(stateFile("documents/d12"));
    Set<String> twiceKeys = Set.of(P + "projects/p1/documents/d12/doc.pdf", P + "projects/p1/documents/d12/page.png",
        stateFile("documents/d12"));
    Set<String> expectedLeft = new TreeSet<>(before.keySet());
    expectedLeft.removeAll(planned);
    if (twice.getString(1).equals("kept_refused")) {
      assertThat(twice.getString(2)).isEqualTo("refused to delete " + stateFile("documents/d12") + refused
          + "state_etag is null");
      expectedLeft.addAll(twiceKeys);
    } else {
      assertThat(twice.getString(1)).isEqualTo("deleted");
    }
    assertThat(archive.snapshot().keySet()).isEqualTo(expectedLeft);
    for (int i = 0; i < DUE - 1; i++) {
      assertThat(outcomes.get(stateFile("documents/d" + i)).getString(1)).isEqualTo("deleted");
    }
    assertThat(outcomes.get(stateFile("meetings/m0")).getString(1)).isEqualTo("removed_files_deleted");
    assertThat(outcomes.get(stateFile("meetings/m1")).getString(1)).isEqualTo("removed_files_deleted");
    long deleted = twice.getString(1).equals("deleted") ? DUE : DUE - 1;
    assertThat(result.summary().line()).startsWith("summary: dry_run=false complete=true state_files_scanned=32"
        + " records_deleted=" + deleted + " child_keys_deleted=" + (2 * deleted + 2) + " records_kept=" + (32 - deleted)
        + " kept_newer_files=0 kept_refused=" + (deleted == DUE ? 9 : 10) + " skipped=0 errors=0");
  }

  private static String stateFile(String record) {
    return P + "projects/p1/" + record + "/state.json";
  }

  private RunOptions options(LocalS3Server server, Map<String, String> extra) {
    return TestOptions.of(server.endpoint(), "malformed-plan-rows", P, warehouse).with(extra).options();
  }
}
