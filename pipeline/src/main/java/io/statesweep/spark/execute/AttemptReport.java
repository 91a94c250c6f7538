package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;

import io.statesweep.api.LogLine;
import io.statesweep.api.Tables;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.config.Settings;
import io.statesweep.cost.PlanCost;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.LineText;
import io.statesweep.plan.RunSummary;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.spark.tables.TableWrites;
import io.statesweep.store.ConditionProbe;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What an execute attempt reports once its ledger is recorded (pipeline/README.md, "The summary line"): its summary
 * from its counts and its plan's, its kept, came-back and bound lines, and its row of {@code runs}.
 */
public final class AttemptReport {
  /** The key of an attempt's row of runs. */
  private static final List<String> RUNS_KEY = List.of("run_date", "attempt_id", "command");
  /** The columns of an execute's row of runs that count its rows of executions. */
  private static final List<String> COUNTED = List.of("records_deleted", "child_keys_deleted", "kept_newer_files",
      "kept_refused", "state_changed", "already_deleted", "changed_during_delete", "came_back_during_delete");

  /** What a row of runs that counts {@code counted} differently from the new one takes of it. */
  private static Map<String, String> recounted(List<String> counted) {
    Map<String, String> updates = new java.util.LinkedHashMap<>();
    counted.forEach(column -> updates.put(column, "s." + column));
    updates.put("complete", "t.complete and s.complete");
    // The attempt's deletes were answered by the time of the latest recording that found them (RecordRestore's proof).
    updates.put("ended_at", "greatest(t.ended_at, s.ended_at)");
    updates.put("failure", "case when t.failure is null then s.failure when s.failure is null"
        + " or instr(t.failure, s.failure) > 0 then t.failure else concat(t.failure, '; then: ', s.failure) end");
    return Map.copyOf(updates);
  }

  private final SparkSession spark;
  private final ExecuteOptions options;

  public AttemptReport(SparkSession spark, ExecuteOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
  }

  /** The attempt's summary: its counts of executions on top of its plan's ({@code plan}, the plan's row of runs). */
  public static RunSummary summary(String runId, Row plan, String attemptId, ConditionalDeleteProbe.Answer conditional,
      ConditionProbe conditionalReads, boolean complete, AttemptCounts counts, long moreErrors) {
    long scanned = plan.<Long>getAs("state_files_scanned");
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("state_changed", Long.toString(counts.stateChanged()));
    extra.put("already_deleted", Long.toString(counts.alreadyDeleted()));
    extra.put("changed_during_delete", Long.toString(counts.changedDuringDelete()));
    extra.put("came_back_during_delete", Long.toString(counts.cameBack()));
    if (counts.cameBack() + counts.restored() > 0) {
      // Records that came back: on a versioned bucket their files may be current again (pipeline/README.md, "Versioned
      // buckets").
      extra.put("restored_after_coming_back", Long.toString(counts.restored()));
      extra.put("files_restored", Long.toString(counts.restoredKeys()));
      extra.put("files_lost", Long.toString(counts.cameBackKeys()));
    }
    if (counts.interrupted() > 0) {
      extra.put("interrupted", Long.toString(counts.interrupted()));
    }
    extra.put("bad_state", Long.toString(plan.<Long>getAs("bad_state")));
    RunsTable.missingFiles(plan).ifPresent(missing -> extra.put("missing_files", Long.toString(missing)));
    extra.put("conditional_deletes", conditional.mode().name().toLowerCase(java.util.Locale.ROOT));
    extra.put("conditional_reads", conditionalReads.verdict().label());
    extra.put("run_id", runId);
    extra.put("attempt_id", attemptId);
    return new RunSummary(false, complete, scanned, counts.deleted(), counts.childKeys(), scanned - counts.deleted(),
        plan.<Long>getAs("kept_newer_files") + counts.keptNewer(), plan.<Long>getAs("kept_refused") + counts.refused(),
        plan.<Long>getAs("skipped"),
        plan.<Long>getAs("errors") + counts.failed() + moreErrors, extra);
  }

  /**
   * One line per record that the attempt kept or failed, never capped by {@code --log-lines} (which caps
   * only a dry run's {@code would delete} lines): refused and coming-back lines are what users alert on. Each goes
   * to {@code lines} as it is read, a bounded partition at a time ({@link LineStream#inOrder}).
   */
  public void logLines(Tables tables, String runDate, String attemptId, AttemptCounts counts, LineStream lines) {
    if (counts.keptLines() == 0 && counts.cameBackKeys() + counts.restoredKeys() == 0) {
      // Counted from the same rows: no line to print, no table to read.
      return;
    }
    Dataset<Row> attemptDS = spark.read().format("delta").load(tables.executions())
        .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId)));
    Dataset<Row> keptDS = attemptDS
        .filter(col("outcome").isin(Outcome.KEPT_NEWER_FILES.label(), Outcome.KEPT_REFUSED.label(),
            Outcome.STATE_CHANGED.label(), Outcome.CHANGED_DURING_DELETE.label(), Outcome.FAILED.label(),
            Outcome.INTERRUPTED.label()))
        .select("state_file_key", "message");
    LineStream.inOrder(keptDS, counts.keptLines(), col("state_file_key"))
        .forEachRemaining(row -> lines.accept(LogLine.kept(row.getString(0), row.getString(1))));
    // A file lost to a record that came back while it went is never silent: one line per key (pipeline/README.md,
    // "Deleting"), and so is one current again (pipeline/README.md, "Versioned buckets").
    Dataset<Row> cameBackDS = attemptDS
        .filter(col("outcome").isin(Outcome.CAME_BACK_DURING_DELETE.label(),
            Outcome.RESTORED_AFTER_COMING_BACK.label()))
        .select(col("state_file_key"), explode(col("deleted")).as("d"))
        .select(col("state_file_key"), col("d.key").as("key"), col("d.restored_version").as("restored_version"));
    LineStream.inOrder(cameBackDS, counts.cameBackKeys() + counts.restoredKeys(), col("state_file_key"), col("key"))
        .forEachRemaining(row -> lines.accept(row.isNullAt(2) ? LogLine.cameBack(row.getString(0), row.getString(1))
            : LogLine.cameBackRestored(row.getString(0), row.getString(1), row.getString(2))));
  }

  /** Lanes named in the summary's {@code slowdowns_by_lane}, those with the most first. */
  static final int SLOWDOWN_LANES_NAMED = 10;

  /**
   * The summary with the SlowDowns the attempt's deletes got (pipeline/README.md, "Deleting at the bucket's speed"):
   * {@code slowdowns}, their number (those the SDK retried included), and {@code slowdowns_by_lane}, the lanes that
   * got the most ({@value #SLOWDOWN_LANES_NAMED} at most, {@code lane:count}, the others counted; a lane's folder
   * names percent-encoded but for letters, digits and {@code . _ - * /}, so that a hostile key's folder can neither
   * split the summary's pairs nor pose as another lane); unchanged when there were none. The metrics JSON has every
   * lane as it is.
   */
  public static RunSummary withSlowDowns(RunSummary summary, Map<String, Long> byLane) {
    if (byLane.isEmpty()) {
      return summary;
    }
    long total = byLane.values().stream().mapToLong(Long::longValue).sum();
    List<Map.Entry<String, Long>> most = new ArrayList<>(byLane.entrySet());
    most.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
    StringBuilder lanes = new StringBuilder();
    for (Map.Entry<String, Long> lane : most.subList(0, Math.min(SLOWDOWN_LANES_NAMED, most.size()))) {
      lanes.append(lanes.length() == 0 ? "" : ",").append(lane.getKey().isEmpty() ? "/" : laneText(lane.getKey()))
          .append(':').append(lane.getValue());
    }
    if (most.size() > SLOWDOWN_LANES_NAMED) {
      lanes.append(",+").append(most.size() - SLOWDOWN_LANES_NAMED).append("_lanes");
    }
    return summary.with("slowdowns", Long.toString(total)).with("slowdowns_by_lane", lanes.toString());
  }

  /** A lane's folder as {@code slowdowns_by_lane} names it: percent-encoded (UTF-8), but for its slashes. */
  static String laneText(String lane) {
    return java.net.URLEncoder.encode(lane, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20")
        .replace("%2F", "/");
  }

  /**
   * A run that stopped at its bound ({@code bound} may be null: the delete phase stopped before it): its summary with
   * what it left, and its lines, sent to {@code lines}; the summary as it was otherwise.
   */
  public RunSummary bounded(RunSummary summary, DeleteBound.Selection bound, LineStream lines) {
    if (bound == null || !bound.bounded()) {
      return summary;
    }
    boundLines(bound, lines);
    return summary.with("deferred_records", Long.toString(bound.deferredRecords()))
        .with("deferred_keys", Long.toString(bound.deferredKeys()));
  }

  /**
   * The lines of a run that stopped at its bound: each record that alone exceeds it (no run with that bound deletes
   * it), and how much it left for the next run, from which record.
   */
  private void boundLines(DeleteBound.Selection bound, LineStream lines) {
    List<String> limits = new ArrayList<>();
    if (options.deletes().maxDeletes() > 0) {
      limits.add(Settings.MAX_DELETES.flag() + " " + options.deletes().maxDeletes());
    }
    if (options.deletes().maxBytes() > 0) {
      limits.add(Settings.MAX_BYTES.flag() + " " + options.deletes().maxBytes());
    }
    String bounds = String.join(", ", limits);
    long oversizedKeys = bound.oversized().stream().mapToLong(DeleteBound.Oversized::keys).sum();
    long oversizedBytes = bound.oversized().stream().mapToLong(DeleteBound.Oversized::bytes).sum();
    for (DeleteBound.Oversized record : bound.oversized()) {
      lines.accept(LogLine.bound(record.stateFileKey(), "left " + LineText.escape(record.stateFileKey()) + " for a"
          + " larger bound: its " + record.keys() + " keys and " + record.bytes() + " bytes exceed the bound (" + bounds
          + "), so no run with this bound deletes it"));
    }
    if (bound.firstDeferred() == null) {
      return;
    }
    lines.accept(LogLine.bound(bound.firstDeferred(), "stopped at the bound (" + bounds + "): "
        + (bound.deferredRecords() - bound.oversized().size()) + " records ("
        + (bound.deferredKeys() - oversizedKeys) + " keys, " + (bound.deferredBytes() - oversizedBytes)
        + " bytes) are left for the next run, from " + LineText.escape(bound.firstDeferred())));
  }

  /** The summary with the attempt's cost pairs; as it was when the attempt is not priced ({@code cost} null). */
  public static RunSummary withCost(RunSummary summary, PlanCost cost) {
    if (cost == null) {
      return summary;
    }
    for (Map.Entry<String, String> pair : cost.attemptPairs().entrySet()) {
      summary = summary.with(pair.getKey(), pair.getValue());
    }
    return summary;
  }

  /**
   * The attempt's row of {@code runs} ({@code plan}: the plan's row): appended, or with
   * {@link LedgerRecorder.Write#INSERT_NEW} inserted unless the attempt has its row already; a row it has already
   * takes the counts that {@code counts} (read from {@code executions} after a later recording added to the attempt's
   * rows) says now, is complete only if both say so, and keeps its failure with the new one after it. Counts that were
   * not read from the table ({@link AttemptCounts#NONE}: the ledger could not be recorded) change no row.
   */
  public void writeRun(Tables tables, Row plan, String attemptId, Instant startedAt, String conditional,
      RunSummary summary, AttemptCounts counts, String failure, PlanCost cost, LedgerRecorder.Write write) {
    RunsTable.RunRow row = new RunsTable.RunRow(plan.getAs("run_id"), plan.getAs("run_date"), attemptId, "execute",
        startedAt, Instant.now(), plan.<java.sql.Timestamp>getAs("planned_at").toInstant(), options.export().bucket(),
        options.export().prefix().value(), plan.getAs("layout"), plan.getAs("layout_fingerprint"),
        plan.<Integer>getAs("grace_days"), options.export().settings(),
        conditional, 0, 0, 0, plan.<Long>getAs("bad_state"), plan.<Long>getAs("not_yet_due"), counts.stateChanged(),
        counts.alreadyDeleted(), counts.changedDuringDelete(), counts.cameBack(), summary, failure,
        RunsTable.Source.NONE, cost);
    if (write == LedgerRecorder.Write.APPEND) {
      TableWrites.append(RunsTable.dataset(spark, row), tables, Tables.RUNS);
      return;
    }
    // The attempt may have its row already: it stopped after writing it, or another run recorded it first; a later
    // recording of its ledger (objects that could not be read, answers written after the first) adds to its counts.
    Map<String, String> shared = Map.of("run_date", row.runDate(), "attempt_id", attemptId);
    java.util.Set<String> held = counts == AttemptCounts.NONE || !io.delta.tables.DeltaTable.isDeltaTable(spark,
        tables.runs()) ? java.util.Set.of() : java.util.Set.of(spark.read().format("delta").load(tables.runs())
        .columns());
    List<String> counted = COUNTED.stream().filter(held::contains).toList();
    if (counted.isEmpty()) {
      TableWrites.insertNew(RunsTable.dataset(spark, row), tables, Tables.RUNS, RUNS_KEY, shared);
    } else {
      TableWrites.insertOrUpdate(RunsTable.dataset(spark, row), tables, Tables.RUNS, RUNS_KEY, shared,
          String.join(" or ", counted.stream().map(column -> "not (t." + column + " <=> s." + column + ")").toList()),
          recounted(counted));
    }
  }
}
