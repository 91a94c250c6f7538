package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LockOutcome;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.config.RunOptions;
import io.statesweep.cost.PlanCost;
import io.statesweep.cost.PriceTable;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.ledger.LedgerEntry;
import io.statesweep.plan.LineText;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.execute.AttemptCounts;
import io.statesweep.spark.execute.AttemptReport;
import io.statesweep.spark.execute.DeleteBound;
import io.statesweep.spark.execute.DeleteTasks;
import io.statesweep.spark.execute.ExecuteFunctions;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.execute.LeftoverLedgers;
import io.statesweep.spark.execute.PhaseTimes;
import io.statesweep.spark.execute.ReviewedPlan;
import io.statesweep.spark.plan.PlanCosts;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.Spread;
import io.statesweep.spark.tables.CatalogTables;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes a written plan exactly as planned: only the keys of its {@code deletion_plan} rows, each
 * record verified right before its keys go (see {@link io.statesweep.execute.RecordExecutor}), in
 * parallel Spark tasks. Every attempt appends one row per record to {@code executions} and one row to
 * {@code runs}. Running it again after a crash finishes the rest and deletes nothing twice.
 *
 * <p>It holds the export's run lock while it runs (README, "One run at a time"): {@link #execute()} throws
 * {@link io.statesweep.api.failures.RunLockException.Held} while another run holds it,
 * {@link io.statesweep.api.failures.RunLockException.Denied} when the store denies the lock's permissions (an action that
 * deletes never goes on without the lock), {@link io.statesweep.api.failures.RunLockException.Untrusted} when the store
 * ignores the lock's {@code If-None-Match: *} (unless {@code --unsafe-lock-without-conditional-writes}) and
 * {@link io.statesweep.api.failures.RunLockException.Unavailable} when it cannot be taken for another reason; in each
 * case nothing is read or deleted. The moment the lock is lost its
 * deletes are {@linkplain #cancel cancelled}, and the result says so ({@link ExecuteResult#runLock()}).
 *
 * <p>A plan made by another job must be approved first ({@link SparkApproveAction}; see {@link #execute()}).
 */
final class SparkExecuteAction {
  private static final Logger LOG = LoggerFactory.getLogger(SparkExecuteAction.class);
  private static final String JOB_GROUP = "statesweep-execute";

  private final SparkSession spark;
  private final RunOptions options;
  /** The plan executed: given, or with {@link #latestApproved} found under the run lock. */
  private String runId;
  private final boolean latestApproved;
  private ExecutionHook hook = ExecutionHook.NONE;
  /** The plan of this same job, as its result ({@link #plannedInThisJob}); null for a plan made elsewhere. */
  private PlanResult ownPlan;
  private Clock clock = Clock.systemUTC();
  private java.util.function.Consumer<LogLine> sink = line -> { };
  private volatile String cancelledBecause;
  private volatile String deleteTag;
  /** The lock of the action this execute runs in ({@link SparkRunAction}), or null: it takes its own. */
  private ActionLock heldLock;
  /** Whether the store honours GET If-Match, as this attempt's probe found (summary pair conditional_reads). */
  private volatile ConditionProbe conditionalReads = ConditionProbe.unverified("the probe did not run");
  /** The attempt's summary, lines and row of runs. */
  private final AttemptReport report;

  SparkExecuteAction(SparkSession spark, RunOptions options, String runId) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.runId = requireNonNull(runId, "runId is null");
    this.latestApproved = false;
    this.report = new AttemptReport(this.spark, this.options);
  }

  private SparkExecuteAction(SparkSession spark, RunOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
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
  static SparkExecuteAction latestApproved(SparkSession spark, RunOptions options) {
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
    requireNonNull(why, "why is null");
    synchronized (this) {
      if (cancelledBecause == null) {
        cancelledBecause = why;
      }
    }
    String tag = deleteTag;
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
        ActionLock lock = heldLock != null ? heldLock : ActionLock.toDelete(options, label)) {
      if (!lock.taken()) {
        throw new IllegalStateException("The " + label + " needs the run lock " + lock.key()
            + ", and the run it is part of has none: nothing was deleted");
      }
      if (latestApproved) {
        Tables tables = new Tables(options.warehouse(), options.catalogSchema());
        SparkApproveAction.LatestApproved found = SparkApproveAction.latestApproved(spark, tables, options.bucket(),
            options.prefix().value(), options.maxPlanAge(), clock.instant());
        if (found.runId() == null) {
          LOG.info("Nothing to execute: {}", LineText.escape(found.why()));
          return SparkExecuteResult.nothingToExecute(tables, found.why(), lock.outcome());
        }
        runId = found.runId();
        LOG.info("Executing the newest approved plan of s3://{}/{}: run {}", options.bucket(),
            LineText.escape(options.prefix().value()), LineText.escape(runId));
      }
      // From the moment the lock is lost no delete is sent: another run may hold it.
      lock.onLost(() -> cancel("lost the run lock " + lock.key() + ": " + lock.lossReason()));
      return executeLocked(lock);
    }
  }

  /** What one attempt works with from the end of its checks to its result. */
  private record Attempt(Tables tables, String attemptId, Instant startedAt, RunMetrics metrics, LedgerRecorder ledger,
      ReviewedPlan plan, ActionLock lock, List<String> recordedBefore, PriceTable prices, Map<String, Long> lockBefore,
      Progress progress, PhaseTimes times, LineStream lines) {}

  /** What the delete phase left: the store's answer to conditional deletes, the bound, and why it stopped, if it did. */
  private record Deleted(ConditionalDeleteProbe.Answer conditional, DeleteBound.Selection bound, boolean done,
      Exception stopped) {}

  /**
   * The attempt, in its steps: record the ledgers left by attempts whose driver died; read and check the plan
   * ({@link ReviewedPlan}); probe the store, bound the run and delete ({@link #deletePhase}); record the ledger, count
   * and summarise ({@link #recordAndCount}), the cost included.
   */
  private ExecuteResult executeLocked(ActionLock lock) {
    Tables tables = new Tables(options.warehouse(), options.catalogSchema());
    Instant startedAt = Instant.now();
    // A table name taken elsewhere stops the execute here, before anything is deleted.
    CatalogTables.registerAll(spark, tables);
    String attemptId = RunContext.start(startedAt, options.graceDays()).runId();
    RunMetrics metrics = RunMetrics.register(spark.sparkContext());
    LedgerRecorder ledger = new LedgerRecorder(spark, options, metrics);
    // The ledger of an attempt whose driver died is recorded before anything is deleted.
    List<String> recordedBefore = new LeftoverLedgers(spark, options, ledger, report, LOG).record(tables, attemptId);
    ReviewedPlan plan = reviewedPlan(tables);
    S3ObjectStore store = S3ObjectStore.open(options.s3(), options.bucket());
    // What this attempt costs: its requests at the region's list prices, the lock's included: all of them for a
    // lock it took, those since it began for the lock of the run it is part of (the plan counted the rest).
    Map<String, Long> lockBefore = heldLock != null ? PlanCosts.sentBy(lock.requestCounts()) : Map.of();
    PriceTable prices = priceTable();
    Progress progress = Progress.every(options.progressSeconds(), metrics, runId);
    Attempt attempt = new Attempt(tables, attemptId, startedAt, metrics, ledger, plan, lock, recordedBefore, prices,
        lockBefore, progress, new PhaseTimes(), new LineStream(sink));
    // The jobs of this attempt's delete phase carry a tag of their own, for cancel() to find them.
    String tag = "statesweep-delete-" + attemptId;
    SparkListener lateJobs = DeleteTasks.cancelWhenStarted(spark.sparkContext(), tag, () -> cancelledBecause);
    DeleteTasks deleteTasks = DeleteTasks.watch(spark.sparkContext(), tag);
    Deleted deleted = deletePhase(attempt, store, tag);
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

  /** The region's list prices; null, with a warning, when they cannot be read (the attempt is not priced). */
  private PriceTable priceTable() {
    try {
      return PlanCosts.priceTable(spark, options);
    } catch (RuntimeException e) {
      LOG.warn("Run {}: this attempt's cost is not priced: {}", runId, LineText.escape(e.getMessage()));
      return null;
    }
  }

  /**
   * The delete phase: the probes of the conditions it sends, then the plan's rows within the run's bound, verified
   * and deleted in tasks that write the attempt's ledger. What stops it (a failure, a cancellation) is returned, never
   * thrown: the ledger is recorded whatever became of the tasks.
   */
  private Deleted deletePhase(Attempt attempt, S3ObjectStore store, String tag) {
    ConditionalDeleteProbe.Answer conditional = new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON,
        "unverified: the probe did not run");
    DeleteBound.Selection bound = null;
    try {
      stopIfCancelled();
      ConditionalDeleteProbe.Findings probed = probes(store, attempt.attemptId());
      conditional = probed.deletes();
      conditionalReads = probed.reads();
      attempt.metrics().addRequests(store.requestCounts());
      LOG.info("Run {}: executing its plan as attempt {} (conditional deletes {}; conditional reads {})", runId,
          attempt.attemptId(), LineText.escape(conditional.describe()), LineText.escape(conditionalReads.describe()));
      phase("delete", "Verifying and deleting the planned keys of run " + runId);
      spark.sparkContext().addJobTag(tag);
      deleteTag = tag;
      stopIfCancelled();
      // A bounded run deletes whole records up to --max-deletes keys and --max-bytes bytes; the rest waits.
      bound = DeleteBound.select(spark, attempt.plan().rows(), attempt.tables().executions(), attempt.plan().runDate(),
          runId, options.maxDeletes(), options.maxBytes());
      deleteRecords(attempt, bound.rows(), conditional.mode());
      return new Deleted(conditional, bound, true, null);
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      return new Deleted(conditional, bound, false, e);
    } finally {
      deleteTag = null;
      spark.sparkContext().removeJobTag(tag);
    }
  }

  /** The delete phase's job: the records verified and deleted in parallel tasks, each task's share of the ceiling. */
  private void deleteRecords(Attempt attempt, Dataset<PlanRow> planDS, ConditionalDeletes conditional) {
    attempt.progress().phase("delete", "records_verified", planDS.count());
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    int ceiling = options.maxDeletesPerSecond();
    // Each task that can run at once gets its share of the ceiling, at least one key per second: under
    // a ceiling below the cores, as many partitions as keys per second, so no more tasks run at once.
    int partitions = DeleteTasks.deletePartitions(parallelism, ceiling);
    double perTask = DeleteTasks.keysPerSecondPerTask(parallelism, ceiling);
    KeyClassifier classifier = options.layout().classifier(options.prefix());
    // The planner's decision is made again at execution, with this run's grace periods: a row may only narrow it.
    Planner planner = new Planner(classifier, options.gracePolicy());
    LedgerEntry.Header ledgerHeader = new LedgerEntry.Header(runId, attempt.plan().runDate(), attempt.attemptId(),
        attempt.tables().warehouse(), 0, 0, 0, attempt.startedAt());
    // Every window writes what it is about to delete, then what it did, to the attempt's ledger: executions is
    // built from that below, whatever becomes of the tasks, never from their output.
    Spread.byKeyRange(planDS, partitions, "stateFileKey")
        .foreachPartition(new ExecuteFunctions.ExecuteRecords(planner, options.maxStateBytes(), options.s3(),
            options.bucket(), options.batchSize(), conditional, perTask, hook, ledgerHeader,
            attempt.ledger().folder(runId, attempt.attemptId()), options.workers(), attempt.metrics()));
  }

  /**
   * Once no delete task runs: the attempt's rows of executions, recorded from its ledger; then its counts, lines,
   * cost, summary and row of runs ({@link #summarise}).
   */
  private ExecuteResult recordAndCount(Attempt attempt, Deleted deleted, DeleteTasks deleteTasks) {
    // A failed or cancelled job ends while its other tasks may still be finishing a window: they end first.
    boolean tasksEnded = deleteTasks.awaitEnded(spark.sparkContext(), TASKS_END_WITHIN);
    if (!tasksEnded) {
      LOG.error("Run {} attempt {}: {} of its delete tasks still run after {}; its ledger is recorded now, and what"
          + " they record later is recorded by the next execute, which keeps the ledger until then", runId,
          attempt.attemptId(), deleteTasks.running(), TASKS_END_WITHIN);
    }
    attempt.times().end("delete");
    phase("record", "Recording what the attempt deleted, from its ledger");
    attempt.progress().phase("record", null, -1);
    // Its own rows, which no other run records while this one holds the lock; after a loss, the next run may.
    boolean lockHeld = attempt.lock().outcome().status() == LockOutcome.Status.HELD;
    LedgerRecorder.Write write = lockHeld ? LedgerRecorder.Write.APPEND : LedgerRecorder.Write.INSERT_NEW;
    LedgerRecorder.Recorded recorded = attempt.ledger().record(runId, attempt.attemptId(), attempt.plan().runDate(),
        attempt.tables(), write, tasksEnded, attempt.metrics().recordsVerified.value());
    attempt.times().end("record");
    phase("summary", "Counting the attempt");
    attempt.progress().phase("summary", null, -1);
    return summarise(attempt, deleted, recorded, write);
  }

  /** The attempt's counts, lines, cost and summary, and its row of runs (written as its rows of executions were). */
  private ExecuteResult summarise(Attempt attempt, Deleted deleted, LedgerRecorder.Recorded recorded,
      LedgerRecorder.Write write) {
    String failure = failure(attempt, deleted, recorded);
    String runDate = attempt.plan().runDate();
    AttemptCounts counts = recorded.appended() != null ? AttemptCounts.of(recorded.appended())
        : AttemptCounts.of(spark, attempt.tables(), runDate, attempt.attemptId());
    RunSummary summary = AttemptReport.summary(runId, attempt.plan().run(), attempt.attemptId(),
        deleted.conditional(), conditionalReads, failure == null, counts,
        (deleted.stopped() != null ? 1 : 0) + recorded.unreadable());
    if (!attempt.recordedBefore().isEmpty()) {
      summary = summary.with("ledgers_recorded", String.join(",", attempt.recordedBefore()));
    }
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
    attempt.times().end("summary");
    return result(attempt, summary, deleted.conditional(), failure);
  }

  /** Why the attempt did not complete, or null: its delete phase stopped, or part of its ledger cannot be read. */
  private String failure(Attempt attempt, Deleted deleted, LedgerRecorder.Recorded recorded) {
    String why = cancelledBecause;
    Exception stopped = deleted.stopped();
    String failure = stopped == null ? null
        : why != null && !deleted.done() ? "its deletes were cancelled: " + why : RootMessage.of(stopped);
    if (stopped != null) {
      LOG.error("Run {} attempt {} did not complete: {}", runId, attempt.attemptId(), LineText.escape(failure),
          stopped);
    }
    if (recorded.unreadable() > 0) {
      String unreadable = recorded.unreadable() + " objects of its ledger cannot be read (see the log): they stay"
          + " under s3://" + options.bucket() + "/" + attempt.ledger().folder(runId, attempt.attemptId());
      failure = failure == null ? unreadable : failure + "; " + unreadable;
    }
    return failure;
  }

  /**
   * The result of an attempt whose ledger could not be recorded ({@code e}): it stays in the bucket, and the next
   * execute records it first. Its row of runs says so, unless that cannot be written either.
   */
  private ExecuteResult unrecorded(Attempt attempt, Deleted deleted, Exception e) {
    String attemptId = attempt.attemptId();
    String failure = (deleted.stopped() != null ? RootMessage.of(deleted.stopped()) + "; " : "")
        + "cannot record what it deleted from its ledger, which stays under s3://" + options.bucket() + "/"
        + attempt.ledger().folder(runId, attemptId) + " for the next execute to record: " + RootMessage.of(e);
    LOG.error("Run {} attempt {} did not complete: {}", runId, attemptId, LineText.escape(failure), e);
    RunSummary summary = AttemptReport.summary(runId, attempt.plan().run(), attemptId, deleted.conditional(),
        conditionalReads, false, AttemptCounts.NONE, 1);
    try {
      report.writeRun(attempt.tables(), attempt.plan().run(), attemptId, attempt.startedAt(),
          deleted.conditional().describe(), summary, AttemptCounts.NONE, failure, null, LedgerRecorder.Write.INSERT_NEW);
    } catch (RuntimeException writeFailure) {
      LOG.error("Cannot record attempt {} in {}: {}", attemptId, LineText.escape(attempt.tables().runs()),
          LineText.escape(RootMessage.of(writeFailure)));
    }
    attempt.times().end("failed");
    return result(attempt, summary, deleted.conditional(), failure);
  }

  /** The attempt's result: its summary with the lock's and {@code --fail-on}'s pairs, its lines and metrics. */
  private SparkExecuteResult result(Attempt attempt, RunSummary summary, ConditionalDeleteProbe.Answer conditional,
      String failure) {
    LockOutcome runLock = attempt.lock().outcome();
    return new SparkExecuteResult(runId, attempt.attemptId(), options.failOn().appliedTo(runLock.appliedTo(summary)),
        attempt.tables(), conditional.describe(), attempt.lines().sample(), attempt.lines().counts(), failure,
        Metrics.of(attempt.metrics().json("execute", runId, attempt.attemptId(), summary, attempt.times().seconds())),
        runLock, null);
  }

  /** Whether {@code plan} is a complete plan of this run id that a {@link SparkPlanAction} of this JVM made. */
  private boolean madeHere(PlanResult plan) {
    return plan instanceof SparkPlanResult made && made.runId().equals(runId) && made.failure() == null;
  }

  /**
   * The attempt's probes of the conditions it sends: GET If-Match and (with {@code auto}) DeleteObjects ETags.
   * A store that ignores If-Match costs no safety, as every conditional read compares the ETag of its answer
   * too (README, "Deleting"): the probe names it, in the log and the summary.
   */
  private ConditionalDeleteProbe.Findings probes(ObjectStore store, String attemptId) {
    ConditionalDeleteProbe.Findings findings = options.prefix().isBucketRoot()
        ? ConditionalDeleteProbe.Findings.atBucketRoot(options.conditionalDeletes())
        : ConditionalDeleteProbe.detect(store, probeKey(attemptId), options.conditionalDeletes());
    if (findings.reads().ignored()) {
      LOG.warn("Run {}: conditional reads {}: every state file read is checked against the ETag of its answer",
          runId, LineText.escape(findings.reads().describe()));
    }
    return findings;
  }

  /** statesweep's own key beside the export prefix, such as {@code cogram.statesweep/probe-<attempt>}. */
  private String probeKey(String attemptId) {
    String prefix = options.prefix().value();
    return prefix.substring(0, prefix.length() - 1) + ".statesweep/probe-" + attemptId;
  }

  /** The attempt's requests so far, priced; null when no price table could be read. */
  private PlanCost attemptCost(Attempt attempt) {
    if (attempt.prices() == null) {
      return null;
    }
    Map<String, Long> lockSince = new java.util.TreeMap<>(PlanCosts.sentBy(attempt.lock().requestCounts()));
    attempt.lockBefore().forEach((operation, count) -> lockSince.merge(operation, -count, Long::sum));
    lockSince.values().removeIf(count -> count <= 0);
    PlanCosts.Region region = PlanCosts.region(options);
    PlanCost cost = PlanCost.ofAttempt(attempt.prices(), region.name(), region.from(),
        PlanCosts.plus(PlanCosts.sent(attempt.metrics().requests()), lockSince));
    LOG.info("Run {}: this attempt sent {} S3 requests {}, ${} at the list prices of {} ({})", runId,
        cost.requestCount(), cost.requests(), cost.attemptPairs().get("cost_usd"), LineText.escape(region.name()),
        LineText.escape(region.from()));
    return cost;
  }

  /** How long the driver waits for the delete phase's last tasks to end before it records the ledger anyway. */
  private static final Duration TASKS_END_WITHIN = Duration.ofMinutes(10);

  private void stopIfCancelled() {
    String why = cancelledBecause;
    if (why != null) {
      throw new IllegalStateException(why);
    }
  }

  private void phase(String name, String description) {
    spark.sparkContext().setJobGroup(JOB_GROUP + "-" + name, "statesweep execute: " + description, false);
    LOG.info("Phase {}: {}", name, LineText.escape(description));
  }
}
