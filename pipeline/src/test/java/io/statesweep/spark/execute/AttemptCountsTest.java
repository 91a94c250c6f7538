package io.statesweep.spark.execute;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.Tables;
import io.statesweep.execute.Outcome;
import io.statesweep.spark.rows.DeletedKeyRow;
import io.statesweep.spark.rows.ExecutionRow;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.testing.SharedSpark;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt's counts (pipeline/README.md "The summary line"), from the rows execute appended to {@code executions} on
 * the driver, are what the table's own rows of the attempt count: one row of every outcome, and more of some.
 */
class AttemptCountsTest {
  private static final String RUN_DATE = "2026-12-04";
  private static final String ATTEMPT = "20261204T010000Z-aaaaaa";
  private static final Instant FIRST = Instant.parse("2026-12-04T01:00:01Z");

  @TempDir
  Path warehouse;

  @Test
  void theRowsAppendedCountAsTheTableCountsThem() {
    List<ExecutionRow> rows = new ArrayList<>();
    int i = 0;
    for (Outcome outcome : Outcome.values()) {
      for (int copies = 0; copies <= outcome.ordinal() % 3; copies++) {
        i++;
        // A record that came back lost a and b, or had c restored; one that came back and lost files may have
        // others restored (d).
        rows.add(row("cogram/projects/p" + i + "/state.json", outcome, i, FIRST.plusSeconds(i),
            outcome == Outcome.CAME_BACK_DURING_DELETE ? List.of("a" + i, "b" + i) : List.of("c" + i),
            outcome == Outcome.RESTORED_AFTER_COMING_BACK
                || outcome == Outcome.CAME_BACK_DURING_DELETE && copies > 0 ? "v" + i : null));
      }
    }
    rows.add(row("cogram/projects/null/state.json", null, 7, null, null, null));
    SparkSession spark = SharedSpark.session();
    Tables tables = new Tables(warehouse.toString());
    spark.createDataset(rows, TableSchemas.EXECUTIONS.encoder()).toDF()
        .select(col("runDate").as("run_date"), col("attemptId").as("attempt_id"), col("outcome"),
            col("childKeysDeleted").as("child_keys_deleted"), col("deletedKeys").as("deleted_keys"),
            expr("transform(deleted, d -> named_struct('key', d.key, 'restored_version', d.restoredVersion))")
                .as("deleted"), col("startedAt").as("started_at"))
        .write().format("delta").save(tables.executions());

    AttemptCounts fromRows = AttemptCounts.of(rows);

    assertThat(fromRows).isEqualTo(AttemptCounts.of(spark, tables, RUN_DATE, ATTEMPT));
    assertThat(fromRows.startedAt()).isEqualTo(FIRST.plusSeconds(1));
    assertThat(fromRows.cameBack()).isPositive();
    long cameBackCopies = Outcome.CAME_BACK_DURING_DELETE.ordinal() % 3 + 1;
    long restoredCopies = Outcome.RESTORED_AFTER_COMING_BACK.ordinal() % 3 + 1;
    assertThat(fromRows.cameBack()).isEqualTo(cameBackCopies);
    assertThat(fromRows.cameBackKeys()).as("a and b of each").isEqualTo(2 * cameBackCopies);
    assertThat(fromRows.restored()).isEqualTo(restoredCopies);
    assertThat(fromRows.restoredKeys()).as("c of each restored, d of the others").isEqualTo(
        restoredCopies + cameBackCopies - 1);
  }

  private static ExecutionRow row(String stateFileKey, Outcome outcome, long childKeys, Instant startedAt,
      List<String> deletedKeys, String restoredVersion) {
    ExecutionRow row = new ExecutionRow();
    row.setRunId("20261204T000000Z-bbbbbb");
    row.setRunDate(RUN_DATE);
    row.setAttemptId(ATTEMPT);
    row.setStateFileKey(stateFileKey);
    row.setOutcome(outcome == null ? null : outcome.label());
    row.setChildKeysDeleted(childKeys);
    row.setDeletedKeys(deletedKeys);
    if (deletedKeys != null) {
      List<DeletedKeyRow> deleted = new ArrayList<>();
      for (String key : deletedKeys) {
        DeletedKeyRow keyRow = new DeletedKeyRow();
        keyRow.setKey(key);
        keyRow.setRestoredVersion(key.startsWith("c") ? restoredVersion : null);
        deleted.add(keyRow);
      }
      if (restoredVersion != null && !deletedKeys.get(0).startsWith("c")) {
        DeletedKeyRow keyRow = new DeletedKeyRow();
        keyRow.setKey("d" + childKeys);
        keyRow.setRestoredVersion(restoredVersion);
        deleted.add(keyRow);
      }
      row.setDeleted(deleted);
    }
    row.setStartedAt(startedAt == null ? null : Timestamp.from(startedAt));
    return row;
  }
}
