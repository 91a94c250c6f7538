package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.config.RunOptions;
import io.statesweep.execute.ConditionalDeleteProbe;
import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.execute.Outcome;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.Action;
import io.statesweep.plan.RunSummary;
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
   * The plan was made by this same job ({@code run --execute}): the scheduled, unattended path, which
   * needs no approval.
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

  public ExecuteResult execute() {
    Tables tables = new Tables(options.warehouse());
    Instant startedAt = Instant.now();
    Row plan = planRun(tables);
    checkReviewable(tables, plan);
    String runDate = plan.getAs("run_date");
    String attemptId = RunContext.start(startedAt, options.graceDays()).runId();
    ObjectStore store = new ObjectStore(S3Clients.shared(options.s3()), options.bucket());
    ConditionalDeleteProbe.Answer conditional = new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON,
        "unverified: the probe did not run");
    RunMetrics metrics = RunMetrics.register(spark.sparkContext());
    Progress progress = Progress.every(options.progressSeconds(), metrics, runId);
    Map<String, Double> seconds = new LinkedHashMap<>();
    long phaseStart = System.nanoTime();
    try {
      conditional = conditional(store, attemptId);
      metrics.addRequests(store.requestCounts());
      LOG.info("Run {}: executing its plan as attempt {} (conditional deletes {})", runId, attemptId,
          conditional.describe());
      phase("delete", "Verifying and deleting the planned keys of run " + runId);
      Dataset<PlanRow> planDS = plannedRows(tables, runDate);
      progress.phase("delete", "records_verified", planDS.count());
      int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
      int partitions = parallelism * 2;
      double perTask = options.maxDeletesPerSecond() == 0 ? 0 : (double) options.maxDeletesPerSecond() / parallelism;
      KeyClassifier classifier = options.layout().classifier(options.prefix());
      Dataset<ExecutionRow> executionsDS = planDS.repartition(partitions, col("stateFileKey"))
          .mapPartitions(new ExecuteFunctions.ExecuteRecords(classifier, options.s3(), options.bucket(),
              options.batchSize(), conditional.mode(), perTask, hook, attemptId, options.workers(), metrics),
              ExecutionRow.ENCODER);
      Dataset<Row> rows = SparkPlanAction.toTable(executionsDS.toDF().withColumn("failures",
          expr("transform(failures, f -> named_struct('key', f.key, 'code', f.code, 'message', f.message))")),
          Tables.EXECUTIONS_COLUMNS);
      SparkPlanAction.append(rows, tables.executions());

      seconds.put("delete", (System.nanoTime() - phaseStart) / 1e9);
      phaseStart = System.nanoTime();
      phase("summary", "Counting the attempt");
      progress.phase("summary", null, -1);
      Row counts = spark.read().format("delta").load(tables.executions())
          .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId)))
          .agg(expr("count_if(outcome = 'deleted')"), expr("coalesce(sum(child_keys_deleted), 0)"),
              expr("count_if(outcome = 'kept_newer_files')"), expr("count_if(outcome = 'failed')"),
              expr("count_if(outcome = 'state_changed')"), expr("count_if(outcome = 'already_deleted')"),
              expr("count_if(outcome = 'changed_during_delete')"), expr("count_if(outcome = 'kept_refused')"))
          .first();
      RunSummary summary = summary(plan, attemptId, conditional, true, counts.getLong(0), counts.getLong(1),
          counts.getLong(2), counts.getLong(3), counts.getLong(4), counts.getLong(5), counts.getLong(6),
          counts.getLong(7));
      List<String> lines = logLines(tables, runDate, attemptId);
      writeRun(tables, plan, attemptId, startedAt, conditional, summary, counts.getLong(4), counts.getLong(5),
          counts.getLong(6), null);
      seconds.put("summary", (System.nanoTime() - phaseStart) / 1e9);
      return new ExecuteResult(runId, attemptId, summary, tables, conditional.describe(), lines, null,
          metrics.json("execute", runId, attemptId, summary, seconds));
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      String failure = SparkPlanAction.rootMessage(e);
      LOG.error("Run {} attempt {} did not complete: {}", runId, attemptId, failure, e);
      RunSummary summary = summary(plan, attemptId, conditional, false, 0, 0, 0, 1, 0, 0, 0, 0);
      try {
        writeRun(tables, plan, attemptId, startedAt, conditional, summary, 0, 0, 0, failure);
      } catch (RuntimeException writeFailure) {
        LOG.error("Cannot record attempt {} in {}: {}", attemptId, tables.runs(), SparkPlanAction.rootMessage(writeFailure));
      }
      seconds.put("failed", (System.nanoTime() - phaseStart) / 1e9);
      return new ExecuteResult(runId, attemptId, summary, tables, conditional.describe(), List.of(), failure,
          metrics.json("execute", runId, attemptId, summary, seconds));
    } finally {
      progress.close();
      spark.sparkContext().clearJobGroup();
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
   * by another job, one that nobody approved, unless {@code --skip-approval}. Each refusal says what to do.
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
    LOG.info("Run {}: approved by {} at {}", runId, approvals.get(0).getString(0), approvals.get(0).getTimestamp(1));
  }

  private static String hours(Duration duration) {
    long minutes = duration.toMinutes();
    return minutes % 60 == 0 ? minutes / 60 + "h" : minutes / 60 + "h" + minutes % 60 + "m";
  }

  private ConditionalDeleteProbe.Answer conditional(ObjectStore store, String attemptId) {
    return switch (options.conditionalDeletes()) {
      case ON -> new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON, "set");
      case OFF -> new ConditionalDeleteProbe.Answer(ConditionalDeletes.OFF, "set");
      // At the bucket root, "beside the prefix" would be inside the export: no probe there.
      case AUTO -> options.prefix().isBucketRoot()
          ? new ConditionalDeleteProbe.Answer(ConditionalDeletes.ON, "unverified: no probe at the bucket root")
          : ConditionalDeleteProbe.detect(store, probeKey(attemptId));
    };
  }

  /** statesweep's own key beside the export prefix, such as {@code cogram.statesweep/probe-<attempt>}. */
  private String probeKey(String attemptId) {
    String prefix = options.prefix().value();
    return prefix.substring(0, prefix.length() - 1) + ".statesweep/probe-" + attemptId;
  }

  private Dataset<PlanRow> plannedRows(Tables tables, String runDate) {
    Column ofThisRun = col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId));
    Dataset<Row> plan = spark.read().format("delta").load(tables.deletionPlan())
        .filter(ofThisRun.and(col("action").isin(Action.DELETE_RECORD.label(), Action.DELETE_REMOVED_FILES.label())));
    // What each state file listed when it was planned; its unchanged ETag at execution vouches for it.
    Dataset<Row> listed = spark.read().format("delta").load(tables.stateFiles())
        .filter(ofThisRun.and(col("status").equalTo("read")))
        .select(col("key").as("listed_state_key"), expr("array_remove(array_distinct(concat("
            + "coalesce(files, array()), coalesce(delete_files, array()))), key)").as("listedKeys"))
        .dropDuplicates("listed_state_key");
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
    columns.add(col("listedKeys"));
    return plan.join(listed, plan.col("state_file_key").equalTo(listed.col("listed_state_key")), "left")
        .select(columns.toArray(Column[]::new))
        .dropDuplicates("stateFileKey")
        .as(PlanRow.ENCODER);
  }


  private RunSummary summary(Row plan, String attemptId, ConditionalDeleteProbe.Answer conditional, boolean complete,
      long deleted, long childKeys, long keptNewer, long failed, long stateChanged, long alreadyDeleted,
      long changedDuringDelete, long refused) {
    long scanned = plan.<Long>getAs("state_files_scanned");
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("state_changed", Long.toString(stateChanged));
    extra.put("already_deleted", Long.toString(alreadyDeleted));
    extra.put("changed_during_delete", Long.toString(changedDuringDelete));
    extra.put("bad_state", Long.toString(plan.<Long>getAs("bad_state")));
    RunsTable.missingFiles(plan).ifPresent(missing -> extra.put("missing_files", Long.toString(missing)));
    extra.put("conditional_deletes", conditional.mode().name().toLowerCase(java.util.Locale.ROOT));
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
  private List<String> logLines(Tables tables, String runDate, String attemptId) {
    List<String> lines = new ArrayList<>();
    Dataset<Row> kept = spark.read().format("delta").load(tables.executions())
        .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId))
            .and(col("outcome").isin(Outcome.KEPT_NEWER_FILES.label(), Outcome.KEPT_REFUSED.label(),
                Outcome.STATE_CHANGED.label(),
                Outcome.CHANGED_DURING_DELETE.label(), Outcome.FAILED.label())))
        .orderBy("state_file_key").select("state_file_key", "message");
    kept.toLocalIterator().forEachRemaining(row -> lines.add("kept " + row.getString(0) + ": " + row.getString(1)));
    return lines;
  }

  private void writeRun(Tables tables, Row plan, String attemptId, Instant startedAt,
      ConditionalDeleteProbe.Answer conditional, RunSummary summary, long stateChanged, long alreadyDeleted,
      long changedDuringDelete, String failure) {
    RunsTable.RunRow row = new RunsTable.RunRow(runId, plan.getAs("run_date"), attemptId, "execute", startedAt,
        Instant.now(), plan.<java.sql.Timestamp>getAs("planned_at").toInstant(), options.bucket(),
        options.prefix().value(), plan.getAs("layout"), plan.getAs("layout_fingerprint"),
        plan.<Integer>getAs("grace_days"), options.settings(),
        conditional.describe(), 0, 0, 0, plan.<Long>getAs("bad_state"), plan.<Long>getAs("not_yet_due"), stateChanged,
        alreadyDeleted, changedDuringDelete, summary, failure, RunsTable.Source.NONE);
    SparkPlanAction.append(RunsTable.dataset(spark, row), tables.runs());
  }

  private void phase(String name, String description) {
    spark.sparkContext().setJobGroup(JOB_GROUP + "-" + name, "statesweep execute: " + description, false);
    LOG.info("Phase {}: {}", name, description);
  }


}
