package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.delta.tables.DeltaTable;
import io.statesweep.execute.Outcome;
import io.statesweep.spark.rows.PlanRow;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The bound of one run's deletes ({@code --max-deletes}, {@code --max-bytes}; pipeline/README.md, "Bounded runs"):
 * whole records, in the order of their state files' keys, as long as their keys and bytes fit; the rest is left for the
 * next run. A record is never cut: one that does not fit stops the bound, so what a bounded run deletes is every record
 * up to a key, and the next run (or {@code execute --run-id} again) goes on from there. A record that alone exceeds the
 * bound is left out and named ({@link Selection#oversized}), and the bound goes on past it: one large project never
 * stalls a backfill.
 *
 * <p>What a record costs is what its row would delete (its {@code deletes}, state file included), read from the
 * row itself, never from the plan's own counts. Records that an earlier attempt of the same run already deleted
 * cost nothing: they are verified again (their state file is gone) but send no delete. The driver holds no list of
 * records: it reads the candidates in key order a page at a time and keeps only the running totals and the last
 * key that fits (and the few records too large for the bound, at most {@link #MAX_OVERSIZED}).
 */
public final class DeleteBound {
  /** State files read per page while finding where the bound falls. */
  static final int PAGE = 50_000;
  /** Records too large for the bound that one run names and steps over; at the next, the bound stops there. */
  static final int MAX_OVERSIZED = 1_000;

  private DeleteBound() {}

  /**
   * What the bound kept of a plan.
   *
   * @param rows the rows to execute: all of them when everything fits
   * @param deferredRecords records left for the next run
   * @param deferredKeys their keys
   * @param deferredBytes their bytes
   * @param firstDeferred the state file of the first record left, or null when none is
   * @param firstDeferredKeys its keys, to say when it alone exceeds the bound
   * @param firstDeferredBytes its bytes
   * @param oversized the records that alone exceed the bound, in key order, each as its state file, keys and bytes
   */
  public record Selection(Dataset<PlanRow> rows, long deferredRecords, long deferredKeys, long deferredBytes,
      String firstDeferred, long firstDeferredKeys, long firstDeferredBytes, List<Oversized> oversized) {
    public Selection {
      oversized = List.copyOf(oversized);
    }

    static Selection all(Dataset<PlanRow> rows) {
      return new Selection(rows, 0, 0, 0, null, 0, 0, List.of());
    }

    public boolean bounded() {
      return deferredRecords > 0;
    }
  }

  /** A record that alone has more keys or bytes than the bound. */
  public record Oversized(String stateFileKey, long keys, long bytes) {}

  /**
   * The rows of {@code plan} that fit {@code maxKeys} and {@code maxBytes} (0: no bound of that kind).
   *
   * @param executions the table of the run's earlier attempts, whose deleted records cost nothing
   */
  public static Selection select(SparkSession spark, Dataset<PlanRow> plan, String executions, String runDate, String runId,
      long maxKeys, long maxBytes) {
    requireNonNull(plan, "plan is null");
    if (maxKeys <= 0 && maxBytes <= 0) {
      return Selection.all(plan);
    }
    Dataset<Row> costs = plan.toDF().select(col("stateFileKey").as("key"),
        expr("if(deletes is null, 0L, cast(size(deletes) as bigint))").as("keys"),
        expr("if(deletes is null, 0L, aggregate(deletes, 0L, (total, d) -> total + coalesce(d.size, 0L)))")
            .as("bytes"));
    if (DeltaTable.isDeltaTable(spark, executions)) {
      Dataset<Row> done = spark.read().format("delta").load(executions)
          .filter(col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId))
              .and(col("outcome").isin(Outcome.DELETED.label(), Outcome.ALREADY_DELETED.label())))
          .select(col("state_file_key").as("key")).distinct();
      costs = costs.join(done, costs.col("key").equalTo(done.col("key")), "left_anti");
    }
    Row total = costs.agg(expr("count(*)"), expr("coalesce(sum(keys), 0L)"), expr("coalesce(sum(bytes), 0L)"))
        .first();
    long records = total.getLong(0);
    long keys = total.getLong(1);
    long bytes = total.getLong(2);
    if ((maxKeys <= 0 || keys <= maxKeys) && (maxBytes <= 0 || bytes <= maxBytes)) {
      return Selection.all(plan);
    }
    long keptKeys = 0;
    long keptBytes = 0;
    long keptRecords = 0;
    String last = null;
    String scanned = null;
    Row stop = null;
    List<Oversized> oversized = new java.util.ArrayList<>();
    while (stop == null) {
      Dataset<Row> after = scanned == null ? costs : costs.filter(col("key").gt(scanned));
      List<Row> page = after.orderBy(col("key")).limit(PAGE).collectAsList();
      if (page.isEmpty()) {
        break;
      }
      for (Row row : page) {
        long rowKeys = row.getLong(1);
        long rowBytes = row.getLong(2);
        boolean alone = (maxKeys > 0 && rowKeys > maxKeys) || (maxBytes > 0 && rowBytes > maxBytes);
        if (alone && oversized.size() < MAX_OVERSIZED) {
          oversized.add(new Oversized(row.getString(0), rowKeys, rowBytes));
          scanned = row.getString(0);
          continue;
        }
        if ((maxKeys > 0 && keptKeys + rowKeys > maxKeys) || (maxBytes > 0 && keptBytes + rowBytes > maxBytes)) {
          stop = row;
          break;
        }
        keptKeys += rowKeys;
        keptBytes += rowBytes;
        keptRecords++;
        last = row.getString(0);
        scanned = last;
      }
    }
    if (stop == null && oversized.isEmpty()) {
      return Selection.all(plan);
    }
    // Every row up to the last record that fits, but the oversized: those an earlier attempt deleted are done anyway.
    org.apache.spark.sql.Column upTo = last == null ? org.apache.spark.sql.functions.lit(false)
        : col("stateFileKey").leq(last);
    if (!oversized.isEmpty()) {
      upTo = upTo.and(org.apache.spark.sql.functions.not(col("stateFileKey").isin(
          oversized.stream().map(Oversized::stateFileKey).toArray())));
    }
    return new Selection(plan.filter(upTo), records - keptRecords, keys - keptKeys, bytes - keptBytes,
        stop == null ? null : stop.getString(0), stop == null ? 0 : stop.getLong(1), stop == null ? 0 : stop.getLong(2),
        oversized);
  }
}
