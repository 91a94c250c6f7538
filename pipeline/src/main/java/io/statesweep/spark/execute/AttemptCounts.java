package io.statesweep.spark.execute;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.api.Tables;
import io.statesweep.execute.Outcome;
import io.statesweep.spark.rows.ExecutionRow;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * An execute attempt's rows of executions, counted by outcome.
 *
 * @param cameBack records that came back during their deletion and lost files ({@code came_back_during_delete})
 * @param cameBackKeys the files those records lost: deleted and not current again
 * @param restored records that came back during their deletion with every deleted file current again
 *     ({@code restored_after_coming_back})
 * @param restoredKeys files of records that came back that are current again (pipeline/README.md, "Versioned buckets")
 */
public record AttemptCounts(long deleted, long childKeys, long keptNewer, long failed, long stateChanged,
    long alreadyDeleted, long changedDuringDelete, long refused, long cameBack, long interrupted, long cameBackKeys,
    long restored, long restoredKeys, Instant startedAt) {
  /** An attempt of no rows (its ledger could not be recorded). */
  public static final AttemptCounts NONE = new AttemptCounts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Instant.EPOCH);

  /** Records with a kept line ({@link AttemptReport#logLines}): kept, changed, failed or interrupted. */
  public long keptLines() {
    return keptNewer + refused + stateChanged + changedDuringDelete + failed + interrupted;
  }

  /** The counts of {@code rows}, the attempt's rows of executions as appended, as {@link #of(SparkSession, Tables,
   * String, String)} counts them in the table. */
  public static AttemptCounts of(List<ExecutionRow> rows) {
    Map<String, Long> by = new java.util.HashMap<>();
    long childKeys = 0;
    long cameBackKeys = 0;
    long restoredKeys = 0;
    Instant startedAt = null;
    for (ExecutionRow row : rows) {
      by.merge(String.valueOf(row.getOutcome()), 1L, Long::sum);
      childKeys += row.getChildKeysDeleted();
      boolean lost = Outcome.CAME_BACK_DURING_DELETE.label().equals(row.getOutcome());
      if ((lost || Outcome.RESTORED_AFTER_COMING_BACK.label().equals(row.getOutcome())) && row.getDeleted() != null) {
        long current = row.getDeleted().stream().filter(key -> key.getRestoredVersion() != null).count();
        restoredKeys += current;
        cameBackKeys += lost ? row.getDeleted().size() - current : 0;
      }
      if (row.getStartedAt() != null && (startedAt == null || row.getStartedAt().toInstant().isBefore(startedAt))) {
        startedAt = row.getStartedAt().toInstant();
      }
    }
    java.util.function.Function<Outcome, Long> count = outcome -> by.getOrDefault(outcome.label(), 0L);
    return new AttemptCounts(count.apply(Outcome.DELETED), childKeys, count.apply(Outcome.KEPT_NEWER_FILES),
        count.apply(Outcome.FAILED), count.apply(Outcome.STATE_CHANGED), count.apply(Outcome.ALREADY_DELETED),
        count.apply(Outcome.CHANGED_DURING_DELETE), count.apply(Outcome.KEPT_REFUSED),
        count.apply(Outcome.CAME_BACK_DURING_DELETE), count.apply(Outcome.INTERRUPTED), cameBackKeys,
        count.apply(Outcome.RESTORED_AFTER_COMING_BACK), restoredKeys, startedAt == null ? Instant.now() : startedAt);
  }

  /** The counts of an attempt's rows in {@code executions}; {@link #NONE} before the table exists. */
  public static AttemptCounts of(SparkSession spark, Tables tables, String runDate, String attemptId) {
    if (!io.delta.tables.DeltaTable.isDeltaTable(spark, tables.executions())) {
      return NONE;
    }
    Row counts = spark.read().format("delta").load(tables.executions())
        .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId)))
        .agg(expr("count_if(outcome = 'deleted')"), expr("coalesce(sum(child_keys_deleted), 0)"),
            expr("count_if(outcome = 'kept_newer_files')"), expr("count_if(outcome = 'failed')"),
            expr("count_if(outcome = 'state_changed')"), expr("count_if(outcome = 'already_deleted')"),
            expr("count_if(outcome = 'changed_during_delete')"), expr("count_if(outcome = 'kept_refused')"),
            expr("count_if(outcome = 'came_back_during_delete')"), expr("count_if(outcome = 'interrupted')"),
            expr("coalesce(sum(if(outcome = 'came_back_during_delete', size(filter(coalesce(deleted, array()),"
                + " d -> d.restored_version is null)), 0)), 0)"),
            expr("min(started_at)"),
            expr("count_if(outcome = 'restored_after_coming_back')"),
            expr("coalesce(sum(if(outcome in ('came_back_during_delete', 'restored_after_coming_back'),"
                + " size(filter(coalesce(deleted, array()), d -> d.restored_version is not null)), 0)), 0)"))
        .first();
    return new AttemptCounts(counts.getLong(0), counts.getLong(1), counts.getLong(2), counts.getLong(3),
        counts.getLong(4), counts.getLong(5), counts.getLong(6), counts.getLong(7), counts.getLong(8),
        counts.getLong(9), counts.getLong(10), counts.getLong(12), counts.getLong(13),
        counts.isNullAt(11) ? Instant.now() : counts.getTimestamp(11).toInstant());
  }
}
