package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.config.ExecuteOptions;
import io.statesweep.config.ExportOptions;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.ledger.LedgerEntry;
import io.statesweep.plan.LineText;
import io.statesweep.plan.Planner;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.run.Spread;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ObjectStore;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;

/**
 * An execute attempt's delete phase (pipeline/README.md, "Deleting"): the probes of the conditions it sends, the plan's
 * rows within the run's bound ({@link DeleteBound}), and the Spark job whose tasks verify each record and delete its
 * keys, writing the attempt's ledger before and after each window ({@link ExecuteFunctions}). Its jobs carry the
 * attempt's tag while they may run, so that a {@link Cancellation} stops them. What stops the phase (a failure, a
 * cancellation) is its result, never thrown: the attempt's ledger is recorded whatever became of the tasks.
 */
public final class DeletePhase {
  /**
   * What the delete phase left.
   *
   * @param conditional the store's answer to conditional deletes (unverified when the probe did not run)
   * @param conditionalReads whether the store honours GET If-Match, as the probe found
   * @param bound the rows within the run's bound; null when the phase stopped before it
   * @param done whether the delete job completed
   * @param stopped what stopped the phase, or null
   */
  public record Deleted(ConditionalDeleteProbe.Answer conditional, ConditionProbe conditionalReads,
      DeleteBound.Selection bound, boolean done, Exception stopped) {}

  /**
   * Why an attempt's deletes were cancelled, and the tag of its delete phase's jobs while they may run: cancelled from
   * any thread (the run lock's, when the lock is lost), looked at by the phase before each of its steps.
   */
  public static final class Cancellation {
    private volatile String because;
    private volatile String tag;

    /** Records {@code why} (the first reason stays); returns the tag of the jobs to cancel now, or null when none runs. */
    public String cancel(String why) {
      requireNonNull(why, "why is null");
      synchronized (this) {
        if (because == null) {
          because = why;
        }
      }
      return tag;
    }

    /** Why the deletes were cancelled, or null. */
    public String because() {
      return because;
    }

    private void stopIfCancelled() {
      String why = because;
      if (why != null) {
        throw new IllegalStateException(why);
      }
    }
  }

  private final SparkSession spark;
  private final ExecuteOptions options;
  private final ExecutionHook hook;
  private final Cancellation cancellation;
  private final Logger log;

  /** @param log the logger of the execute whose phase this is, whose lines these are */
  public DeletePhase(SparkSession spark, ExecuteOptions options, ExecutionHook hook, Cancellation cancellation,
      Logger log) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.cancellation = requireNonNull(cancellation, "cancellation is null");
    this.log = requireNonNull(log, "log is null");
  }

  /** Probes {@code store}, bounds the run and deletes, its jobs tagged {@code tag}: see the class. */
  public Deleted run(Attempt attempt, S3ObjectStore store, String tag) {
    ConditionalDeleteProbe.Answer conditional = new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON,
        "unverified: the probe did not run");
    ConditionProbe conditionalReads = ConditionProbe.unverified("the probe did not run");
    DeleteBound.Selection bound = null;
    String runId = attempt.runId();
    try {
      cancellation.stopIfCancelled();
      ConditionalDeleteProbe.Findings probed = probes(store, runId, attempt.attemptId());
      conditional = probed.deletes();
      conditionalReads = probed.reads();
      attempt.metrics().addRequests(store.requestCounts());
      log.info("Run {}: executing its plan as attempt {} (conditional deletes {}; conditional reads {})", runId,
          attempt.attemptId(), LineText.escape(conditional.describe()), LineText.escape(conditionalReads.describe()));
      attempt.phases().begin("delete", "Verifying and deleting the planned keys of run " + runId);
      spark.sparkContext().addJobTag(tag);
      cancellation.tag = tag;
      cancellation.stopIfCancelled();
      // A bounded run deletes whole records up to --max-deletes keys and --max-bytes bytes; the rest waits.
      bound = DeleteBound.select(spark, attempt.plan().rows(), attempt.tables().executions(), attempt.plan().runDate(),
          runId, options.deletes().maxDeletes(), options.deletes().maxBytes());
      deleteRecords(attempt, bound.rows(), conditional.mode());
      return new Deleted(conditional, conditionalReads, bound, true, null);
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      return new Deleted(conditional, conditionalReads, bound, false, e);
    } finally {
      cancellation.tag = null;
      spark.sparkContext().removeJobTag(tag);
    }
  }

  /**
   * The attempt's probes of the conditions it sends: GET If-Match and (with {@code auto}) DeleteObjects ETags.
   * A store that ignores If-Match costs no safety, as every conditional read compares the ETag of its answer
   * too (pipeline/README.md, "Deleting"): the probe names it, in the log and the summary.
   */
  private ConditionalDeleteProbe.Findings probes(ObjectStore store, String runId, String attemptId) {
    ConditionalDeleteProbe.Findings findings = options.export().prefix().isBucketRoot()
        ? ConditionalDeleteProbe.Findings.atBucketRoot(options.deletes().conditionalDeletes())
        : ConditionalDeleteProbe.detect(store, probeKey(attemptId), options.deletes().conditionalDeletes());
    if (findings.reads().ignored()) {
      log.warn("Run {}: conditional reads {}: every state file read is checked against the ETag of its answer",
          runId, LineText.escape(findings.reads().describe()));
    }
    return findings;
  }

  /** statesweep's own key beside the export prefix, such as {@code cogram.statesweep/probe-<attempt>}. */
  private String probeKey(String attemptId) {
    String prefix = options.export().prefix().value();
    return prefix.substring(0, prefix.length() - 1) + ".statesweep/probe-" + attemptId;
  }

  /** The delete job: the records verified and deleted in parallel tasks, each task with its share of the ceiling. */
  private void deleteRecords(Attempt attempt, Dataset<PlanRow> planDS, ConditionalDeletes conditional) {
    attempt.progress().phase("delete", "records_verified", planDS.count());
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    int ceiling = options.deletes().maxDeletesPerSecond();
    // Each task that can run at once gets its share of the ceiling, at least one key per second: under
    // a ceiling below the cores, as many partitions as keys per second, so no more tasks run at once.
    int partitions = DeleteTasks.deletePartitions(parallelism, ceiling, options.deletes().pacing() != null);
    double perTask = DeleteTasks.keysPerSecondPerTask(parallelism, ceiling);
    ExportOptions export = options.export();
    KeyClassifier classifier = export.layout().classifier(export.prefix());
    // The planner's decision is made again at execution, with this run's grace periods: a row may only narrow it.
    Planner planner = new Planner(classifier, export.gracePolicy());
    LedgerEntry.Header ledgerHeader = new LedgerEntry.Header(attempt.runId(), attempt.plan().runDate(),
        attempt.attemptId(), attempt.tables().warehouse(), 0, 0, 0, attempt.startedAt());
    // Every window writes what it is about to delete, then what it did, to the attempt's ledger: executions is
    // built from that afterwards, whatever becomes of the tasks, never from their output.
    Spread.byKeyRange(planDS, partitions, "stateFileKey")
        .foreachPartition(new ExecuteFunctions.ExecuteRecords(planner, export.maxStateBytes(), export.s3(),
            export.bucket(), options.deletes().batchSize(), conditional, perTask, options.deletes().pacing(),
            export.prefix().value(), options.deletes().laneDepth(), hook, ledgerHeader,
            attempt.ledger().folder(attempt.runId(), attempt.attemptId()), export.workers(), attempt.metrics()));
  }
}
