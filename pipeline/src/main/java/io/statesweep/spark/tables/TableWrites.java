package io.statesweep.spark.tables;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.api.Tables;
import io.statesweep.plan.LineText;
import io.statesweep.spark.rows.PlanRow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How rows reach statesweep's Delta tables (pipeline/README.md, "Tables"): appended by partition, inserted only where
 * new, and selected from their beans under the tables' column names and order.
 */
public final class TableWrites {
  private static final Logger LOG = LoggerFactory.getLogger(TableWrites.class);

  private TableWrites() {}

  /**
   * Appends rows to {@code table} of {@code tables}; a table written by an older version gains the newer columns.
   * The first time the table is written, it is registered by name in the catalog schema, if there is one.
   */
  public static void append(Dataset<Row> rows, Tables tables, String table) {
    String path = tables.path(table);
    TableDocs.createIfMissing(rows, tables, table);
    rows.write().format("delta").mode("append").option("mergeSchema", "true").partitionBy("run_date").save(path);
  }

  /**
   * Inserts the rows whose {@code keyColumns} the table does not hold yet (a Delta MERGE that only inserts, new
   * columns added to the table): recording the same rows twice adds nothing, and of two runs recording them at
   * once, the second's commit conflicts with the first's and, tried again, finds them.
   *
   * @param shared values every row has ({@code run_date}, {@code attempt_id}): the table is read only where it
   *     holds them (its {@code run_date} partition), never whole
   */
  public static void insertNew(Dataset<Row> rows, Tables tables, String table, List<String> keyColumns,
      Map<String, String> shared) {
    merge(rows, tables, table, keyColumns, shared, merge -> merge);
  }

  /**
   * As {@link #insertNew}, and a row whose {@code keyColumns} the table holds replaces the one there: for rows
   * computed from the table's own (what a row gains, {@code LedgerRecorder}), under the run lock.
   */
  public static void upsert(Dataset<Row> rows, Tables tables, String table, List<String> keyColumns,
      Map<String, String> shared) {
    merge(rows, tables, table, keyColumns, shared, merge -> merge.whenMatched().updateAll());
  }

  /**
   * As {@link #insertNew}, and a row whose {@code keyColumns} the table holds takes {@code updates} (column to SQL
   * expression over {@code t}, the row there, and {@code s}, the new one) where {@code when} holds.
   */
  public static void insertOrUpdate(Dataset<Row> rows, Tables tables, String table, List<String> keyColumns,
      Map<String, String> shared, String when, Map<String, String> updates) {
    merge(rows, tables, table, keyColumns, shared, merge -> merge.whenMatched(when).updateExpr(updates));
  }

  private static void merge(Dataset<Row> rows, Tables tables, String table, List<String> keyColumns,
      Map<String, String> shared,
      java.util.function.UnaryOperator<io.delta.tables.DeltaMergeBuilder> matched) {
    String path = tables.path(table);
    SparkSession spark = rows.sparkSession();
    TableDocs.createIfMissing(rows, tables, table);
    Column matches = null;
    for (Map.Entry<String, String> value : shared.entrySet()) {
      Column same = col("t." + value.getKey()).equalTo(org.apache.spark.sql.functions.lit(value.getValue()));
      matches = matches == null ? same : matches.and(same);
    }
    for (String key : keyColumns) {
      Column same = col("t." + key).equalTo(col("s." + key));
      matches = matches == null ? same : matches.and(same);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        io.delta.tables.DeltaMergeBuilder merge = matched.apply(io.delta.tables.DeltaTable.forPath(spark, path).as("t")
            .merge(rows.as("s"), matches));
        merge.whenNotMatched().insertAll().withSchemaEvolution().execute();
        return;
      } catch (io.delta.exceptions.DeltaConcurrentModificationException e) {
        if (attempt >= 5) {
          throw e;
        }
        LOG.info("Inserting into {} met a concurrent commit ({}); trying again", LineText.escape(path),
            LineText.escape(e.getMessage()));
      }
    }
  }

  /** Appends rows by path alone (no catalog registration: see {@link #append(Dataset, Tables, String)}). */
  public static void append(Dataset<Row> rows, String path) {
    TableDocs.createIfMissing(rows.sparkSession(), rows, path);
    rows.write().format("delta").mode("append").option("mergeSchema", "true").partitionBy("run_date").save(path);
  }

  /** Selects bean columns under their snake_case table names, in the order of {@code table}'s declaration. */
  public static Dataset<Row> toTable(Dataset<Row> beans, TableSchema<?> table) {
    Map<String, String> byColumn = new LinkedHashMap<>();
    for (String property : beans.columns()) {
      byColumn.put(TableColumn.ofProperty(property), property);
    }
    Column[] selected = table.columnNames().stream().map(column -> {
      String property = byColumn.get(column);
      if (property == null) {
        throw new IllegalStateException("no bean property for column " + column + " of table " + table.name());
      }
      return col(property).as(column);
    }).toArray(Column[]::new);
    return beans.select(selected);
  }

  public static Dataset<Row> planTable(Dataset<PlanRow> planDS) {
    Dataset<Row> rows = planDS.toDF().withColumn("deletes", expr("transform(deletes, d -> named_struct("
        + "'key', d.key, 'etag', d.etag, 'last_modified', d.lastModified, 'size', d.size, 'role', d.role))"));
    return toTable(rows, TableSchemas.DELETION_PLAN);
  }

}
