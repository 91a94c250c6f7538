package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.plan.PlanCosts;
import io.statesweep.spark.plan.PlanSummary;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.tables.TableDocs;
import io.statesweep.spark.tables.TableWrites;
import io.statesweep.api.Tables;
import io.statesweep.cost.PriceTable;
import io.statesweep.spark.rows.ObjectRow;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;

/**
 * The tables a plan writes and a review reads ({@code state_files}, {@code deletion_plan}, {@code plan_summary},
 * {@code runs}, {@code approvals}, {@code executions}; and {@code restorations}, empty), each made where it is missing, with its comments and
 * partitioning ({@link TableDocs#createIfMissing(Dataset, Tables, String)}) and registered by name in the catalog
 * schema if there is one.
 *
 * <p>They are made on a thread of their own, one after the other in the order a plan first writes them, while the
 * plan lists the bucket, reads the state files and writes: in a new JVM the first Delta commit costs seconds of
 * loading, and the listing waits on the store. The plan waits for each table ({@link #await(String)}) before it
 * writes its first row there, and for all of them ({@link #await()}) before it records the run; a table that
 * cannot be made fails the plan there, as its first write would have.
 */
final class PlanTables {
  private static final String JOB_GROUP = "statesweep-plan-tables";

  /** Each table's making, in the order they are made (the order in which a plan first writes them). */
  private final Map<String, CompletableFuture<Void>> made;

  private PlanTables(Map<String, CompletableFuture<Void>> made) {
    this.made = made;
  }

  /** Starts making the missing tables of {@code tables}; {@code prices} and {@code region} give the summary's columns. */
  static PlanTables makeMissing(SparkSession spark, Tables tables, PriceTable prices, String region) {
    requireNonNull(spark, "spark is null");
    requireNonNull(tables, "tables is null");
    Map<String, Runnable> makers = new LinkedHashMap<>();
    makers.put(Tables.STATE_FILES, () -> TableDocs.createIfMissing(TableWrites.toTable(
        spark.emptyDataset(TableSchemas.STATE_FILES.encoder()).toDF(), TableSchemas.STATE_FILES), tables,
        Tables.STATE_FILES));
    makers.put(Tables.DELETION_PLAN, () -> TableDocs.createIfMissing(
        TableWrites.planTable(spark.emptyDataset(TableSchemas.DELETION_PLAN.encoder())), tables, Tables.DELETION_PLAN));
    makers.put(Tables.PLAN_SUMMARY, () -> TableDocs.createIfMissing(PlanSummary.of(
        TableWrites.planTable(spark.emptyDataset(TableSchemas.DELETION_PLAN.encoder())),
        PlanCosts.storageClasses(spark.emptyDataset(ObjectRow.ENCODER)), prices, region), tables, Tables.PLAN_SUMMARY));
    makers.put(Tables.RUNS, () -> TableDocs.createIfMissing(
        spark.createDataFrame(java.util.List.of(), TableSchemas.RUNS.structType()), tables, Tables.RUNS));
    makers.put(Tables.APPROVALS, () -> SparkApproveAction.createTableIfMissing(spark, tables));
    makers.put(Tables.EXECUTIONS, () -> LedgerRecorder.createTableIfMissing(spark, tables));
    // Restore writes it; made here so that a warehouse and its catalog schema hold every table from the first plan.
    makers.put(Tables.RESTORATIONS, () -> TableDocs.createIfMissing(
        spark.createDataFrame(java.util.List.of(), TableSchemas.RESTORATIONS.structType()), tables,
        Tables.RESTORATIONS));
    Map<String, CompletableFuture<Void>> made = new LinkedHashMap<>();
    makers.keySet().forEach(table -> made.put(table, new CompletableFuture<>()));
    // A thread of its own, made by the plan's thread (whose Spark properties it inherits), never a pooled one
    // that another query's properties may have reached.
    Thread thread = new Thread(() -> {
      spark.sparkContext().setJobGroup(JOB_GROUP, "statesweep plan: making missing tables", false);
      Throwable failure = null;
      try {
        for (Map.Entry<String, Runnable> maker : makers.entrySet()) {
          CompletableFuture<Void> table = made.get(maker.getKey());
          if (failure != null) {
            // A table after one that could not be made is not tried: the plan fails at the first.
            table.completeExceptionally(failure);
            continue;
          }
          try {
            maker.getValue().run();
            table.complete(null);
          } catch (Throwable e) {
            // Anything, checked exceptions too (Scala code throws them undeclared): a table left neither made nor
            // failed would keep the plan waiting for it forever.
            failure = e;
            table.completeExceptionally(e);
          }
        }
      } finally {
        spark.sparkContext().clearJobGroup();
      }
    }, "statesweep-plan-tables");
    thread.setDaemon(true);
    thread.start();
    return new PlanTables(made);
  }

  /**
   * Waits until {@code table} is made (a plan writes it next) while the later ones are still being made; rethrows
   * what stopped it, as it was thrown.
   */
  void await(String table) {
    CompletableFuture<Void> making = made.get(table);
    if (making == null) {
      throw new IllegalArgumentException("not a table a plan makes: " + table);
    }
    try {
      making.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** Waits until every table is made: from here on, each table a review reads exists. */
  void await() {
    for (String table : made.keySet()) {
      await(table);
    }
  }

  /** Waits until making them ended, however it ended (a plan that stops early leaves no thread behind). */
  void awaitQuietly() {
    for (CompletableFuture<Void> making : made.values()) {
      try {
        making.join();
      } catch (RuntimeException e) {
        // The plan failed before it needed the tables, or fails with its own cause.
      }
    }
  }
}
