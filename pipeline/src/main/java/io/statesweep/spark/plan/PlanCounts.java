package io.statesweep.spark.plan;

import static org.apache.spark.sql.functions.expr;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The counts of one plan (pipeline/README.md, "The summary line"), from the rows its {@code state_files} and {@code
 * deletion_plan} tables were written from, never from a second planning or a reading of the tables back.
 */
public record PlanCounts(long stateFiles, long skipped, long readErrors, long gone, long planned, long recordsDeleted,
    long childKeys, long bytes, long keptNewer, long keptRefused, long badState, long notYetDue,
    long removedFilesRecords, long missingFiles, long keysToDelete, long keysListed, long listingTasks) {
  /** The counts of a plan that did not complete. */
  public static final PlanCounts NONE = new PlanCounts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /**
   * Counts the rows of the run's {@code state_files} and {@code deletion_plan} (table columns), one Spark job each;
   * {@code keysListed} and {@code listingTasks} come from the listing stage.
   */
  public static PlanCounts of(Dataset<Row> stateFileRows, Dataset<Row> planRows, long keysListed, long listingTasks) {
    Row stateCounts = stateFileRows
        .agg(expr("count_if(status <> 'skipped')"), expr("count_if(status = 'skipped')"),
            expr("count_if(status = 'read_error')"), expr("count_if(status = 'gone')"))
        .first();
    Row planCounts = planRows
        .agg(expr("count(*)"),
            expr("count_if(action = 'delete_record')"),
            expr("coalesce(sum(child_keys_to_delete), 0)"),
            expr("coalesce(sum(bytes_to_delete), 0)"),
            expr("count_if(action = 'kept_newer_files')"),
            expr("count_if(action = 'kept_refused')"),
            expr("count_if(action = 'bad_state')"),
            expr("count_if(action = 'not_yet_due')"),
            expr("count_if(action = 'delete_removed_files')"),
            expr("coalesce(sum(size(coalesce(missing_files, array()))), 0)"),
            expr("coalesce(sum(if(action in ('delete_record', 'delete_removed_files'),"
                + " size(coalesce(deletes, array())), 0)), 0)"))
        .first();
    return new PlanCounts(stateCounts.getLong(0), stateCounts.getLong(1), stateCounts.getLong(2),
        stateCounts.getLong(3), planCounts.getLong(0), planCounts.getLong(1), planCounts.getLong(2),
        planCounts.getLong(3), planCounts.getLong(4), planCounts.getLong(5), planCounts.getLong(6),
        planCounts.getLong(7), planCounts.getLong(8), planCounts.getLong(9), planCounts.getLong(10), keysListed,
        listingTasks);
  }
}
