package io.statesweep.spark.tables;

import io.statesweep.api.Tables;
import io.delta.tables.DeltaTable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Creates statesweep's Delta tables with the table and column comments of their declarations ({@link TableSchemas}),
 * the same words as pipeline/README.md, "Tables". A table is created with them on its first append (partitioned by
 * {@code run_date}), so {@code DESCRIBE} and catalog browsers show what each column means and its unit.
 */
public final class TableDocs {
  private TableDocs() {}

  /**
   * Creates {@code table} of {@code tables} with its comments and partitioning unless it exists ({@link
   * #createIfMissing(SparkSession, Dataset, String)}), and registers it by name in the catalog schema, if there is one.
   */
  public static void createIfMissing(Dataset<Row> rows, Tables tables, String table) {
    createIfMissing(rows.sparkSession(), rows, tables.path(table));
    CatalogTables.register(rows.sparkSession(), tables, table);
  }

  /** Creates the table with its comments and partitioning unless it exists (an older table stays as it is). */
  public static void createIfMissing(SparkSession spark, Dataset<Row> rows, String path) {
    if (DeltaTable.isDeltaTable(spark, path)) {
      return;
    }
    TableSchema<?> table = TableSchemas.of(path.substring(path.lastIndexOf('/') + 1));
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(table.withComments(rows.schema()))
        .partitionedBy("run_date")
        .comment(table.comment())
        .execute();
  }
}
