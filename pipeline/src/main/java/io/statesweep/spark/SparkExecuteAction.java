package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.config.RunOptions;
import io.statesweep.cost.PlanCost;
import io.statesweep.cost.PriceTable;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.execute.Outcome;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.Action;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RunSummary;
import io.statesweep.s3.ConditionProbe;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes a written plan exactly as planned: only the keys of its {@code deletion_plan} rows, each
 * record verified right before its keys go (see {@link io.statesweep.execute.RecordExecutor}), in
 * parallel Spark tasks. Every attempt appends one row per record to {@code executions} and one row to
 * {@code runs}. Running it again after a crash finishes the rest and deletes nothing twice.
 *
 * <p>It holds the export's run lock while it runs (README, "One run at a time"): {@link #execute()} throws
 * {@link io.statesweep.s3.RunLock.HeldException} while another run holds it,
 * {@link io.statesweep.s3.RunLock.DeniedException} when the store denies the lock's permissions (an action that
 * deletes never goes on without the lock), {@link io.statesweep.s3.RunLock.UntrustedException} when the store
 * ignores the lock's {@code If-None-Match: *} (unless {@code --unsafe-lock-without-conditional-writes}) and
 * {@link io.statesweep.s3.RunLock.UnavailableException} when it cannot be taken for another reason; in each
 * case nothing is read or deleted. The moment the lock is lost its
 * deletes are {@linkplain #cancel cancelled}, and the result says so ({@link ExecuteResult#runLock()}).
 *
 * <p>A plan made by another job must be approved first ({@link SparkApproveAction}; see {@link #execute()}).
 */
public final class SparkExecuteAction {
  private static final Logger LOG = LoggerFactory.getLogger(SparkExecuteAction.class);
  private static final String JOB_GROUP = "statesweep-execute";

  private final SparkSession spark;
  private final RunOptions options;
  private final String runId;
  private ExecutionHook hook = ExecutionHook.NONE;
  private boolean plannedInThisJob;
  private Clock clock = Clock.systemUTC();
  private volatile String cancelledBecause;
  private volatile String deleteTag;
  /** The version of deletion_plan whose rows matched the approved digest; null without an approval check. */
  private Long planVersion;
  /** The lock of the action this execute runs in ({@link SparkRunAction}), or null: it takes its own. */
  private ActionLock heldLock;
  /** Whether the store honours GET If-Match, as this attempt's probe found (summary pair conditional_reads). */
  private volatile ConditionProbe conditionalReads = ConditionProbe.unverified("the probe did not run");

  public SparkExecuteAction(SparkSession spark, RunOptions options, String runId) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.runId = requireNonNull(runId, "runId is null");
  }

  /** A hook into every executor's deletes (tests: a crash after N batches, a write between verify and delete). */
  public SparkExecuteAction hook(ExecutionHook newHook) {
    this.hook = requireNonNull(newHook, "hook is null");
    return this;
  }

  /**
   * The plan was made by this same job ({@code run --execute}, {@link SparkRunAction}): the scheduled,
   * unattended path, which needs no approval. Only a plan completed by a {@link SparkPlanAction} of this JVM
   * qualifies: {@link #execute()} refuses any other run id.
   */
  public SparkExecuteAction plannedInThisJob() {
    this.plannedInThisJob = true;
    return this;
  }

  /** The clock that says how old the plan is (tests). */
  public SparkExecuteAction clock(Clock newClock) {
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
  public void cancel(String why) {
    requireNonNull(why, "why is null");
    synchronized (this) {
      if (cancelledBecause == null) {
        cancelledBecause = why;
      }
    }
    String tag = deleteTag;
    if (tag != null) {
      LOG.error("Run {}: cancelling its deletes: {}", runId, why);
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
   * or changed since its approval) is refused with an {@link IllegalArgumentException} that says what to do,
   * and nothing is deleted. An attempt that stops returns a result that says why.
   */
  public ExecuteResult execute() {
    try (ActionLock lock = heldLock != null ? heldLock : ActionLock.toDelete(options, "execute --run-id " + runId)) {
      if (!lock.taken()) {
        throw new IllegalStateException("The execute of run " + runId + " needs the run lock " + lock.key()
            + ", and the run it is part of has none: nothing was deleted");
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
    Row plan = planRun(tables);
    checkReviewable(tables, plan);
    String runDate = plan.getAs("run_date");
    String attemptId = RunContext.start(startedAt, options.graceDays()).runId();
    ObjectStore store = new ObjectStore(S3Clients.shared(options.s3()), options.bucket());
    ConditionalDeleteProbe.Answer conditional = new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON,
        "unverified: the probe did not run");
    RunMetrics metrics = RunMetrics.register(spark.sparkContext());
    // What this attempt costs: its requests at the region's list prices, the lock's included: all of them for a
    // lock it took, those since it began for the lock of the run it is part of (the plan counted the rest).
    Map<String, Long> lockBefore = heldLock != null ? PlanCosts.sentBy(lock.requestCounts()) : Map.of();
    PriceTable prices = null;
    try {
      prices = PlanCosts.priceTable(spark, options);
    } catch (RuntimeException e) {
      LOG.warn("Run {}: this attempt's cost is not priced: {}", runId, e.getMessage());
    }
    Progress progress = Progress.every(options.progressSeconds(), metrics, runId);
    Map<String, Double> seconds = new LinkedHashMap<>();
    long phaseStart = System.nanoTime();
    // The jobs of this attempt's delete phase carry a tag of their own, for cancel() to find them.
    String tag = "statesweep-delete-" + attemptId;
    SparkListener lateJobs = new CancelWhenStarted(tag);
    spark.sparkContext().addSparkListener(lateJobs);
    boolean deletesDone = false;
    try {
      stopIfCancelled();
      ConditionalDeleteProbe.Findings probed = probes(store, attemptId);
      conditional = probed.deletes();
      conditionalReads = probed.reads();
      metrics.addRequests(store.requestCounts());
      LOG.info("Run {}: executing its plan as attempt {} (conditional deletes {}; conditional reads {})", runId,
          attemptId, conditional.describe(), conditionalReads.describe());
      phase("delete", "Verifying and deleting the planned keys of run " + runId);
      spark.sparkContext().addJobTag(tag);
      deleteTag = tag;
      stopIfCancelled();
      Dataset<PlanRow> planDS = plannedRows(tables, runDate);
      progress.phase("delete", "records_verified", planDS.count());
      int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
      int ceiling = options.maxDeletesPerSecond();
      // Each task that can run at once gets its share of the ceiling, at least one key per second: under
      // a ceiling below the cores, as many partitions as keys per second, so no more tasks run at once.
      int partitions = deletePartitions(parallelism, ceiling);
      double perTask = keysPerSecondPerTask(parallelism, ceiling);
      KeyClassifier classifier = options.layout().classifier(options.prefix());
      // The planner's decision is made again at execution, with this run's grace periods: a row may only narrow it.
      Planner planner = new Planner(classifier, options.gracePolicy());
      Dataset<ExecutionRow> executionsDS = Spread.byKey(planDS, partitions, "stateFileKey")
          .mapPartitions(new ExecuteFunctions.ExecuteRecords(planner, options.maxStateBytes(), options.s3(),
              options.bucket(),
              options.batchSize(), conditional.mode(), perTask, hook, attemptId, options.workers(), metrics),
              ExecutionRow.ENCODER);
      Dataset<Row> rows = SparkPlanAction.toTable(executionsDS.toDF().withColumn("failures",
          expr("transform(failures, f -> named_struct('key', f.key, 'code', f.code, 'message', f.message))")),
          Tables.EXECUTIONS_COLUMNS);
      SparkPlanAction.append(rows, tables, Tables.EXECUTIONS);
      spark.sparkContext().removeJobTag(tag);
      deletesDone = true;

      seconds.put("delete", (System.nanoTime() - phaseStart) / 1e9);
      phaseStart = System.nanoTime();
      phase("summary", "Counting the attempt");
      progress.phase("summary", null, -1);
      Row counts = spark.read().format("delta").load(tables.executions())
          .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId)))
          .agg(expr("count_if(outcome = 'deleted')"), expr("coalesce(sum(child_keys_deleted), 0)"),
              expr("count_if(outcome = 'kept_newer_files')"), expr("count_if(outcome = 'failed')"),
              expr("count_if(outcome = 'state_changed')"), expr("count_if(outcome = 'already_deleted')"),
              expr("count_if(outcome = 'changed_during_delete')"), expr("count_if(outcome = 'kept_refused')"),
              expr("count_if(outcome = 'came_back_during_delete')"))
          .first();
      RunSummary summary = summary(plan, attemptId, conditional, true, counts.getLong(0), counts.getLong(1),
          counts.getLong(2), counts.getLong(3), counts.getLong(4), counts.getLong(5), counts.getLong(6),
          counts.getLong(7), counts.getLong(8));
      List<LogLine> lines = logLines(tables, runDate, attemptId);
      PlanCost cost = attemptCost(prices, metrics, lock, lockBefore);
      summary = withCost(summary, cost);
      writeRun(tables, plan, attemptId, startedAt, conditional, summary, counts.getLong(4), counts.getLong(5),
          counts.getLong(6), counts.getLong(8), null, cost);
      seconds.put("summary", (System.nanoTime() - phaseStart) / 1e9);
      LockOutcome runLock = lock.outcome();
      return new ExecuteResult(runId, attemptId, runLock.appliedTo(summary), tables, conditional.describe(), lines,
          null, metrics.json("execute", runId, attemptId, summary, seconds), runLock);
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      spark.sparkContext().removeJobTag(tag); // the attempt's row below is no delete to cancel
      String why = cancelledBecause;
      String failure = why != null && !deletesDone ? "its deletes were cancelled: " + why : SparkPlanAction.rootMessage(e);
      LOG.error("Run {} attempt {} did not complete: {}", runId, attemptId, failure, e);
      RunSummary summary = summary(plan, attemptId, conditional, false, 0, 0, 0, 1, 0, 0, 0, 0, 0);
      PlanCost cost = null;
      try {
        cost = attemptCost(prices, metrics, lock, lockBefore);
        summary = withCost(summary, cost);
      } catch (RuntimeException costFailure) {
        LOG.warn("Run {}: cannot price attempt {}: {}", runId, attemptId, SparkPlanAction.rootMessage(costFailure));
      }
      try {
        writeRun(tables, plan, attemptId, startedAt, conditional, summary, 0, 0, 0, 0, failure, cost);
      } catch (RuntimeException writeFailure) {
        LOG.error("Cannot record attempt {} in {}: {}", attemptId, tables.runs(), SparkPlanAction.rootMessage(writeFailure));
      }
      seconds.put("failed", (System.nanoTime() - phaseStart) / 1e9);
      LockOutcome runLock = lock.outcome();
      return new ExecuteResult(runId, attemptId, runLock.appliedTo(summary), tables, conditional.describe(),
          List.of(), failure, metrics.json("execute", runId, attemptId, summary, seconds), runLock);
    } finally {
      deleteTag = null;
      spark.sparkContext().removeJobTag(tag);
      spark.sparkContext().removeSparkListener(lateJobs);
      progress.close();
      spark.sparkContext().clearJobGroup();
    }
  }

  /** The delete phase's tasks: twice the cores, or as many as the keys per second of a lower ceiling. */
  static int deletePartitions(int parallelism, int ceiling) {
    return ceiling > 0 && ceiling < parallelism ? ceiling : parallelism * 2;
  }

  /** Each task's share of {@code --max-deletes-per-second} (0: no ceiling). */
  static double keysPerSecondPerTask(int parallelism, int ceiling) {
    return ceiling == 0 ? 0 : (double) ceiling / Math.min(parallelism, deletePartitions(parallelism, ceiling));
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
      throw new IllegalArgumentException("The plan of run " + runId + " is for s3://" + bucket + "/" + prefix
          + ", not s3://" + options.bucket() + "/" + options.prefix() + ": give the same --bucket and --prefix");
    }
    String fingerprint = plan.getAs("layout_fingerprint");
    if (!options.layout().fingerprint().equals(fingerprint)) {
      throw new IllegalArgumentException("The plan of run " + runId + " was made with layout " + plan.getAs("layout")
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
      throw new IllegalArgumentException("The plan of run " + runId + " was made at " + plannedAt + ", "
          + hours(age) + " ago, more than max-plan-age " + hours(options.maxPlanAge())
          + ": the bucket has moved on since. Plan again, review and approve the new plan, and execute that;"
          + " or give --max-plan-age to execute this one anyway");
    }
    if (plannedInThisJob && !options.skipApproval() && !SparkPlanAction.plannedHere(runId)) {
      throw new IllegalArgumentException("The plan of run " + runId + " was not made in this job, so it is executed"
          + " only once it is approved. Review it (table " + tables.deletionPlan() + ", view plan_summary,"
          + " notebooks/), then record the approval with: statesweep approve --run-id " + runId
          + " --by <your name> --warehouse " + tables.warehouse() + "; or execute with --skip-approval");
    }
    if (plannedInThisJob || options.skipApproval()) {
      if (options.skipApproval()) {
        LOG.warn("Run {}: executing without checking for an approval (--skip-approval)", runId);
      }
      return;
    }
    List<Row> approvals = SparkApproveAction.approvals(spark, tables, runId);
    if (approvals.isEmpty()) {
      throw new IllegalArgumentException("The plan of run " + runId + " has not been approved. Review it (table "
          + tables.deletionPlan() + ", view plan_summary, notebooks/), then record the approval with: statesweep"
          + " approve --run-id " + runId + " --by <your name> --warehouse " + tables.warehouse()
          + "; or execute with --skip-approval");
    }
    Row newest = approvals.get(0);
    String approvedBy = newest.getString(0);
    Instant approvedAt = newest.getTimestamp(1).toInstant();
    String approve = "statesweep approve --run-id " + runId + " --by <your name> --warehouse " + tables.warehouse();
    if (newest.isNullAt(2)) {
      throw new IllegalArgumentException("The approval of run " + runId + " by " + approvedBy + " at " + approvedAt
          + " was recorded before approvals carried a digest of the plan's rows, so it cannot show that table "
          + tables.deletionPlan() + " still holds the plan that was approved. Review the plan again, then approve it"
          + " again with: " + approve);
    }
    String runDate = plan.getAs("run_date");
    long version = PlanDigest.currentVersion(spark, tables);
    PlanDigest.Result current = PlanDigest.of(spark, tables, version, runDate, runId);
    String approvedDigest = newest.getString(2);
    if (!current.digest().equals(approvedDigest)) {
      throw new IllegalArgumentException("The plan of run " + runId + " changed after it was approved: approved"
          + " digest " + approvedDigest + " (" + newest.getLong(3) + " rows, approved by " + approvedBy + " at "
          + approvedAt + "), current digest " + current.digest() + " (" + current.rows() + " rows of the run in table "
          + tables.deletionPlan() + "). Nothing was deleted. Review the plan again, then approve it again with: "
          + approve);
    }
    planVersion = version;
    LOG.info("Run {}: approved by {} at {}; its {} plan rows match the approved digest {}", runId, approvedBy,
        approvedAt, current.rows(), approvedDigest);
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
          runId, findings.reads().describe());
    }
    return findings;
  }

  /** statesweep's own key beside the export prefix, such as {@code cogram.statesweep/probe-<attempt>}. */
  private String probeKey(String attemptId) {
    String prefix = options.prefix().value();
    return prefix.substring(0, prefix.length() - 1) + ".statesweep/probe-" + attemptId;
  }

  private Dataset<PlanRow> plannedRows(Tables tables, String runDate) {
    Column ofThisRun = col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId));
    // After an approval check, the version whose digest matched: a row changed since is not executed.
    Dataset<Row> plan = (planVersion == null ? spark.read().format("delta").load(tables.deletionPlan())
        : PlanDigest.planRows(spark, tables, planVersion, runDate, runId))
        .filter(ofThisRun.and(col("action").isin(Action.DELETE_RECORD.label(), Action.DELETE_REMOVED_FILES.label())));
    List<Column> columns = new ArrayList<>();
    for (String column : Tables.DELETION_PLAN_COLUMNS) {
      columns.add(column.equals("deletes")
          ? expr("transform(deletes, d -> named_struct('key', d.key, 'etag', d.etag, 'lastModified', d.last_modified,"
              + " 'size', d.size, 'role', d.role))").as("deletes")
          // A plan recorded before the table had missing_files (execute does not use it).
          : column.equals(RunsTable.MISSING_FILES) && !Arrays.asList(plan.columns()).contains(column)
              ? expr("cast(null as array<string>)").as(Tables.property(column))
              : col(column).as(Tables.property(column)));
    }
    return plan.select(columns.toArray(Column[]::new))
        .dropDuplicates("stateFileKey")
        .as(PlanRow.ENCODER);
  }


  private RunSummary summary(Row plan, String attemptId, ConditionalDeleteProbe.Answer conditional, boolean complete,
      long deleted, long childKeys, long keptNewer, long failed, long stateChanged, long alreadyDeleted,
      long changedDuringDelete, long refused, long cameBack) {
    long scanned = plan.<Long>getAs("state_files_scanned");
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("state_changed", Long.toString(stateChanged));
    extra.put("already_deleted", Long.toString(alreadyDeleted));
    extra.put("changed_during_delete", Long.toString(changedDuringDelete));
    extra.put("came_back_during_delete", Long.toString(cameBack));
    extra.put("bad_state", Long.toString(plan.<Long>getAs("bad_state")));
    RunsTable.missingFiles(plan).ifPresent(missing -> extra.put("missing_files", Long.toString(missing)));
    extra.put("conditional_deletes", conditional.mode().name().toLowerCase(java.util.Locale.ROOT));
    extra.put("conditional_reads", conditionalReads.verdict().label());
    extra.put("run_id", runId);
    extra.put("attempt_id", attemptId);
    return new RunSummary(false, complete, scanned, deleted, childKeys, scanned - deleted,
        plan.<Long>getAs("kept_newer_files") + keptNewer, plan.<Long>getAs("kept_refused") + refused,
        plan.<Long>getAs("skipped"),
        plan.<Long>getAs("errors") + failed, extra);
  }

  /**
   * One line per record that the attempt kept or failed, never capped by {@code --log-lines} (which caps
   * only a dry run's {@code would delete} lines): refused and coming-back lines are what users alert on.
   */
  private List<LogLine> logLines(Tables tables, String runDate, String attemptId) {
    List<LogLine> lines = new ArrayList<>();
    Dataset<Row> kept = spark.read().format("delta").load(tables.executions())
        .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId))
            .and(col("outcome").isin(Outcome.KEPT_NEWER_FILES.label(), Outcome.KEPT_REFUSED.label(),
                Outcome.STATE_CHANGED.label(),
                Outcome.CHANGED_DURING_DELETE.label(), Outcome.FAILED.label())))
        .orderBy("state_file_key").select("state_file_key", "message");
    kept.toLocalIterator().forEachRemaining(row -> lines.add(LogLine.kept(row.getString(0), row.getString(1))));
    // A file lost to a record that came back while it went is never silent: one line per key (spec section 4).
    Dataset<Row> cameBack = spark.read().format("delta").load(tables.executions())
        .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId))
            .and(col("outcome").equalTo(Outcome.CAME_BACK_DURING_DELETE.label())))
        .select(col("state_file_key"), explode(col("deleted_keys")).as("key"))
        .orderBy("state_file_key", "key");
    cameBack.toLocalIterator()
        .forEachRemaining(row -> lines.add(LogLine.cameBack(row.getString(0), row.getString(1))));
    return lines;
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
        cost.requestCount(), cost.requests(), cost.attemptPairs().get("cost_usd"), region.name(), region.from());
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

  private void writeRun(Tables tables, Row plan, String attemptId, Instant startedAt,
      ConditionalDeleteProbe.Answer conditional, RunSummary summary, long stateChanged, long alreadyDeleted,
      long changedDuringDelete, long cameBack, String failure, PlanCost cost) {
    RunsTable.RunRow row = new RunsTable.RunRow(runId, plan.getAs("run_date"), attemptId, "execute", startedAt,
        Instant.now(), plan.<java.sql.Timestamp>getAs("planned_at").toInstant(), options.bucket(),
        options.prefix().value(), plan.getAs("layout"), plan.getAs("layout_fingerprint"),
        plan.<Integer>getAs("grace_days"), options.settings(),
        conditional.describe(), 0, 0, 0, plan.<Long>getAs("bad_state"), plan.<Long>getAs("not_yet_due"), stateChanged,
        alreadyDeleted, changedDuringDelete, cameBack, summary, failure, RunsTable.Source.NONE, cost);
    SparkPlanAction.append(RunsTable.dataset(spark, row), tables, Tables.RUNS);
  }

  private void phase(String name, String description) {
    spark.sparkContext().setJobGroup(JOB_GROUP + "-" + name, "statesweep execute: " + description, false);
    LOG.info("Phase {}: {}", name, description);
  }


}
