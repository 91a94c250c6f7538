package io.statesweep.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.when;

import io.statesweep.spark.rows.StateFileRow;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Incremental runs: a state file whose ETag is the one an earlier complete plan read has the same
 * document, so its parsed row is taken from that plan's {@code state_files} instead of a GET. Whether
 * a record is due is still decided again on every run (time passes), and execution still verifies live.
 */
final class StateReuse {
  /**
   * What a reused row takes from the earlier plan: what its document says. Its LastModified and size
   * stay the current listing's, as every other key's: a byte-identical rewrite keeps its ETag but not
   * its time, and an earlier plan may have stored another clock's time (a GET's whole seconds).
   */
  private static final String[] PARSED = {"status", "message", "etag", "delete", "expiresAt", "markedAt", "files",
      "deleteFiles", "rawJson"};

  private StateReuse() {}

  /** The classified rows, with the listed state files that {@code previousRunId} read at the same ETag filled in. */
  static Dataset<StateFileRow> withPrevious(SparkSession spark, Dataset<StateFileRow> classifiedDS, Tables tables,
      String previousRunId) {
    Dataset<Row> previous = spark.read().format("delta").load(tables.stateFiles())
        .filter(col("run_id").equalTo(previousRunId).and(col("status").isin(Rows.READ, Rows.BAD_STATE)))
        .select(col("key").as("previous_key"), col("etag").as("previous_etag"), col("status").as("p_status"),
            col("message").as("p_message"), col("etag").as("p_etag"), col("delete").as("p_delete"),
            col("expires_at").as("p_expiresAt"), col("marked_at").as("p_markedAt"), col("files").as("p_files"),
            col("delete_files").as("p_deleteFiles"), col("raw_json").as("p_rawJson"))
        .dropDuplicates("previous_key");
    Dataset<Row> classified = classifiedDS.toDF();
    Dataset<Row> joined = classified.join(previous, classified.col("key").equalTo(previous.col("previous_key"))
        .and(classified.col("etag").equalTo(previous.col("previous_etag")))
        .and(classified.col("status").equalTo(Rows.LISTED)), "left");
    Column reused = col("previous_key").isNotNull();
    String[] columns = classified.columns();
    Column[] selected = new Column[columns.length];
    for (int i = 0; i < columns.length; i++) {
      String column = columns[i];
      selected[i] = java.util.Arrays.asList(PARSED).contains(column)
          ? when(reused, col("p_" + column)).otherwise(classified.col(column)).as(column)
          : classified.col(column).as(column);
    }
    return joined.select(selected).as(StateFileRow.ENCODER);
  }
}
