package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LockOutcome;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.cost.PlanCost;
import io.statesweep.cost.PriceTable;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.plan.LineText;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.execute.AttemptCounts;
import io.statesweep.spark.execute.AttemptReport;
import io.statesweep.spark.execute.DeleteBound;
import io.statesweep.spark.execute.DeleteTasks;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.execute.LeftoverLedgers;
import io.statesweep.spark.execute.Attempt;
import io.statesweep.spark.execute.AttemptPhases;
import io.statesweep.spark.execute.DeletePhase;
import io.statesweep.spark.execute.ReviewedPlan;
import io.statesweep.spark.plan.PlanCosts;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.tables.CatalogTables;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes a written plan exactly as planned: only the keys of its {@code deletion_plan} rows, each
 * record verified right before its keys go (see {@link io.statesweep.execute.RecordExecutor}), in
 * parallel Spark tasks. Every attempt appends one row per record to {@code executions} and one row to
 * {@code runs}. Running it again after a crash finishes the rest and deletes nothing twice.
 *
 * <p>It holds the export's run lock while it runs (pipeline/README.md, "One run at a time"): {@link #execute()} throws
 * {@link io.statesweep.api.failures.RunLockException.Held} while another run holds it, {@link
 * io.statesweep.api.failures.RunLockException.Denied} when the store denies the lock's permissions (an action that
 * deletes never goes on without the lock), {@link io.statesweep.api.failures.RunLockException.Untrusted} when the store
 * ignores the lock's {@code If-None-Match: *} (unless {@code --unsafe-lock-without-conditional-writes}) and {@link
 * io.statesweep.api.failures.RunLockException.Unavailable} when it cannot be taken for another reason; in each case
 * nothing is read or deleted. The moment the lock is lost its deletes are {@linkplain #cancel cancelled}, and the
 * result says so ({@link ExecuteResult#runLock()}).
 *
 * <p>A plan made by another job must be approved first ({@link SparkApproveAction}; see {@link #execute()}).
 */
final class SparkExecuteAction {
  private static final Logger LOG = LoggerFactory.getLogger(SparkExecuteAction.class);

  private final SparkSession spark;
  private final ExecuteOptions options;
  private final ExportOptions export;
  /** The plan executed: given, or with {@link #latestApproved} found under the run lock. */
  private String runId;
  private final boolean latestApproved;
  private ExecutionHook hook = ExecutionHook.NONE;
  /** The plan of this same job, as its result ({@link #plannedInThisJob}); null for a plan made elsewhere. */
  private PlanResult ownPlan;
  private Clock clock = Clock.systemUTC();
  private java.util.function.Consumer<LogLine> sink = line -> { };
  /** Why the deletes were cancelled, and the tag of the delete phase's jobs while they may run. */
  private final DeletePhase.Cancellation cancellation = new DeletePhase.Cancellation();
  /** The lock of the action this execute runs in ({@link SparkRunAction}), or null: it takes its own. */
  private ActionLock heldLock;
  /** The attempt's summary, lines and row of runs. */
  private final AttemptReport report;

  SparkExecuteAction(SparkSession spark, ExecuteOptions options, String runId) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.export = options.export();
    this.runId = requireNonNull(runId, "runId is null");
    this.latestApproved = false;
    this.report = new AttemptReport(this.spark, this.options);
  }

  private SparkExecuteAction(SparkSession spark, ExecuteOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.export = options.export();
    this.runId = null;
    this.latestApproved = true;
    this.report = new AttemptReport(this.spark, this.options);
  }

  /**
   * The execute of the newest approved complete plan of the options' bucket and prefix, made within
   * {@code max-plan-age} and not yet executed completely ({@code execute --latest-approved}, the scheduled
   * approval-gated job): found under the run lock, then checked and executed as {@code execute --run-id} is. With
   * none, {@link #execute()} deletes nothing and returns a complete result that says why
   * ({@link ExecuteResult#notExecuted()}).
   */
  static SparkExecuteAction latestApproved(SparkSession spark, ExecuteOptions options) {
    return new SparkExecuteAction(spark, options);
  }

  /** A hook into every executor's deletes (tests: a crash after N batches, a write between verify and delete). */
  SparkExecuteAction hook(ExecutionHook newHook) {
    this.hook = requireNonNull(newHook, "hook is null");
    return this;
  }

  /**
   * The plan was made by this same job ({@code run --execute}, {@link SparkRunAction}): the scheduled, unattended
   * path, which needs no approval. The plan passes as the value its {@link SparkPlanAction} returned: only a complete
   * plan of that action, of this action's run id, qualifies, and {@link #execute()} refuses any other value.
   */
  SparkExecuteAction plannedInThisJob(PlanResult plan) {
    this.ownPlan = requireNonNull(plan, "plan is null");
    return this;
  }

  /**
   * Where the attempt's per-record lines go, each as it is produced (the command line prints them); by default
   * nowhere. The result keeps the first {@link LogLine#RESULT_SAMPLE} of them and how many of each kind there were.
   */
  SparkExecuteAction lines(java.util.function.Consumer<LogLine> newSink) {
    this.sink = requireNonNull(newSink, "sink is null");
    return this;
  }

  /** The clock that says how old the plan is (tests). */
  SparkExecuteAction clock(Clock newClock) {
    this.clock = requireNonNull(newClock, "clock is null");
    return this;
  }

  /**
   * Stops this action's deletes at once; callable from any thread, such as the run lock's when the lock
   * is lost. The running jobs of the delete phase are cancelled, one that starts later is cancelled as
   * it starts, and a task still running sends no further DeleteObjects request (one in flight may
   * finish). {@link #execute()} then returns an incomplete result whose failure gives {@code why}. Called
   * before the delete phase, nothing is deleted; called after it, nothing changes (the deletes are done).
   */
  void cancel(String why) {
    String tag = cancellation.cancel(requireNonNull(why, "why is null"));
    if (tag != null) {
      LOG.error("Run {}: cancelling its deletes: {}", runId, LineText.escape(why));
      spark.sparkContext().cancelJobsWithTag(tag);
    }
  }

  /** Runs under the lock of the action that runs this execute, which releases it ({@link SparkRunAction}). */
  SparkExecuteAction underLock(ActionLock lock) {
    this.heldLock = requireNonNull(lock, "lock is null").shared();
    return this;
  }

  /**
   * Takes the run lock, checks that the plan may be executed, executes it and releases the lock. A plan
   * that may not be executed (another bucket, prefix or layout; older than {@code max-plan-age}; not approved,
   * or changed since its approval) is refused with a {@link PlanRefusedException} that says what to do,
   * and nothing is deleted. An attempt that stops returns a result that says why.
   */
  ExecuteResult execute() {
    String label = latestApproved ? "execute --latest-approved" : "execute --run-id " + runId;
    try (ActionSettings settings = ActionSettings.of(spark);
        ActionLock lock = heldLock != null ? heldLock : ActionLock.toDelete(export, options.deletes(), label)) {
      if (!lock.taken()) {
        throw new IllegalStateException("The " + label + " needs the run lock " + lock.key()
            + ", and the run it is part of has none: nothing was deleted");
      }
      if (latestApproved) {
        Tables tables = new Tables(export.warehouse(), export.catalogSchema());
        SparkApproveAction.LatestApproved found = SparkApproveAction.latestApproved(spark, tables, export.bucket(),
            export.prefix().value(), options.maxPlanAge(), clock.instant());
        if (found.runId() == null) {
          LOG.info("Nothing to execute: {}", LineText.escape(found.why()));
          return SparkExecuteResult.nothingToExecute(tables, found.why(), lock.outcome());
        }
        runId = found.runId();
        LOG.info("Executing the newest approved plan of s3://{}/{}: run {}", export.bucket(),
            LineText.escape(export.prefix().value()), LineText.escape(runId));
      }
      // From the moment the lock is lost no delete is sent: another run may hold it.
      lock.onLost(() -> cancel("lost the run lock " + lock.key() + ": " + lock.lossReason()));
      return executeLocked(lock);
    }
  }

  /**
   * The attempt, in its steps: record the ledgers left by attempts whose driver died ({@link LeftoverLedgers}); read
   * and check the plan ({@link ReviewedPlan}); probe the store, bound the run and delete ({@link DeletePhase}); record
   * the ledger, count and summarise, the cost included ({@link #recordAndCount}).
   */
  private ExecuteResult executeLocked(ActionLock lock) {
    Tables tables = new Tables(export.warehouse(), export.catalogSchema());
    Instant startedAt = Instant.now();
    // A table name taken elsewhere stops the execute here, before anything is deleted.
    CatalogTables.registerAll(spark, tables);
    String attemptId = RunContext.start(startedAt, export.graceDays()).runId();
    RunMetrics metrics = RunMetrics.register(spark.sparkContext());
    LedgerRecorder ledger = new LedgerRecorder(spark, options, metrics);
    // The ledger of an attempt whose driver died is recorded before anything is deleted.
    List<String> recordedBefore = new LeftoverLedgers(spark, options, ledger, report, LOG).record(tables, attemptId);
    ReviewedPlan plan = reviewedPlan(tables);
    S3ObjectStore store = S3ObjectStore.open(export.s3(), export.bucket());
    // What this attempt costs: its requests at the region's list prices, the lock's included: all of them for a
    // lock it took, those since it began for the lock of the run it is part of (the plan counted the rest).
    Map<String, Long> lockBefore = heldLock != null ? PlanCosts.sentBy(lock.requestCounts()) : Map.of();
    PriceTable prices = priceTable();
    Progress progress = Progress.every(export.progressSeconds(), metrics, runId);
    Attempt attempt = new Attempt(runId, attemptId, startedAt, tables, plan, metrics, ledger, lock, recordedBefore,
        prices, lockBefore, progress, new AttemptPhases(spark, LOG), new LineStream(sink));
    // The jobs of this attempt's delete phase carry a tag of their own, for cancel() to find them.
    String tag = "statesweep-delete-" + attemptId;
    SparkListener lateJobs = DeleteTasks.cancelWhenStarted(spark.sparkContext(), tag, cancellation::because);
    DeleteTasks deleteTasks = DeleteTasks.watch(spark.sparkContext(), tag);
    DeletePhase.Deleted deleted = new DeletePhase(spark, options, hook, cancellation, LOG).run(attempt, store, tag);
    try {
      return recordAndCount(attempt, deleted, deleteTasks);
    } catch (Exception e) {
      return unrecorded(attempt, deleted, e);
    } finally {
      deleteTasks.close(spark.sparkContext());
      spark.sparkContext().removeSparkListener(lateJobs);
      progress.close();
      spark.sparkContext().clearJobGroup();
    }
  }

  /** The plan to execute, read and checked ({@link ReviewedPlan}); what let it through is logged. */
  private ReviewedPlan reviewedPlan(Tables tables) {
    ReviewedPlan.Origin origin = ownPlan == null ? ReviewedPlan.Origin.ANOTHER_JOB
        : madeHere(ownPlan) ? ReviewedPlan.Origin.THIS_JOB : ReviewedPlan.Origin.NOT_THIS_JOBS;
    ReviewedPlan plan = ReviewedPlan.check(spark, options, tables, runId, clock, origin,
        () -> SparkApproveAction.approvals(spark, tables, runId));
    if (options.skipApproval()) {
      LOG.warn("Run {}: executing without checking for an approval (--skip-approval)", runId);
    }
    ReviewedPlan.Approval approval = plan.approval();
    if (approval != null) {
      LOG.info("Run {}: approved by {} at {}; its {} plan rows match the approved digest {}", runId,
          LineText.escape(approval.by()), approval.at(), approval.rows(), approval.digest());
    }
    return plan;
  }

  /** Whether {@code plan} is a complete plan of this run id that a {@link SparkPlanAction} of this JVM made. */
  private boolean madeHere(PlanResult plan) {
    return plan instanceof SparkPlanResult made && made.runId().equals(runId) && made.failure() == null;
  }

  /** The region's list prices; null, with a warning, when they cannot be read (the attempt is not priced). */
  private PriceTable priceTable() {
    try {
      return PlanCosts.priceTable(spark, export);
    } catch (RuntimeException e) {
      LOG.warn("Run {}: this attempt's cost is not priced: {}", runId, LineText.escape(e.getMessage()));
      return null;
    }
  }

  /**
   * Once no delete task runs: the attempt's rows of executions, recorded from its ledger; then its counts, lines,
   * cost, summary and row of runs ({@link #summarise}).
   */
  private ExecuteResult recordAndCount(Attempt attempt, DeletePhase.Deleted deleted, DeleteTasks deleteTasks) {
    // A failed or cancelled job ends while its other tasks may still be finishing a window: they end first.
    boolean tasksEnded = deleteTasks.awaitEnded(spark.sparkContext(), TASKS_END_WITHIN);
    if (!tasksEnded) {
      LOG.error("Run {} attempt {}: {} of its delete tasks still run after {}; its ledger is recorded now, and what"
          + " they record later is recorded by the next execute, which keeps the ledger until then", runId,
          attempt.attemptId(), deleteTasks.running(), TASKS_END_WITHIN);
    }
    attempt.phases().end("delete");
    attempt.phases().begin("record", "Recording what the attempt deleted, from its ledger");
    attempt.progress().phase("record", null, -1);
    // Its own rows, which no other run records while this one holds the lock; after a loss, the next run may.
    boolean lockHeld = attempt.lock().outcome().status() == LockOutcome.Status.HELD;
    LedgerRecorder.Write write = lockHeld ? LedgerRecorder.Write.APPEND : LedgerRecorder.Write.INSERT_NEW;
    LedgerRecorder.Recorded recorded = attempt.ledger().record(runId, attempt.attemptId(), attempt.plan().runDate(),
        attempt.tables(), write, tasksEnded, attempt.metrics().recordsVerified.value());
    attempt.phases().end("record");
    attempt.phases().begin("summary", "Counting the attempt");
    attempt.progress().phase("summary", null, -1);
    return summarise(attempt, deleted, recorded, write);
  }

  /** The attempt's counts, lines, cost and summary, and its row of runs (written as its rows of executions were). */
  private ExecuteResult summarise(Attempt attempt, DeletePhase.Deleted deleted, LedgerRecorder.Recorded recorded,
      LedgerRecorder.Write write) {
    String failure = failure(attempt, deleted, recorded);
    String runDate = attempt.plan().runDate();
    AttemptCounts counts = recorded.appended() != null ? AttemptCounts.of(recorded.appended())
        : AttemptCounts.of(spark, attempt.tables(), runDate, attempt.attemptId());
    RunSummary summary = AttemptReport.summary(runId, attempt.plan().run(), attempt.attemptId(),
        deleted.conditional(), deleted.conditionalReads(), failure == null, counts,
        (deleted.stopped() != null ? 1 : 0) + recorded.unreadable());
    if (!attempt.recordedBefore().isEmpty()) {
      summary = summary.with("ledgers_recorded", String.join(",", attempt.recordedBefore()));
    }
    summary = AttemptReport.withSlowDowns(summary, attempt.metrics().slowDownsByLane());
    report.logLines(attempt.tables(), runDate, attempt.attemptId(), counts, attempt.lines());
    summary = report.bounded(summary, deleted.bound(), attempt.lines());
    PlanCost cost = null;
    try {
      cost = attemptCost(attempt);
      summary = AttemptReport.withCost(summary, cost);
    } catch (RuntimeException costFailure) {
      LOG.warn("Run {}: cannot price attempt {}: {}", runId, attempt.attemptId(),
          LineText.escape(RootMessage.of(costFailure)));
    }
    report.writeRun(attempt.tables(), attempt.plan().run(), attempt.attemptId(), attempt.startedAt(),
        deleted.conditional().describe(), summary, counts, failure, cost, write);
    attempt.phases().end("summary");
    return result(attempt, summary, deleted.conditional(), failure);
  }

  /** Why the attempt did not complete, or null: its delete phase stopped, or part of its ledger cannot be read. */
  private String failure(Attempt attempt, DeletePhase.Deleted deleted, LedgerRecorder.Recorded recorded) {
    String why = cancellation.because();
    Exception stopped = deleted.stopped();
    String failure = stopped == null ? null
        : why != null && !deleted.done() ? "its deletes were cancelled: " + why : RootMessage.of(stopped);
    if (stopped != null) {
      LOG.error("Run {} attempt {} did not complete: {}", runId, attempt.attemptId(), LineText.escape(failure),
          stopped);
    }
    if (recorded.unreadable() > 0) {
      String unreadable = recorded.unreadable() + " objects of its ledger cannot be read (see the log): they stay"
          + " under s3://" + export.bucket() + "/" + attempt.ledger().folder(runId, attempt.attemptId());
      failure = failure == null ? unreadable : failure + "; " + unreadable;
    }
    return failure;
  }

  /**
   * The result of an attempt whose ledger could not be recorded ({@code e}): it stays in the bucket, and the next
   * execute records it first. Its row of runs says so, unless that cannot be written either.
   */
  private ExecuteResult unrecorded(Attempt attempt, DeletePhase.Deleted deleted, Exception e) {
    String attemptId = attempt.attemptId();
    String failure = (deleted.stopped() != null ? RootMessage.of(deleted.stopped()) + "; " : "")
        + "cannot record what it deleted from its ledger, which stays under s3://" + export.bucket() + "/"
        + attempt.ledger().folder(runId, attemptId) + " for the next execute to record: " + RootMessage.of(e);
    LOG.error("Run {} attempt {} did not complete: {}", runId, attemptId, LineText.escape(failure), e);
    RunSummary summary = AttemptReport.summary(runId, attempt.plan().run(), attemptId, deleted.conditional(),
        deleted.conditionalReads(), false, AttemptCounts.NONE, 1);
    try {
      report.writeRun(attempt.tables(), attempt.plan().run(), attemptId, attempt.startedAt(),
          deleted.conditional().describe(), summary, AttemptCounts.NONE, failure, null, LedgerRecorder.Write.INSERT_NEW);
    } catch (RuntimeException writeFailure) {
      LOG.error("Cannot record attempt {} in {}: {}", attemptId, LineText.escape(attempt.tables().runs()),
          LineText.escape(RootMessage.of(writeFailure)));
    }
    attempt.phases().end("failed");
    return result(attempt, summary, deleted.conditional(), failure);
  }

  /** The attempt's result: its summary with the lock's and {@code --fail-on}'s pairs, its lines and metrics. */
  private SparkExecuteResult result(Attempt attempt, RunSummary summary, ConditionalDeleteProbe.Answer conditional,
      String failure) {
    LockOutcome runLock = attempt.lock().outcome();
    return new SparkExecuteResult(runId, attempt.attemptId(), export.failOn().appliedTo(runLock.appliedTo(summary)),
        attempt.tables(), conditional.describe(), attempt.lines().sample(), attempt.lines().counts(), failure,
        Metrics.of(attempt.metrics().json("execute", runId, attempt.attemptId(), summary, attempt.phases().seconds())),
        runLock, null);
  }

  /** The attempt's requests so far, priced; null when no price table could be read. */
  private PlanCost attemptCost(Attempt attempt) {
    if (attempt.prices() == null) {
      return null;
    }
    Map<String, Long> lockSince = new java.util.TreeMap<>(PlanCosts.sentBy(attempt.lock().requestCounts()));
    attempt.lockBefore().forEach((operation, count) -> lockSince.merge(operation, -count, Long::sum));
    lockSince.values().removeIf(count -> count <= 0);
    PlanCosts.Region region = PlanCosts.region(export);
    PlanCost cost = PlanCost.ofAttempt(attempt.prices(), region.name(), region.from(),
        PlanCosts.plus(PlanCosts.sent(attempt.metrics().requests()), lockSince));
    LOG.info("Run {}: this attempt sent {} S3 requests {}, ${} at the list prices of {} ({})", runId,
        cost.requestCount(), cost.requests(), cost.attemptPairs().get("cost_usd"), LineText.escape(region.name()),
        LineText.escape(region.from()));
    return cost;
  }

  /** How long the driver waits for the delete phase's last tasks to end before it records the ledger anyway. */
  private static final Duration TASKS_END_WITHIN = Duration.ofMinutes(10);
}
