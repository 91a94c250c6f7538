package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.api.Tables;
import io.statesweep.api.failures.PlanRefusedException;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.plan.Action;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.tables.PlanDigest;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.spark.tables.TableColumn;
import io.statesweep.spark.tables.TableSchemas;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The plan an execute attempt executes, read and checked before anything is deleted (notebooks/README.md, "Review and
 * approve"): its own row of {@code runs} (complete, of this bucket, prefix and layout), its age, and, for a plan made
 * by another job, its newest approval and the digest of its rows. Each refusal is a {@link PlanRefusedException} that
 * says what to do. {@link #rows()} are then the rows to execute, from the table version whose digest matched the
 * approval.
 */
public final class ReviewedPlan {
  /** Where the plan was made, as far as the approval check goes. */
  public enum Origin {
    /** By another job: it is executed once approved, unless {@code --skip-approval}. */
    ANOTHER_JOB,
    /** A complete plan of this run id that a plan action of this same job made ({@code run --execute}): no approval. */
    THIS_JOB,
    /** Passed as this job's own plan, but no complete plan of this run id made in this job: refused. */
    NOT_THIS_JOBS
  }

  /** The newest approval of the plan, whose digest its rows (and {@code rows} of them) matched. */
  public record Approval(String by, Instant at, long rows, String digest) {}

  private final SparkSession spark;
  private final Tables tables;
  private final String runId;
  private final Row run;
  /** The version of deletion_plan whose rows matched the approved digest; null without an approval check. */
  private Long version;
  private Approval approval;

  private ReviewedPlan(SparkSession spark, Tables tables, String runId, Row run) {
    this.spark = spark;
    this.tables = tables;
    this.runId = runId;
    this.run = run;
  }

  /**
   * The plan of {@code runId}, checked: its row of runs ({@link #run}), its age by {@code clock}, and with
   * {@code origin} {@link Origin#ANOTHER_JOB} and no {@code --skip-approval}, its newest of {@code approvals} (newest
   * first: approved_by, approved_at, plan_digest, plan_rows).
   */
  public static ReviewedPlan check(SparkSession spark, ExecuteOptions options, Tables tables, String runId,
      Clock clock, Origin origin, Supplier<List<Row>> approvals) {
    requireNonNull(origin, "origin is null");
    ReviewedPlan plan = new ReviewedPlan(requireNonNull(spark, "spark is null"), requireNonNull(tables, "tables is null"),
        requireNonNull(runId, "runId is null"), planRun(spark, options, tables, runId));
    plan.checkReviewable(options, clock, origin, approvals);
    return plan;
  }

  /** The plan's own row in {@code runs}: it must exist, be complete, and be of this bucket and prefix. */
  private static Row planRun(SparkSession spark, ExecuteOptions options, Tables tables, String runId) {
    Row plan = RunsTable.planRow(spark, tables, runId);
    String bucket = plan.getAs("bucket");
    String prefix = plan.getAs("prefix");
    if (!bucket.equals(options.export().bucket()) || !prefix.equals(options.export().prefix().value())) {
      throw new PlanRefusedException("The plan of run " + runId + " is for s3://" + bucket + "/" + prefix
          + ", not s3://" + options.export().bucket() + "/" + options.export().prefix()
          + ": give the same --bucket and --prefix");
    }
    String fingerprint = plan.getAs("layout_fingerprint");
    if (!options.export().layout().fingerprint().equals(fingerprint)) {
      throw new PlanRefusedException("The plan of run " + runId + " was made with layout " + plan.getAs("layout")
          + " (SHA-256 " + fingerprint + "), not with " + options.export().layout().origin()
          + ": give the plan's --layout");
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
   * rows checked are the rows executed: {@link #rows()} reads the table version that was digested.
   */
  private void checkReviewable(ExecuteOptions options, Clock clock, Origin origin, Supplier<List<Row>> approvals) {
    Instant plannedAt = run.<java.sql.Timestamp>getAs("planned_at").toInstant();
    Duration age = Duration.between(plannedAt, clock.instant());
    if (age.compareTo(options.maxPlanAge()) > 0) {
      throw new PlanRefusedException("The plan of run " + runId + " was made at " + plannedAt + ", "
          + hours(age) + " ago, more than max-plan-age " + hours(options.maxPlanAge())
          + ": the bucket has moved on since. Plan again, review and approve the new plan, and execute that;"
          + " or give --max-plan-age to execute this one anyway");
    }
    if (origin == Origin.NOT_THIS_JOBS && !options.skipApproval()) {
      throw new PlanRefusedException("The plan of run " + runId + " was not made in this job, so it is executed"
          + " only once it is approved. Review it (table " + tables.deletionPlan() + ", view plan_summary,"
          + " notebooks/), then record the approval with: statesweep approve --run-id " + runId
          + " --by <your name> --warehouse " + tables.warehouse() + "; or execute with --skip-approval");
    }
    if (origin == Origin.ANOTHER_JOB && !options.skipApproval()) {
      checkApproval(approvals.get());
    }
  }

  /** Refuses a plan without an approval, or whose rows changed since its newest approval. */
  private void checkApproval(List<Row> approvals) {
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
    String runDate = run.getAs("run_date");
    long current = PlanDigest.currentVersion(spark, tables);
    PlanDigest.Result digested = PlanDigest.of(spark, tables, current, runDate, runId);
    String approvedDigest = newest.getString(2);
    if (newest.size() > 4 && !newest.isNullAt(4) && approvedDigest.equals(boundTo(newest.getLong(4)))) {
      approvedDigest = versionDigest(newest, approvedBy, approvedAt, runDate, approve);
    }
    if (!digested.digest().equals(approvedDigest)) {
      throw new PlanRefusedException("The plan of run " + runId + " changed after it was approved: approved"
          + " digest " + approvedDigest + " (" + newest.getLong(3) + " rows, approved by " + approvedBy + " at "
          + approvedAt + "), current digest " + digested.digest() + " (" + digested.rows() + " rows of the run in table "
          + tables.deletionPlan() + "). Nothing was deleted. Review the plan again, then approve it again with: "
          + approve);
    }
    version = current;
    approval = new Approval(approvedBy, approvedAt, digested.rows(), approvedDigest);
  }

  /** What {@code plan_digest} says of an approval bound to version {@code version} of deletion_plan. */
  public static String boundTo(long version) {
    return "deletion_plan version " + version;
  }

  /**
   * The digest of the run's rows in the version of deletion_plan an approval is bound to ({@code newest}'s
   * plan_version): what the reviewer read and approved, written by SQL where the digest cannot be computed (the
   * notebooks). Refused when that version cannot be read any more, or when its rows are not the count the approval
   * recorded.
   */
  private String versionDigest(Row newest, String approvedBy, Instant approvedAt, String runDate, String approve) {
    long bound = newest.getLong(4);
    PlanDigest.Result approved;
    try {
      approved = PlanDigest.of(spark, tables, bound, runDate, runId);
    } catch (RuntimeException e) {
      throw new PlanRefusedException("The approval of run " + runId + " by " + approvedBy + " at " + approvedAt
          + " is bound to version " + bound + " of table " + tables.deletionPlan() + ", which cannot be read: "
          + io.statesweep.spark.run.RootMessage.of(e) + ". Review the plan again, then approve it again with: "
          + approve, e);
    }
    if (newest.isNullAt(3) || approved.rows() != newest.getLong(3)) {
      throw new PlanRefusedException("The approval of run " + runId + " by " + approvedBy + " at " + approvedAt
          + " counts " + (newest.isNullAt(3) ? "no" : newest.getLong(3)) + " rows, but version " + bound + " of table "
          + tables.deletionPlan() + " holds " + approved.rows() + " rows of the run: it does not describe what it is"
          + " bound to. Review the plan again, then approve it again with: " + approve);
    }
    return approved.digest();
  }

  private static String hours(Duration duration) {
    long minutes = duration.toMinutes();
    return minutes % 60 == 0 ? minutes / 60 + "h" : minutes / 60 + "h" + minutes % 60 + "m";
  }

  /** The plan's own row of {@code runs}. */
  public Row run() {
    return run;
  }

  /** The plan's run date, which partitions its tables. */
  public String runDate() {
    return run.getAs("run_date");
  }

  /** The approval whose digest the rows matched; null when none was checked (this job's plan, --skip-approval). */
  public Approval approval() {
    return approval;
  }

  /**
   * The run's rows to execute: from the version of {@code deletion_plan} whose digest matched the approval, or the
   * latest when no approval was checked ({@link #rows(SparkSession, Tables, Long, String, String)}).
   */
  public Dataset<PlanRow> rows() {
    return rows(spark, tables, version, runDate(), runId);
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

  /**
   * The run's rows to execute, one per state file, from {@code deletion_plan} at {@code planVersion} (the version
   * whose digest matched an approval; null: the latest).
   */
  public static Dataset<PlanRow> rows(SparkSession spark, Tables tables, Long planVersion, String runDate,
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
}
