package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.Tables;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.plan.LineText;
import io.statesweep.plan.RunSummary;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.store.ConditionProbe;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;

/**
 * The ledgers of attempts whose driver stopped before recording them (pipeline/README.md, "Every delete on the
 * record"), recorded by the next execute before it deletes anything: each one's rows of executions under its own run
 * and attempt, and its row of runs ({@code complete=false}, with what it really deleted).
 */
public final class LeftoverLedgers {
  private final SparkSession spark;
  private final ExecuteOptions options;
  private final LedgerRecorder ledger;
  private final AttemptReport report;
  private final Logger log;

  /** @param log the logger of the execute that records them, whose lines these are */
  public LeftoverLedgers(SparkSession spark, ExecuteOptions options, LedgerRecorder ledger, AttemptReport report,
      Logger log) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.ledger = requireNonNull(ledger, "ledger is null");
    this.report = requireNonNull(report, "report is null");
    this.log = requireNonNull(log, "log is null");
  }

  /**
   * Records every leftover ledger, by attempt {@code attemptId}, into the warehouse each names ({@code tables} when it
   * is theirs). Returns the attempts recorded; throws when one cannot be, and then nothing is deleted.
   */
  public List<String> record(Tables tables, String attemptId) {
    return record(tables, attemptId, null, "attempt " + attemptId);
  }

  /**
   * As {@link #record(Tables, String)}, the ledgers of run {@code onlyRunId} alone when it is not null, recorded by
   * {@code by} (as the runs row of each says: {@code attempt <id>}, {@code restore <id>}).
   */
  public List<String> record(Tables tables, String attemptId, String onlyRunId, String by) {
    List<String> recorded = new ArrayList<>();
    for (LedgerRecorder.Leftover leftover : ledger.leftovers(attemptId, onlyRunId)) {
      // Its rows go where its run's plan is: the warehouse the ledger names.
      Tables into = leftover.warehouse().equals(tables.warehouse()) ? tables : new Tables(leftover.warehouse());
      String folder = ledger.folder(leftover.runId(), leftover.attemptId());
      LedgerRecorder.Recorded done;
      try {
        done = ledger.record(leftover.runId(), leftover.attemptId(), leftover.runDate(), into,
            LedgerRecorder.Write.INSERT_NEW, true, -1);
      } catch (RuntimeException e) {
        throw new IllegalStateException("Cannot record the ledger s3://" + options.export().bucket() + "/" + folder
            + " of run " + leftover.runId() + " attempt " + leftover.attemptId() + ", which stopped before recording"
            + " what it deleted; nothing is deleted until it is recorded: " + RootMessage.of(e), e);
      }
      AttemptCounts counts = AttemptCounts.of(spark, into, leftover.runDate(), leftover.attemptId());
      writeRun(leftover, into, by, counts, done.unreadable());
      log.warn("Run {} attempt {} stopped before it recorded what it deleted: recorded from its ledger in {}: {}"
          + " records deleted, {} other keys deleted", LineText.escape(leftover.runId()),
          LineText.escape(leftover.attemptId()), LineText.escape(into.executions()), counts.deleted(), counts.childKeys());
      recorded.add(leftover.attemptId());
    }
    return recorded;
  }

  /** The leftover attempt's row of runs, recorded by {@code attemptId}, unless it has one. */
  private void writeRun(LedgerRecorder.Leftover leftover, Tables into, String by, AttemptCounts counts,
      long unreadable) {
    String failure = "its driver stopped before it recorded what it deleted; recorded from its ledger by " + by
        + (unreadable > 0 ? "; " + unreadable + " objects of its ledger cannot be read" : "");
    try {
      Row plan = RunsTable.planRow(spark, into, leftover.runId());
      RunSummary summary = AttemptReport.summary(leftover.runId(), plan, leftover.attemptId(),
          new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON, "unknown"),
          ConditionProbe.unverified("unknown: recorded from its ledger"), false, counts, 1 + unreadable);
      // Its row, unless it has one (it stopped after writing it, before removing its ledger).
      report.writeRun(into, plan, leftover.attemptId(), counts.startedAt(), "unknown: recorded from its ledger",
          summary, counts, failure, null, LedgerRecorder.Write.INSERT_NEW);
    } catch (IllegalArgumentException e) {
      log.warn("Run {} attempt {}: its executions are recorded, but not its row of {}: {}",
          LineText.escape(leftover.runId()), LineText.escape(leftover.attemptId()), LineText.escape(into.runs()),
          LineText.escape(e.getMessage()));
    }
  }
}
