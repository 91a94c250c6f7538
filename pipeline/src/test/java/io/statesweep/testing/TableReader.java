package io.statesweep.testing;

import static org.apache.spark.sql.functions.col;

import io.delta.tables.DeltaTable;
import io.statesweep.api.Tables;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A test's reader of a warehouse's Delta tables (pipeline/README.md, "Tables"), by path, as a review reads them: each
 * table whole, or its rows of one run ({@code run_id}). The one place tests load a table; they never build its path.
 */
public final class TableReader {
  private final SparkSession spark;
  private final Tables tables;

  private TableReader(SparkSession spark, Tables tables) {
    this.spark = spark;
    this.tables = tables;
  }

  /** The tables {@code tables} names, read with {@code spark}. */
  public static TableReader of(SparkSession spark, Tables tables) {
    return new TableReader(spark, tables);
  }

  /** The tables of {@code warehouse} (a path, as a string or a {@link java.nio.file.Path}), read with {@code spark}. */
  public static TableReader of(SparkSession spark, Object warehouse) {
    return new TableReader(spark, new Tables(warehouse.toString()));
  }

  /** The tables {@code tables} names, read with the tests' shared session ({@link SharedSpark}). */
  public static TableReader of(Tables tables) {
    return new TableReader(SharedSpark.session(), tables);
  }

  /** The tables of {@code warehouse}, read with the tests' shared session ({@link SharedSpark}). */
  public static TableReader of(Object warehouse) {
    return of(SharedSpark.session(), warehouse);
  }

  /** Where the tables are. */
  public Tables tables() {
    return tables;
  }

  /** The table named {@code table} ({@link Tables#ALL}), whole. */
  public Dataset<Row> table(String table) {
    return spark.read().format("delta").load(tables.path(table));
  }

  /** The rows of {@code table} whose {@code run_id} is {@code runId}. */
  public Dataset<Row> table(String table, String runId) {
    return table(table).filter(col("run_id").equalTo(runId));
  }

  /** Whether {@code table} has been written (a plan makes every table, empty where it has no rows). */
  public boolean exists(String table) {
    return DeltaTable.isDeltaTable(spark, tables.path(table));
  }

  /** How many rows {@code table} holds. */
  public long count(String table) {
    return table(table).count();
  }

  /** How many rows of {@code table} belong to run {@code runId}. */
  public long count(String table, String runId) {
    return table(table, runId).count();
  }

  public Dataset<Row> runs() {
    return table(Tables.RUNS);
  }

  public Dataset<Row> runs(String runId) {
    return table(Tables.RUNS, runId);
  }

  public Dataset<Row> deletionPlan() {
    return table(Tables.DELETION_PLAN);
  }

  public Dataset<Row> deletionPlan(String runId) {
    return table(Tables.DELETION_PLAN, runId);
  }

  public Dataset<Row> stateFiles() {
    return table(Tables.STATE_FILES);
  }

  public Dataset<Row> stateFiles(String runId) {
    return table(Tables.STATE_FILES, runId);
  }

  public Dataset<Row> executions() {
    return table(Tables.EXECUTIONS);
  }

  public Dataset<Row> executions(String runId) {
    return table(Tables.EXECUTIONS, runId);
  }

  public Dataset<Row> approvals() {
    return table(Tables.APPROVALS);
  }

  public Dataset<Row> approvals(String runId) {
    return table(Tables.APPROVALS, runId);
  }

  public Dataset<Row> planSummary() {
    return table(Tables.PLAN_SUMMARY);
  }

  public Dataset<Row> planSummary(String runId) {
    return table(Tables.PLAN_SUMMARY, runId);
  }
}
