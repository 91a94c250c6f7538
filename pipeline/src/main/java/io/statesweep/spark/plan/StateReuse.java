package io.statesweep.spark.plan;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.statesweep.api.Tables;
import io.statesweep.config.ExportOptions;
import io.statesweep.plan.LineText;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.rows.StateFileRows;
import io.statesweep.state.StateParser;
import java.util.List;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Incremental runs: a state file whose ETag is the one an earlier complete plan read has the same
 * document, so its parsed row is taken from that plan's {@code state_files} instead of a GET. Whether
 * a record is due is still decided again on every run (time passes), and execution still verifies live.
 * A row is taken only when it is what a parse writes ({@link ReadAgainUnlessValid}) and the only row of its
 * key in that plan; any other state file is read again. Part of the state-reading stage ({@link StateReading}).
 */
final class StateReuse {
  private static final Logger LOG = LoggerFactory.getLogger(StateReuse.class);
  /**
   * What a reused row takes from the earlier plan: what its document says. Its LastModified and size
   * stay the current listing's, as every other key's: a byte-identical rewrite keeps its ETag but not
   * its time, and an earlier plan may have stored another clock's time (a GET's whole seconds).
   */
  private static final String[] PARSED = {"status", "message", "etag", "delete", "expiresAt", "markedAt", "files",
      "deleteFiles", "rawJson"};

  private StateReuse() {}

  /** An earlier complete plan whose parsed state files a run may take: its run id and its run date. */
  record EarlierPlan(String runId, String runDate) {}

  /**
   * The last complete plan of this bucket, prefix, layout and state parser version, whose parsed state files this run may
   * reuse; null when there is none (or no table yet).
   */
  static EarlierPlan previousPlan(SparkSession spark, Tables tables, ExportOptions options) {
    try {
      List<Row> rows = spark.read().format("delta").load(tables.runs())
          .filter(col("command").equalTo("plan").and(col("complete")).and(col("bucket").equalTo(options.bucket()))
              .and(col("prefix").equalTo(options.prefix().value()))
              .and(col("layout_fingerprint").equalTo(options.layout().fingerprint()))
              // Rows parsed by another version of the parser may hold what this one refuses (altered, too).
              .and(col("state_parser").equalTo(StateParser.VERSION)))
          .orderBy(col("started_at").desc()).select("run_id", "run_date").limit(1).collectAsList();
      return rows.isEmpty() ? null : new EarlierPlan(rows.get(0).getString(0), rows.get(0).getString(1));
    } catch (Exception e) {
      // No runs table yet (the first run), or one we cannot read: read every state file.
      LOG.info("No earlier plan to reuse state files from: {}", LineText.escape(RootMessage.of(e)));
      return null;
    }
  }

  /**
   * The classified rows, with the listed state files that {@code previousRunId} read at the same ETag filled in.
   *
   * @param previousRunDate its run date: only that partition of {@code state_files} is read, never the whole history
   */
  static Dataset<StateFileRow> withPrevious(SparkSession spark, Dataset<StateFileRow> classifiedDS, Tables tables,
      String previousRunId, String previousRunDate) {
    Dataset<Row> previous = spark.read().format("delta").load(tables.stateFiles())
        .filter(col("run_date").equalTo(previousRunDate).and(col("run_id").equalTo(previousRunId))
            .and(col("status").isin(Rows.READ, Rows.BAD_STATE)))
        .select(col("key").as("previous_key"), col("etag").as("previous_etag"), col("status").as("p_status"),
            col("message").as("p_message"), col("etag").as("p_etag"), col("delete").as("p_delete"),
            col("expires_at").as("p_expiresAt"), col("marked_at").as("p_markedAt"), col("files").as("p_files"),
            col("delete_files").as("p_deleteFiles"), col("raw_json").as("p_rawJson"))
        // A plan writes one row per state file: a key with more rows in that run's partition was written since.
        .withColumn("p_rows", count(lit(1)).over(Window.partitionBy("previous_key")))
        .dropDuplicates("previous_key");
    Dataset<Row> classified = classifiedDS.toDF();
    Dataset<Row> joined = classified.join(previous, classified.col("key").equalTo(previous.col("previous_key"))
        .and(classified.col("etag").equalTo(previous.col("previous_etag")))
        .and(previous.col("p_rows").equalTo(1))
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
    return joined.select(selected).as(TableSchemas.STATE_FILES.encoder())
        .map(new ReadAgainUnlessValid(), TableSchemas.STATE_FILES.encoder());
  }

  /**
   * A reused row that is not what a parse writes (a null key in {@code files}, a timestamp out of range, a
   * field a parse never leaves null: {@link StateFileRows#notReusable}) goes back to {@code listed}, so that
   * its state file is read again with GET, as if no earlier plan had read it.
   */
  static final class ReadAgainUnlessValid implements MapFunction<StateFileRow, StateFileRow> {
    private static final long serialVersionUID = 1L;

    @Override
    public StateFileRow call(StateFileRow row) {
      // Only a reused row has one of these statuses before the reads (the listing's rows are listed or skipped).
      boolean reused = Rows.READ.equals(row.getStatus()) || Rows.BAD_STATE.equals(row.getStatus());
      if (!reused || StateFileRows.notReusable(row) == null) {
        return row;
      }
      row.setStatus(Rows.LISTED);
      row.setMessage(null);
      row.setDelete(null);
      row.setExpiresAt(null);
      row.setMarkedAt(null);
      row.setFiles(null);
      row.setDeleteFiles(null);
      row.setRawJson(null);
      return row;
    }
  }
}
