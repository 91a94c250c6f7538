package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.cost.PriceTable;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The tables a plan writes and a review reads ({@code state_files}, {@code deletion_plan}, {@code plan_summary},
 * {@code runs}, {@code approvals}, {@code executions}), each made where it is missing, with its comments and
 * partitioning ({@link TableDocs#createIfMissing(Dataset, Tables, String)}) and registered by name in the catalog schema if there is one.
 *
 * <p>They are made on a thread of their own while the plan lists the bucket and reads the state files: in a new JVM
 * the first Delta commit costs seconds of loading, and the listing waits on the store. The plan waits for them
 * ({@link #await}) before it writes its first row; a table that cannot be made fails the plan there, as its first
 * write would have.
 */
final class PlanTables {
  private static final String JOB_GROUP = "statesweep-plan-tables";

  private final CompletableFuture<Void> made;

  private PlanTables(CompletableFuture<Void> made) {
    this.made = made;
  }

  /** Starts making the missing tables of {@code tables}; {@code prices} and {@code region} give the summary's columns. */
  static PlanTables makeMissing(SparkSession spark, Tables tables, PriceTable prices, String region) {
    requireNonNull(spark, "spark is null");
    requireNonNull(tables, "tables is null");
    CompletableFuture<Void> made = new CompletableFuture<>();
    // A thread of its own, made by the plan's thread (whose Spark properties it inherits), never a pooled one
    // that another query's properties may have reached.
    Thread thread = new Thread(() -> {
      spark.sparkContext().setJobGroup(JOB_GROUP, "statesweep plan: making missing tables", false);
      try {
        TableDocs.createIfMissing(SparkPlanAction.toTable(spark.emptyDataset(StateFileRow.ENCODER).toDF(),
            Tables.STATE_FILES_COLUMNS), tables, Tables.STATE_FILES);
        Dataset<Row> noPlanRows = SparkPlanAction.planTable(spark.emptyDataset(PlanRow.ENCODER));
        TableDocs.createIfMissing(noPlanRows, tables, Tables.DELETION_PLAN);
        TableDocs.createIfMissing(PlanSummary.of(noPlanRows,
            PlanCosts.storageClasses(spark.emptyDataset(ObjectRow.ENCODER)), prices, region), tables, Tables.PLAN_SUMMARY);
        TableDocs.createIfMissing(spark.createDataFrame(java.util.List.of(), RunsTable.SCHEMA), tables, Tables.RUNS);
        SparkApproveAction.createTableIfMissing(spark, tables);
        LedgerRecorder.createTableIfMissing(spark, tables);
        made.complete(null);
      } catch (RuntimeException | Error e) {
        made.completeExceptionally(e);
      } finally {
        spark.sparkContext().clearJobGroup();
      }
    }, "statesweep-plan-tables");
    thread.setDaemon(true);
    thread.start();
    return new PlanTables(made);
  }

  /** Waits until the tables are made; rethrows what stopped it, as it was thrown. */
  void await() {
    try {
      made.join();
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

  /** Waits until making them ended, however it ended (a plan that stops early leaves no thread behind). */
  void awaitQuietly() {
    try {
      made.join();
    } catch (RuntimeException e) {
      // The plan failed before it needed the tables, or fails with its own cause.
    }
  }
}
