package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.spark.execute.DeleteBound;
import io.statesweep.spark.execute.DeleteTasks;
import io.statesweep.spark.execute.ExecuteFunctions;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.Spread;
import io.statesweep.spark.tables.CatalogTables;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.plan.PlanCosts;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.tables.PlanDigest;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.spark.tables.TableColumn;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.tables.TableWrites;
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
import io.statesweep.execute.Outcome;
import io.statesweep.ledger.LedgerEntry;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.Action;
import io.statesweep.plan.LineText;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ObjectStore;
import io.statesweep.spark.rows.ExecutionRow;
import io.statesweep.spark.rows.PlanRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
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
  /** The version of deletion_plan whose rows matched the approved digest; null without an approval check. */
  private Long planVersion;
  /** The lock of the action this execute runs in ({@link SparkRunAction}), or null: it takes its own. */
  private ActionLock heldLock;
  /** Whether the store honours GET If-Match, as this attempt's probe found (summary pair conditional_reads). */
  private volatile ConditionProbe conditionalReads = ConditionProbe.unverified("the probe did not run");

  SparkExecuteAction(SparkSession spark, RunOptions options, String runId) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.runId = requireNonNull(runId, "runId is null");
    this.latestApproved = false;
  }

  private SparkExecuteAction(SparkSession spark, RunOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.runId = null;
    this.latestApproved = true;
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

  private ExecuteResult executeLocked(ActionLock lock) {
    Tables tables = new Tables(options.warehouse(), options.catalogSchema());
    Instant startedAt = Instant.now();
    // A table name taken elsewhere stops the execute here, before anything is deleted.
    CatalogTables.registerAll(spark, tables);
    String attemptId = RunContext.start(startedAt, options.graceDays()).runId();
    RunMetrics metrics = RunMetrics.register(spark.sparkContext());
    LedgerRecorder ledger = new LedgerRecorder(spark, options, metrics);
    // The ledger of an attempt whose driver died is recorded before anything is deleted.
    List<String> recordedBefore = recordLeftovers(ledger, tables, attemptId);
    Row plan = planRun(tables);
    checkReviewable(tables, plan);
    String runDate = plan.getAs("run_date");
    S3ObjectStore store = S3ObjectStore.open(options.s3(), options.bucket());
    ConditionalDeleteProbe.Answer conditional = new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON,
        "unverified: the probe did not run");
    // What this attempt costs: its requests at the region's list prices, the lock's included: all of them for a
    // lock it took, those since it began for the lock of the run it is part of (the plan counted the rest).
    Map<String, Long> lockBefore = heldLock != null ? PlanCosts.sentBy(lock.requestCounts()) : Map.of();
    PriceTable prices = null;
    try {
      prices = PlanCosts.priceTable(spark, options);
    } catch (RuntimeException e) {
      LOG.warn("Run {}: this attempt's cost is not priced: {}", runId, LineText.escape(e.getMessage()));
    }
    Progress progress = Progress.every(options.progressSeconds(), metrics, runId);
    Map<String, Double> seconds = new LinkedHashMap<>();
    long phaseStart = System.nanoTime();
    // The jobs of this attempt's delete phase carry a tag of their own, for cancel() to find them.
    String tag = "statesweep-delete-" + attemptId;
    SparkListener lateJobs = new CancelWhenStarted(tag);
    spark.sparkContext().addSparkListener(lateJobs);
    DeleteTasks deleteTasks = DeleteTasks.watch(spark.sparkContext(), tag);
    boolean deletesDone = false;
    Exception stopped = null;
    DeleteBound.Selection bound = null;
    LineStream lines = new LineStream(sink);
    try {
      stopIfCancelled();
      ConditionalDeleteProbe.Findings probed = probes(store, attemptId);
      conditional = probed.deletes();
      conditionalReads = probed.reads();
      metrics.addRequests(store.requestCounts());
      LOG.info("Run {}: executing its plan as attempt {} (conditional deletes {}; conditional reads {})", runId,
          attemptId, LineText.escape(conditional.describe()), LineText.escape(conditionalReads.describe()));
      phase("delete", "Verifying and deleting the planned keys of run " + runId);
      spark.sparkContext().addJobTag(tag);
      deleteTag = tag;
      stopIfCancelled();
      // A bounded run deletes whole records up to --max-deletes keys and --max-bytes bytes; the rest waits.
      bound = DeleteBound.select(spark, plannedRows(tables, runDate), tables.executions(), runDate, runId,
          options.maxDeletes(), options.maxBytes());
      Dataset<PlanRow> planDS = bound.rows();
      progress.phase("delete", "records_verified", planDS.count());
      int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
      int ceiling = options.maxDeletesPerSecond();
      // Each task that can run at once gets its share of the ceiling, at least one key per second: under
      // a ceiling below the cores, as many partitions as keys per second, so no more tasks run at once.
      int partitions = DeleteTasks.deletePartitions(parallelism, ceiling);
      double perTask = DeleteTasks.keysPerSecondPerTask(parallelism, ceiling);
      KeyClassifier classifier = options.layout().classifier(options.prefix());
      // The planner's decision is made again at execution, with this run's grace periods: a row may only narrow it.
      Planner planner = new Planner(classifier, options.gracePolicy());
      LedgerEntry.Header ledgerHeader = new LedgerEntry.Header(runId, runDate, attemptId, tables.warehouse(), 0, 0, 0,
          startedAt);
      // Every window writes what it is about to delete, then what it did, to the attempt's ledger: executions is
      // built from that below, whatever becomes of the tasks, never from their output.
      Spread.byKeyRange(planDS, partitions, "stateFileKey")
          .foreachPartition(new ExecuteFunctions.ExecuteRecords(planner, options.maxStateBytes(), options.s3(),
              options.bucket(), options.batchSize(), conditional.mode(), perTask, hook, ledgerHeader,
              ledger.folder(runId, attemptId), options.workers(), metrics));
      deletesDone = true;
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      stopped = e;
    } finally {
      deleteTag = null;
      spark.sparkContext().removeJobTag(tag);
    }
    try {
      // A failed or cancelled job ends while its other tasks may still be finishing a window: they end first.
      boolean tasksEnded = deleteTasks.awaitEnded(spark.sparkContext(), TASKS_END_WITHIN);
      if (!tasksEnded) {
        LOG.error("Run {} attempt {}: {} of its delete tasks still run after {}; its ledger is recorded now, and what"
            + " they record later is recorded by the next execute, which keeps the ledger until then", runId, attemptId,
            deleteTasks.running(),
            TASKS_END_WITHIN);
      }
      seconds.put("delete", (System.nanoTime() - phaseStart) / 1e9);
      phaseStart = System.nanoTime();
      phase("record", "Recording what the attempt deleted, from its ledger");
      progress.phase("record", null, -1);
      // Its own rows, which no other run records while this one holds the lock; after a loss, the next run may.
      boolean lockHeld = lock.outcome().status() == LockOutcome.Status.HELD;
      LedgerRecorder.Recorded recorded = ledger.record(runId, attemptId, runDate, tables,
          lockHeld ? LedgerRecorder.Write.APPEND : LedgerRecorder.Write.INSERT_NEW, tasksEnded,
          metrics.recordsVerified.value());
      seconds.put("record", (System.nanoTime() - phaseStart) / 1e9);
      phaseStart = System.nanoTime();
      phase("summary", "Counting the attempt");
      progress.phase("summary", null, -1);
      String why = cancelledBecause;
      String failure = stopped == null ? null
          : why != null && !deletesDone ? "its deletes were cancelled: " + why : RootMessage.of(stopped);
      if (stopped != null) {
        LOG.error("Run {} attempt {} did not complete: {}", runId, attemptId, LineText.escape(failure), stopped);
      }
      if (recorded.unreadable() > 0) {
        String unreadable = recorded.unreadable() + " objects of its ledger cannot be read (see the log): they stay"
            + " under s3://" + options.bucket() + "/" + ledger.folder(runId, attemptId);
        failure = failure == null ? unreadable : failure + "; " + unreadable;
      }
      AttemptCounts counts = recorded.appended() != null ? AttemptCounts.of(recorded.appended())
          : AttemptCounts.of(spark, tables, runDate, attemptId);
      RunSummary summary = summary(runId, plan, attemptId, conditional, conditionalReads, failure == null, counts,
          (stopped != null ? 1 : 0) + recorded.unreadable());
      if (!recordedBefore.isEmpty()) {
        summary = summary.with("ledgers_recorded", String.join(",", recordedBefore));
      }
      logLines(tables, runDate, attemptId, counts, lines);
      if (bound != null && bound.bounded()) {
        summary = summary.with("deferred_records", Long.toString(bound.deferredRecords()))
            .with("deferred_keys", Long.toString(bound.deferredKeys()));
        boundLines(bound, lines);
      }
      PlanCost cost = null;
      try {
        cost = attemptCost(prices, metrics, lock, lockBefore);
        summary = withCost(summary, cost);
      } catch (RuntimeException costFailure) {
        LOG.warn("Run {}: cannot price attempt {}: {}", runId, attemptId,
            LineText.escape(RootMessage.of(costFailure)));
      }
      writeRun(tables, plan, attemptId, startedAt, conditional.describe(), summary, counts, failure, cost,
          lockHeld ? LedgerRecorder.Write.APPEND : LedgerRecorder.Write.INSERT_NEW);
      seconds.put("summary", (System.nanoTime() - phaseStart) / 1e9);
      return result(attemptId, summary, tables, conditional, lines, failure, metrics, seconds, lock);
    } catch (Exception e) {
      // The ledger could not be recorded: it stays in the bucket, and the next execute records it first.
      String failure = (stopped != null ? RootMessage.of(stopped) + "; " : "")
          + "cannot record what it deleted from its ledger, which stays under s3://" + options.bucket() + "/"
          + ledger.folder(runId, attemptId) + " for the next execute to record: " + RootMessage.of(e);
      LOG.error("Run {} attempt {} did not complete: {}", runId, attemptId, LineText.escape(failure), e);
      RunSummary summary = summary(runId, plan, attemptId, conditional, conditionalReads, false, AttemptCounts.NONE, 1);
      try {
        writeRun(tables, plan, attemptId, startedAt, conditional.describe(), summary, AttemptCounts.NONE, failure, null,
            LedgerRecorder.Write.INSERT_NEW);
      } catch (RuntimeException writeFailure) {
        LOG.error("Cannot record attempt {} in {}: {}", attemptId, LineText.escape(tables.runs()),
            LineText.escape(RootMessage.of(writeFailure)));
      }
      seconds.put("failed", (System.nanoTime() - phaseStart) / 1e9);
      return result(attemptId, summary, tables, conditional, lines, failure, metrics, seconds, lock);
    } finally {
      deleteTasks.close(spark.sparkContext());
      spark.sparkContext().removeSparkListener(lateJobs);
      progress.close();
      spark.sparkContext().clearJobGroup();
    }
  }

  /**
   * The lines of a run that stopped at its bound: each record that alone exceeds it (no run with that bound deletes
   * it), and how much it left for the next run, from which record.
   */
  /** The attempt's result: its summary with the lock's and {@code --fail-on}'s pairs, its lines and metrics. */
  private SparkExecuteResult result(String attemptId, RunSummary summary, Tables tables,
      ConditionalDeleteProbe.Answer conditional, LineStream lines, String failure, RunMetrics metrics,
      Map<String, Double> seconds, ActionLock lock) {
    LockOutcome runLock = lock.outcome();
    return new SparkExecuteResult(runId, attemptId, options.failOn().appliedTo(runLock.appliedTo(summary)), tables,
        conditional.describe(), lines.sample(), lines.counts(), failure,
        Metrics.of(metrics.json("execute", runId, attemptId, summary, seconds)), runLock, null);
  }

  private void boundLines(DeleteBound.Selection bound, LineStream lines) {
    List<String> limits = new ArrayList<>();
    if (options.maxDeletes() > 0) {
      limits.add(io.statesweep.config.Settings.MAX_DELETES.flag() + " " + options.maxDeletes());
    }
    if (options.maxBytes() > 0) {
      limits.add(io.statesweep.config.Settings.MAX_BYTES.flag() + " " + options.maxBytes());
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

  /** How long the driver waits for the delete phase's last tasks to end before it records the ledger anyway. */
  private static final Duration TASKS_END_WITHIN = Duration.ofMinutes(10);

  /**
   * Records the ledger of every attempt whose driver stopped before recording it (README, "Every delete on the
   * record"): its rows of executions under its own run and attempt, and its row of runs ({@code complete=false},
   * with what it really deleted). Returns the attempts recorded.
   */
  private List<String> recordLeftovers(LedgerRecorder ledger, Tables tables, String attemptId) {
    List<String> recorded = new ArrayList<>();
    for (LedgerRecorder.Leftover leftover : ledger.leftovers(attemptId)) {
      // Its rows go where its run's plan is: the warehouse the ledger names.
      Tables into = leftover.warehouse().equals(tables.warehouse()) ? tables : new Tables(leftover.warehouse());
      String folder = ledger.folder(leftover.runId(), leftover.attemptId());
      LedgerRecorder.Recorded done;
      try {
        done = ledger.record(leftover.runId(), leftover.attemptId(), leftover.runDate(), into,
            LedgerRecorder.Write.INSERT_NEW, true, -1);
      } catch (RuntimeException e) {
        throw new IllegalStateException("Cannot record the ledger s3://" + options.bucket() + "/" + folder
            + " of run " + leftover.runId() + " attempt " + leftover.attemptId() + ", which stopped before recording"
            + " what it deleted; nothing is deleted until it is recorded: " + RootMessage.of(e), e);
      }
      AttemptCounts counts = AttemptCounts.of(spark, into, leftover.runDate(), leftover.attemptId());
      String failure = "its driver stopped before it recorded what it deleted; recorded from its ledger by attempt "
          + attemptId + (done.unreadable() > 0 ? "; " + done.unreadable() + " objects of its ledger cannot be read" : "");
      try {
        Row plan = RunsTable.planRow(spark, into, leftover.runId());
        RunSummary summary = summary(leftover.runId(), plan, leftover.attemptId(),
            new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON, "unknown"),
            ConditionProbe.unverified("unknown: recorded from its ledger"), false, counts, 1 + done.unreadable());
        // Its row, unless it has one (it stopped after writing it, before removing its ledger).
        writeRun(into, plan, leftover.attemptId(), counts.startedAt(), "unknown: recorded from its ledger", summary,
            counts, failure, null, LedgerRecorder.Write.INSERT_NEW);
      } catch (IllegalArgumentException e) {
        LOG.warn("Run {} attempt {}: its executions are recorded, but not its row of {}: {}",
            LineText.escape(leftover.runId()), LineText.escape(leftover.attemptId()), LineText.escape(into.runs()),
            LineText.escape(e.getMessage()));
      }
      LOG.warn("Run {} attempt {} stopped before it recorded what it deleted: recorded from its ledger in {}: {}"
          + " records deleted, {} other keys deleted", LineText.escape(leftover.runId()),
          LineText.escape(leftover.attemptId()), LineText.escape(into.executions()), counts.deleted(), counts.childKeys());
      recorded.add(leftover.attemptId());
    }
    return recorded;
  }

  private void stopIfCancelled() {
    String why = cancelledBecause;
    if (why != null) {
      throw new IllegalStateException(why);
    }
  }

  /** Cancels a job of the delete phase that starts after {@link #cancel}, which finds only running jobs. */
  private final class CancelWhenStarted extends SparkListener {
    private final String tag;

    CancelWhenStarted(String tag) {
      this.tag = tag;
    }

    @Override
    public void onJobStart(SparkListenerJobStart jobStart) {
      String why = cancelledBecause;
      String tags = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.job.tags");
      if (why != null && tags != null && java.util.Arrays.asList(tags.split(",")).contains(tag)) {
        spark.sparkContext().cancelJob(jobStart.jobId(), why);
      }
    }
  }

  /** The plan's own row in {@code runs}: it must exist, be complete, and be of this bucket and prefix. */
  private Row planRun(Tables tables) {
    Row plan = RunsTable.planRow(spark, tables, runId);
    String bucket = plan.getAs("bucket");
    String prefix = plan.getAs("prefix");
    if (!bucket.equals(options.bucket()) || !prefix.equals(options.prefix().value())) {
      throw new PlanRefusedException("The plan of run " + runId + " is for s3://" + bucket + "/" + prefix
          + ", not s3://" + options.bucket() + "/" + options.prefix() + ": give the same --bucket and --prefix");
    }
    String fingerprint = plan.getAs("layout_fingerprint");
    if (!options.layout().fingerprint().equals(fingerprint)) {
      throw new PlanRefusedException("The plan of run " + runId + " was made with layout " + plan.getAs("layout")
          + " (SHA-256 " + fingerprint + "), not with " + options.layout().origin() + ": give the plan's --layout");
    }
    return plan;
  }

  /**
   * Refuses a plan older than {@code max-plan-age} (the bucket has moved on since) and, for a plan made
   * by another job, unless {@code --skip-approval}: one that nobody approved; one whose rows no longer
   * match the digest its newest approval recorded ({@link PlanDigest}), since a row appended, edited or
   * deleted after the review was not approved; and one whose newest approval predates digests (it cannot
   * show what it approved). Only the newest approval counts: a later approval replaces an earlier one, so
   * a plan turned back into a version that someone approved before, and then approved again after a
   * change, is not executed on the strength of the older approval. Each refusal says what to do. The
   * rows checked are the rows executed: {@link #plannedRows} reads the table version that was digested.
   */
  private void checkReviewable(Tables tables, Row plan) {
    Instant plannedAt = plan.<java.sql.Timestamp>getAs("planned_at").toInstant();
    Duration age = Duration.between(plannedAt, clock.instant());
    if (age.compareTo(options.maxPlanAge()) > 0) {
      throw new PlanRefusedException("The plan of run " + runId + " was made at " + plannedAt + ", "
          + hours(age) + " ago, more than max-plan-age " + hours(options.maxPlanAge())
          + ": the bucket has moved on since. Plan again, review and approve the new plan, and execute that;"
          + " or give --max-plan-age to execute this one anyway");
    }
    if (ownPlan != null && !options.skipApproval() && !madeHere(ownPlan)) {
      throw new PlanRefusedException("The plan of run " + runId + " was not made in this job, so it is executed"
          + " only once it is approved. Review it (table " + tables.deletionPlan() + ", view plan_summary,"
          + " notebooks/), then record the approval with: statesweep approve --run-id " + runId
          + " --by <your name> --warehouse " + tables.warehouse() + "; or execute with --skip-approval");
    }
    if (ownPlan != null || options.skipApproval()) {
      if (options.skipApproval()) {
        LOG.warn("Run {}: executing without checking for an approval (--skip-approval)", runId);
      }
      return;
    }
    List<Row> approvals = SparkApproveAction.approvals(spark, tables, runId);
    if (approvals.isEmpty()) {
      throw new PlanRefusedException("The plan of run " + runId + " has not been approved. Review it (table "
          + tables.deletionPlan() + ", view plan_summary, notebooks/), then record the approval with: statesweep"
          + " approve --run-id " + runId + " --by <your name> --warehouse " + tables.warehouse()
          + "; or execute with --skip-approval");
    }
    Row newest = approvals.get(0);
    String approvedBy = newest.getString(0);
    Instant approvedAt = newest.getTimestamp(1).toInstant();
    String approve = "statesweep approve --run-id " + runId + " --by <your name> --warehouse " + tables.warehouse();
    if (newest.isNullAt(2)) {
      throw new PlanRefusedException("The approval of run " + runId + " by " + approvedBy + " at " + approvedAt
          + " was recorded before approvals carried a digest of the plan's rows, so it cannot show that table "
          + tables.deletionPlan() + " still holds the plan that was approved. Review the plan again, then approve it"
          + " again with: " + approve);
    }
    String runDate = plan.getAs("run_date");
    long version = PlanDigest.currentVersion(spark, tables);
    PlanDigest.Result current = PlanDigest.of(spark, tables, version, runDate, runId);
    String approvedDigest = newest.getString(2);
    if (!current.digest().equals(approvedDigest)) {
      throw new PlanRefusedException("The plan of run " + runId + " changed after it was approved: approved"
          + " digest " + approvedDigest + " (" + newest.getLong(3) + " rows, approved by " + approvedBy + " at "
          + approvedAt + "), current digest " + current.digest() + " (" + current.rows() + " rows of the run in table "
          + tables.deletionPlan() + "). Nothing was deleted. Review the plan again, then approve it again with: "
          + approve);
    }
    planVersion = version;
    LOG.info("Run {}: approved by {} at {}; its {} plan rows match the approved digest {}", runId,
        LineText.escape(approvedBy), approvedAt, current.rows(), approvedDigest);
  }

  /** Whether {@code plan} is a complete plan of this run id that a {@link SparkPlanAction} of this JVM made. */
  private boolean madeHere(PlanResult plan) {
    return plan instanceof SparkPlanResult made && made.runId().equals(runId) && made.failure() == null;
  }

  private static String hours(Duration duration) {
    long minutes = duration.toMinutes();
    return minutes % 60 == 0 ? minutes / 60 + "h" : minutes / 60 + "h" + minutes % 60 + "m";
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

  /**
   * The rows execution reads: every row but those of an action that deletes nothing (keep, not_yet_due, ...).
   * A row whose action is null or no plan's reaches execution, which refuses it naming the field (PlanRows).
   */
  private static Column executed() {
    Object[] nothingToDelete = Arrays.stream(Action.values())
        .filter(action -> action != Action.DELETE_RECORD && action != Action.DELETE_REMOVED_FILES)
        .map(Action::label).toArray();
    return col("action").isNull().or(functions.not(col("action").isin(nothingToDelete)));
  }

  private Dataset<PlanRow> plannedRows(Tables tables, String runDate) {
    return plannedRows(spark, tables, planVersion, runDate, runId);
  }

  /**
   * The run's rows to execute, one per state file, from {@code deletion_plan} at {@code planVersion} (the version
   * whose digest matched an approval; null: the latest).
   */
  static Dataset<PlanRow> plannedRows(SparkSession spark, Tables tables, Long planVersion, String runDate,
      String runId) {
    Column ofThisRun = col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId));
    // After an approval check, the version whose digest matched: a row changed since is not executed.
    Dataset<Row> plan = (planVersion == null ? spark.read().format("delta").load(tables.deletionPlan())
        : PlanDigest.planRows(spark, tables, planVersion, runDate, runId))
        .filter(ofThisRun.and(executed()));
    List<Column> columns = new ArrayList<>();
    for (String column : TableSchemas.DELETION_PLAN.columnNames()) {
      columns.add(column.equals("deletes")
          ? expr("transform(deletes, d -> named_struct('key', d.key, 'etag', d.etag, 'lastModified', d.last_modified,"
              + " 'size', d.size, 'role', d.role))").as("deletes")
          // A plan recorded before the table had missing_files (execute does not use it).
          : column.equals(RunsTable.MISSING_FILES) && !Arrays.asList(plan.columns()).contains(column)
              ? expr("cast(null as array<string>)").as(TableColumn.property(column))
              : col(column).as(TableColumn.property(column)));
    }
    return plan.select(columns.toArray(Column[]::new))
        .dropDuplicates("stateFileKey")
        .as(TableSchemas.DELETION_PLAN.encoder());
  }


  private static RunSummary summary(String runId, Row plan, String attemptId, ConditionalDeleteProbe.Answer conditional,
      ConditionProbe conditionalReads, boolean complete, AttemptCounts counts, long moreErrors) {
    long scanned = plan.<Long>getAs("state_files_scanned");
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("state_changed", Long.toString(counts.stateChanged()));
    extra.put("already_deleted", Long.toString(counts.alreadyDeleted()));
    extra.put("changed_during_delete", Long.toString(counts.changedDuringDelete()));
    extra.put("came_back_during_delete", Long.toString(counts.cameBack()));
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

  /** An attempt's rows of executions, counted by outcome. */
  record AttemptCounts(long deleted, long childKeys, long keptNewer, long failed, long stateChanged,
      long alreadyDeleted, long changedDuringDelete, long refused, long cameBack, long interrupted, long cameBackKeys,
      Instant startedAt) {
    static final AttemptCounts NONE = new AttemptCounts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Instant.EPOCH);

    /** Records with a kept line ({@link #logLines}): kept, changed, failed or interrupted. */
    long keptLines() {
      return keptNewer + refused + stateChanged + changedDuringDelete + failed + interrupted;
    }

    /** The counts of {@code rows}, the attempt's rows of executions as appended, as {@link #of(SparkSession, Tables,
     * String, String)} counts them in the table. */
    static AttemptCounts of(List<ExecutionRow> rows) {
      Map<String, Long> by = new java.util.HashMap<>();
      long childKeys = 0;
      long cameBackKeys = 0;
      Instant startedAt = null;
      for (ExecutionRow row : rows) {
        by.merge(String.valueOf(row.getOutcome()), 1L, Long::sum);
        childKeys += row.getChildKeysDeleted();
        if (Outcome.CAME_BACK_DURING_DELETE.label().equals(row.getOutcome()) && row.getDeletedKeys() != null) {
          cameBackKeys += row.getDeletedKeys().size();
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
          startedAt == null ? Instant.now() : startedAt);
    }

    static AttemptCounts of(SparkSession spark, Tables tables, String runDate, String attemptId) {
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
              expr("coalesce(sum(if(outcome = 'came_back_during_delete', size(coalesce(deleted_keys, array())),"
                  + " 0)), 0)"),
              expr("min(started_at)"))
          .first();
      return new AttemptCounts(counts.getLong(0), counts.getLong(1), counts.getLong(2), counts.getLong(3),
          counts.getLong(4), counts.getLong(5), counts.getLong(6), counts.getLong(7), counts.getLong(8),
          counts.getLong(9), counts.getLong(10), counts.isNullAt(11) ? Instant.now() : counts.getTimestamp(11).toInstant());
    }
  }

  /**
   * One line per record that the attempt kept or failed, never capped by {@code --log-lines} (which caps
   * only a dry run's {@code would delete} lines): refused and coming-back lines are what users alert on. Each goes
   * to {@code lines} as it is read, a bounded partition at a time ({@link LineStream#inOrder}).
   */
  private void logLines(Tables tables, String runDate, String attemptId, AttemptCounts counts, LineStream lines) {
    if (counts.keptLines() == 0 && counts.cameBackKeys() == 0) {
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
    // A file lost to a record that came back while it went is never silent: one line per key (README, "Deleting").
    Dataset<Row> cameBackDS = attemptDS
        .filter(col("outcome").equalTo(Outcome.CAME_BACK_DURING_DELETE.label()))
        .select(col("state_file_key"), explode(col("deleted_keys")).as("key"));
    LineStream.inOrder(cameBackDS, counts.cameBackKeys(), col("state_file_key"), col("key"))
        .forEachRemaining(row -> lines.accept(LogLine.cameBack(row.getString(0), row.getString(1))));
  }

  /** The attempt's requests so far, priced; null when no price table could be read. */
  private PlanCost attemptCost(PriceTable prices, RunMetrics metrics, ActionLock lock, Map<String, Long> lockBefore) {
    if (prices == null) {
      return null;
    }
    Map<String, Long> lockSince = new java.util.TreeMap<>(PlanCosts.sentBy(lock.requestCounts()));
    lockBefore.forEach((operation, count) -> lockSince.merge(operation, -count, Long::sum));
    lockSince.values().removeIf(count -> count <= 0);
    PlanCosts.Region region = PlanCosts.region(options);
    PlanCost cost = PlanCost.ofAttempt(prices, region.name(), region.from(),
        PlanCosts.plus(PlanCosts.sent(metrics.requests()), lockSince));
    LOG.info("Run {}: this attempt sent {} S3 requests {}, ${} at the list prices of {} ({})", runId,
        cost.requestCount(), cost.requests(), cost.attemptPairs().get("cost_usd"), LineText.escape(region.name()),
        LineText.escape(region.from()));
    return cost;
  }

  private static RunSummary withCost(RunSummary summary, PlanCost cost) {
    if (cost == null) {
      return summary;
    }
    for (Map.Entry<String, String> pair : cost.attemptPairs().entrySet()) {
      summary = summary.with(pair.getKey(), pair.getValue());
    }
    return summary;
  }

  private void writeRun(Tables tables, Row plan, String attemptId, Instant startedAt, String conditional,
      RunSummary summary, AttemptCounts counts, String failure, PlanCost cost, LedgerRecorder.Write write) {
    RunsTable.RunRow row = new RunsTable.RunRow(plan.getAs("run_id"), plan.getAs("run_date"), attemptId, "execute",
        startedAt, Instant.now(), plan.<java.sql.Timestamp>getAs("planned_at").toInstant(), options.bucket(),
        options.prefix().value(), plan.getAs("layout"), plan.getAs("layout_fingerprint"),
        plan.<Integer>getAs("grace_days"), options.settings(),
        conditional, 0, 0, 0, plan.<Long>getAs("bad_state"), plan.<Long>getAs("not_yet_due"), counts.stateChanged(),
        counts.alreadyDeleted(), counts.changedDuringDelete(), counts.cameBack(), summary, failure,
        RunsTable.Source.NONE, cost);
    if (write == LedgerRecorder.Write.APPEND) {
      TableWrites.append(RunsTable.dataset(spark, row), tables, Tables.RUNS);
    } else {
      // Unless the attempt has its row already: it stopped after writing it, or the next run recorded it first.
      TableWrites.insertNew(RunsTable.dataset(spark, row), tables, Tables.RUNS, RUNS_KEY,
          Map.of("run_date", row.runDate(), "attempt_id", attemptId));
    }
  }

  /** The key of an attempt's row of runs. */
  private static final List<String> RUNS_KEY = List.of("run_date", "attempt_id", "command");

  private void phase(String name, String description) {
    spark.sparkContext().setJobGroup(JOB_GROUP + "-" + name, "statesweep execute: " + description, false);
    LOG.info("Phase {}: {}", name, LineText.escape(description));
  }


}
