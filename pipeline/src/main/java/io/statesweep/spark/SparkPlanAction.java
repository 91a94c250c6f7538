package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.spark.plan.Listings;
import io.statesweep.spark.plan.PlanCosts;
import io.statesweep.spark.plan.PlanFunctions;
import io.statesweep.spark.plan.PlanSummary;
import io.statesweep.spark.plan.RecordJoin;
import io.statesweep.spark.plan.Rows;
import io.statesweep.spark.plan.StateReuse;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.Spread;
import io.statesweep.spark.tables.CatalogTables;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.tables.TableWrites;
import io.statesweep.api.LockOutcome;
import io.statesweep.api.LogLine;
import io.statesweep.api.Metrics;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.config.RunOptions;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.Action;
import io.statesweep.plan.LineText;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RunSummary;
import io.statesweep.cost.PlanCost;
import io.statesweep.cost.PriceTable;
import io.statesweep.store.BucketVersioning;
import io.statesweep.state.StateParser;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a cleanup: lists the export prefix in parallel tasks, reads and parses every state file in
 * executors, joins each record's listed keys with the listing, decides one action per record with
 * the {@link Planner}, and appends the dry-run report to the Delta tables {@code state_files},
 * {@code deletion_plan} and {@code runs}. It deletes nothing.
 *
 * <p>The driver holds only the listing tasks (folder names) and the summary, never the keys. The records are planned
 * once, into rows held by the job (a local checkpoint): the tables are written from them, and the summary, the cost
 * and the per-key lines are read from the same rows, so the summary is exactly what analysts see.
 *
 * <p>It holds the export's run lock while it runs (README, "One run at a time"): {@link #execute()} throws
 * {@link io.statesweep.api.failures.RunLockException.Held} while another run holds it, and
 * {@link io.statesweep.api.failures.RunLockException.Unavailable} when it cannot be taken for another reason. When the
 * store denies the lock's permissions, the plan (which deletes nothing) warns and goes on without it; a lock
 * lost during the plan is reported in its result ({@link PlanResult#runLock()}, exit code 1).
 */
final class SparkPlanAction {
  private static final Logger LOG = LoggerFactory.getLogger(SparkPlanAction.class);
  private static final String JOB_GROUP = "statesweep-plan";
  private static final String SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions";

  private final SparkSession spark;
  private final RunOptions options;
  private Clock clock = Clock.systemUTC();
  private Consumer<LogLine> sink = line -> { };
  private final Map<String, Double> phaseSeconds = new LinkedHashMap<>();
  private String currentPhase;
  private long stateReads;
  private long phaseStarted;
  private RunsTable.Source source = RunsTable.Source.LIST;
  private RunMetrics metrics;
  private Progress progress;
  /** The lock of the action this plan runs in ({@link SparkRunAction}), or null: the plan takes its own. */
  private ActionLock heldLock;
  /** Key and storage class of every listed key (see {@link PlanCosts#storageClasses}). */
  private Dataset<Row> storageClassesDS;
  /** The rows of this run's {@code state_files} and {@code deletion_plan}, as they were written. */
  private Dataset<Row> stateFileRows;
  private Dataset<Row> planRows;
  private PriceTable priceTable;
  private BucketVersioning versioning;
  /** The plan's tables, made on a thread of their own where they are missing. */
  private PlanTables planTables;

  SparkPlanAction(SparkSession spark, RunOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
  }

  /**
   * Where the plan's per-key lines go, each as it is produced (the command line prints them); by default nowhere.
   * The result keeps the first {@link LogLine#RESULT_SAMPLE} of them and how many of each kind there were.
   */
  SparkPlanAction lines(Consumer<LogLine> newSink) {
    this.sink = requireNonNull(newSink, "sink is null");
    return this;
  }

  /** The clock that fixes the run's "now" (tests plan at a chosen time). */
  SparkPlanAction clock(Clock newClock) {
    this.clock = requireNonNull(newClock, "clock is null");
    return this;
  }

  /** Runs under the lock of the action that runs this plan, which releases it ({@link SparkRunAction}). */
  SparkPlanAction underLock(ActionLock lock) {
    this.heldLock = requireNonNull(lock, "lock is null").shared();
    return this;
  }

  /**
   * Takes the run lock, plans, and releases the lock: see the class's documentation for the lock. A plan
   * that does not complete returns a result that says why ({@link PlanResult#failure()}).
   */
  PlanResult execute() {
    try (ActionSettings settings = ActionSettings.of(spark);
        ActionLock lock = heldLock != null ? heldLock : ActionLock.forDryRun(options, "plan")) {
      return plan(lock, settings);
    }
  }

  private PlanResult plan(ActionLock lock, ActionSettings settings) {
    RunContext run = RunContext.start(clock.instant(), options.graceDays());
    Tables tables = new Tables(options.warehouse(), options.catalogSchema());
    // A schema the catalog lacks, or a table name it holds elsewhere, is a bad setting: nothing is listed or written.
    CatalogTables.registerAll(spark, tables);
    Instant startedAt = Instant.now();
    LOG.info("Run {}: planning s3://{}/{} (layout {}, grace {} days) into {}", run.runId(), options.bucket(),
        LineText.escape(options.prefix().value()), LineText.escape(options.layout().name()), options.graceDays(),
        LineText.escape(tables.warehouse()));
    metrics = RunMetrics.register(spark.sparkContext());
    progress = Progress.every(options.progressSeconds(), metrics, run.runId());
    LineStream lines = new LineStream(sink);
    try {
      priceTable = PlanCosts.priceTable(spark, options);
      planTables = PlanTables.makeMissing(spark, tables, priceTable, PlanCosts.region(options).name());
      versioning = bucketVersioning();
      Counts counts = plan(run, tables, settings);
      PlanCost cost = cost(run, tables, lock, counts);
      RunSummary summary = summary(run, counts, true, 0);
      for (Map.Entry<String, String> pair : cost.summaryPairs().entrySet()) {
        summary = summary.with(pair.getKey(), pair.getValue());
      }
      logLines(counts, lines);
      if (cost.versioningNote() != null && versioning.keepsNoncurrentVersions()) {
        lines.accept(LogLine.versioning(options.bucket(), cost.versioningNote()));
      }
      // Every table the review reads exists from here on, empty where nothing happened yet.
      planTables.await();
      writeRun(run, tables, startedAt, summary, counts, null, cost);
      return result(run, tables, summary, lines, null, lock);
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      LOG.error("Run {} did not complete: {}", run.runId(), LineText.escape(RootMessage.of(e)), e);
      RunSummary summary = summary(run, Counts.NONE, false, 1);
      if (planTables != null) {
        planTables.awaitQuietly();
      }
      try {
        writeRun(run, tables, startedAt, summary, Counts.NONE, RootMessage.of(e), null);
      } catch (RuntimeException writeFailure) {
        LOG.error("Cannot record the failed run {} in {}: {}", run.runId(), LineText.escape(tables.runs()),
            LineText.escape(RootMessage.of(writeFailure)));
      }
      return result(run, tables, summary, lines, RootMessage.of(e), lock);
    } finally {
      if (planTables != null) {
        planTables.awaitQuietly();
      }
      progress.close();
      spark.sparkContext().clearJobGroup();
    }
  }

  /**
   * GetBucketVersioning, on the driver: Enabled, Suspended, Off, or unknown (denied, or not supported by the
   * store) with why; never a failure of the plan.
   */
  private BucketVersioning bucketVersioning() {
    S3ObjectStore store = S3ObjectStore.open(options.s3(), options.bucket());
    BucketVersioning answer = store.bucketVersioning();
    metrics.addRequests(store.requestCounts());
    if (answer.unknownBecause() != null) {
      LOG.warn("Bucket versioning of s3://{} is unknown: {}", options.bucket(),
          LineText.escape(answer.unknownBecause()));
    }
    return answer;
  }

  /** What the plan cost, what its execute will cost, and what it frees (README, "The cost of a run"). */
  private PlanCost cost(RunContext run, Tables tables, ActionLock lock, Counts counts) {
    phase("cost", "Pricing the plan");
    PlanCosts.Region region = PlanCosts.region(options);
    Map<String, Long> executeRequests = PlanCosts.executeRequests(spark, options, planRows);
    PlanCosts.Freed freed = PlanCosts.freed(planRows, run.now(), storageClassesDS, priceTable);
    // Everything the plan sent until now: its tasks', the driver's, and the run lock's (its release follows).
    Map<String, Long> requests = PlanCosts.plus(PlanCosts.sent(metrics.requests()),
        PlanCosts.sentBy(lock.requestCounts()));
    if (!priceTable.regions().containsKey(region.name())) {
      LOG.warn("Price table {} has no prices for region {}; its regions are {}: the run's dollars are {}",
          LineText.escape(priceTable.origin()), LineText.escape(region.name()),
          LineText.escape(String.join(", ", priceTable.regionNames())), PlanCost.UNPRICED);
    }
    PlanCost cost = PlanCost.priced(priceTable, region.name(), region.from(), requests, executeRequests,
        freed.bytes(), freed.byteDaysLeft(), versioning.status(),
        PlanCosts.versioningNote(options, versioning, counts.bytes()));
    LOG.info("Run {}: {}", run.runId(), LineText.escape(cost.describe()));
    if (cost.versioningNote() != null) {
      LOG.warn("Run {}: {}", run.runId(), LineText.escape(cost.versioningNote()));
    }
    return cost;
  }

  private Counts plan(RunContext run, Tables tables, ActionSettings settings) {
    KeyClassifier classifier = options.layout().classifier(options.prefix());
    Planner planner = new Planner(classifier, options.gracePolicy());

    Listings.Listing listing;
    if (options.listing() == RunOptions.Listing.INVENTORY) {
      phase("list", "Reading the inventory report " + options.inventory());
      source = new RunsTable.Source("inventory", options.inventory().toString(), null);
      progress.phase("list", "keys_listed", -1);
      listing = Listings.fromInventory(spark, options, run.runId());
    } else {
      phase("list", "Listing s3://" + options.bucket() + "/" + options.prefix());
      source = RunsTable.Source.LIST;
      progress.phase("list", "keys_listed", -1);
      listing = Listings.fromListing(spark, options, classifier, metrics, run.runId());
    }
    source = listing.source();
    Dataset<ObjectRow> listingDS = listing.objects();
    long keysListed = listingDS.count();
    LOG.info("Run {}: {} keys under the prefix ({})", run.runId(), keysListed,
        LineText.escape(listing.description()));
    int partitions = RecordJoin.shufflePartitions(keysListed, Integer.parseInt(spark.conf().get(SHUFFLE_PARTITIONS)));
    settings.set(SHUFFLE_PARTITIONS, Integer.toString(partitions));
    return planListed(run, tables, classifier, planner, listing, keysListed, partitions);
  }

  private Counts planListed(RunContext run, Tables tables, KeyClassifier classifier, Planner planner,
      Listings.Listing listing, long keysListed, int partitions) {
    Dataset<ObjectRow> listingDS = listing.objects();
    storageClassesDS = PlanCosts.storageClasses(listingDS);
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    phase("read-state-files", "Reading state files");
    Dataset<StateFileRow> classifiedDS = listingDS
        .filter(new PlanFunctions.IsStateFileName())
        .map(new PlanFunctions.ClassifyStateNamed(classifier, run), TableSchemas.STATE_FILES.encoder());
    if (!options.scope().all()) {
      // Only the records in scope are read and planned; owners still come from the whole listing (RecordJoin).
      classifiedDS = classifiedDS.filter(new PlanFunctions.InScope(options.scope()));
    }
    Row previousRun = options.reuseStateFiles() ? previousPlan(tables) : null;
    String previous = previousRun == null ? null : previousRun.getString(0);
    if (previousRun != null) {
      // Joined once: the count below and the reads both take these rows.
      classifiedDS = StateReuse.withPrevious(spark, classifiedDS, tables, previous, previousRun.getString(1))
          .localCheckpoint(true);
    }
    // The rows still "listed" before reading are the ones that need a GET: the phase's total.
    stateReads = classifiedDS.filter(col("status").equalTo(Rows.LISTED)).count();
    progress.phase("read-state-files", "state_files_read", stateReads);
    Dataset<StateFileRow> stateFilesDS = Spread.byKey(classifiedDS, Math.max(parallelism * 2, partitions), "key")
        .mapPartitions(new PlanFunctions.ReadStateFiles(classifier, options.s3(), options.bucket(),
            options.maxStateBytes(), options.workers(), metrics), TableSchemas.STATE_FILES.encoder())
        // Each state file is read once: the table and the plan see the same documents.
        .localCheckpoint(true);
    stateFileRows = TableWrites.toTable(stateFilesDS.toDF(), TableSchemas.STATE_FILES);
    planTables.await(Tables.STATE_FILES);
    TableWrites.append(stateFileRows, tables, Tables.STATE_FILES);
    LOG.info("Run {}: {} state files read with GET{}", run.runId(), stateReads,
        previous == null ? "" : " (the others taken from run " + previous + ", their ETags unchanged)");

    phase("plan", "Planning records");
    progress.phase("plan", "records_planned", -1);
    Dataset<PlanRow> planDS = RecordJoin.records(stateFilesDS, listingDS, classifier)
        .map(new PlanFunctions.PlanRecord(classifier, planner, run, listing.listedAt(), metrics),
            TableSchemas.DELETION_PLAN.encoder());
    // The records are planned once: the table is written from these rows, and its summary, the run's counts, its
    // cost and its lines are all read from them, never from a second planning or a reading of the table back.
    planRows = TableWrites.planTable(planDS).localCheckpoint(true);
    planTables.await(Tables.DELETION_PLAN);
    TableWrites.append(planRows, tables, Tables.DELETION_PLAN);
    planTables.await(Tables.PLAN_SUMMARY);
    TableWrites.append(PlanSummary.of(planRows, storageClassesDS, priceTable, PlanCosts.region(options).name()), tables,
        Tables.PLAN_SUMMARY);
    return counts(keysListed, listing.tasks());
  }

  /**
   * The last complete plan of this bucket, prefix, layout and state parser version, whose parsed state files this run may
   * reuse, as its run id and run date; null when there is none (or no table yet).
   */
  private Row previousPlan(Tables tables) {
    try {
      List<Row> rows = spark.read().format("delta").load(tables.runs())
          .filter(col("command").equalTo("plan").and(col("complete")).and(col("bucket").equalTo(options.bucket()))
              .and(col("prefix").equalTo(options.prefix().value()))
              .and(col("layout_fingerprint").equalTo(options.layout().fingerprint()))
              // Rows parsed by another version of the parser may hold what this one refuses (altered, too).
              .and(col("state_parser").equalTo(StateParser.VERSION)))
          .orderBy(col("started_at").desc()).select("run_id", "run_date").limit(1).collectAsList();
      return rows.isEmpty() ? null : rows.get(0);
    } catch (Exception e) {
      // No runs table yet (the first run), or one we cannot read: read every state file.
      LOG.info("No earlier plan to reuse state files from: {}", LineText.escape(RootMessage.of(e)));
      return null;
    }
  }

  /** The run's counts, from the rows its tables were written from (the state files, the plan). */
  private Counts counts(long keysListed, long listingTasks) {
    phase("summary", "Counting the plan");
    Row stateCounts = stateFileRows
        .agg(expr("count_if(status <> 'skipped')"), expr("count_if(status = 'skipped')"),
            expr("count_if(status = 'read_error')"), expr("count_if(status = 'gone')"))
        .first();
    Row planCounts = planRows
        .agg(expr("count(*)"),
            expr("count_if(action = 'delete_record')"),
            expr("coalesce(sum(child_keys_to_delete), 0)"),
            expr("coalesce(sum(bytes_to_delete), 0)"),
            expr("count_if(action = 'kept_newer_files')"),
            expr("count_if(action = 'kept_refused')"),
            expr("count_if(action = 'bad_state')"),
            expr("count_if(action = 'not_yet_due')"),
            expr("count_if(action = 'delete_removed_files')"),
            expr("coalesce(sum(size(coalesce(missing_files, array()))), 0)"),
            expr("coalesce(sum(if(action in ('delete_record', 'delete_removed_files'),"
                + " size(coalesce(deletes, array())), 0)), 0)"))
        .first();
    return new Counts(stateCounts.getLong(0), stateCounts.getLong(1), stateCounts.getLong(2), stateCounts.getLong(3),
        planCounts.getLong(0), planCounts.getLong(1), planCounts.getLong(2), planCounts.getLong(3),
        planCounts.getLong(4), planCounts.getLong(5), planCounts.getLong(6), planCounts.getLong(7),
        planCounts.getLong(8), planCounts.getLong(9), planCounts.getLong(10), keysListed, listingTasks);
  }

  private RunSummary summary(RunContext run, Counts counts, boolean complete, long extraErrors) {
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("bad_state", Long.toString(counts.badState()));
    extra.put("missing_files", Long.toString(counts.missingFiles()));
    extra.put("not_yet_due", Long.toString(counts.notYetDue()));
    extra.put("records_with_removed_files", Long.toString(counts.removedFilesRecords()));
    extra.put("gone", Long.toString(counts.gone()));
    extra.put("bytes_deleted", Long.toString(counts.bytes()));
    extra.put("keys_listed", Long.toString(counts.keysListed()));
    extra.put("state_file_gets", Long.toString(stateReads));
    if (!options.scope().all()) {
      extra.put("scope", options.scope().describe());
    }
    extra.put("run_id", run.runId());
    // As in the contract's example: every scanned state file whose record is not deleted is kept.
    long recordsKept = counts.stateFiles() - counts.recordsDeleted();
    return new RunSummary(options.dryRun(), complete, counts.stateFiles(), counts.recordsDeleted(), counts.childKeys(),
        recordsKept, counts.keptNewer(), counts.keptRefused(), counts.skipped(), counts.readErrors() + extraErrors,
        extra);
  }

  /**
   * The per-key lines (README, "What a run does"), each to {@code lines} as it is read: the first {@code --log-lines}
   * {@code would delete} lines, then every kept line (refused, coming back, bad state), every {@code missing} line
   * (a live record's file that the bucket lacks) and every skipped line, never capped: users count the alert
   * phrases with log metric filters, so one line left out is an alert missed. They reach the driver a bounded
   * partition at a time ({@link LineStream#inOrder}), however many there are.
   */
  private void logLines(Counts counts, LineStream lines) {
    phase("log-lines", "Printing log lines");
    if (options.logLines() != 0) {
      Column[] order = {col("state_file_key"), col("position")};
      Dataset<Row> deletesDS = planRows
          .filter(col("action").isin(Action.DELETE_RECORD.label(), Action.DELETE_REMOVED_FILES.label()))
          .select(col("state_file_key"), expr("posexplode(deletes) as (position, delete)"))
          .select(col("state_file_key"), col("position"), col("delete.key").as("key"));
      long deletes = counts.keysToDelete();
      if (options.logLines() != RunOptions.ALL_LINES) {
        deletesDS = deletesDS.orderBy(order).limit(options.logLines());
        deletes = Math.min(deletes, options.logLines());
      }
      LineStream.inOrder(deletesDS, deletes, order)
          .forEachRemaining(row -> lines.accept(LogLine.wouldDelete(row.getString(2))));
    }
    Dataset<Row> keptDS = planRows
        .filter(col("action").isin(Action.KEPT_REFUSED.label(), Action.KEPT_NEWER_FILES.label(),
            Action.BAD_STATE.label()))
        .select(col("state_file_key"), col("reason"));
    LineStream.inOrder(keptDS, counts.keptRefused() + counts.keptNewer() + counts.badState(), col("state_file_key"))
        .forEachRemaining(row -> lines.accept(LogLine.kept(row.getString(0), row.getString(1))));
    Dataset<Row> missingDS = planRows
        .select(col("state_file_key"), expr("posexplode(missing_files) as (position, key)"));
    LineStream.inOrder(missingDS, counts.missingFiles(), col("state_file_key"), col("position"))
        .forEachRemaining(row -> lines.accept(LogLine.missing(row.getString(2), row.getString(0))));
    Dataset<Row> stateDS = stateFileRows
        .filter(col("status").isin(Rows.SKIPPED, Rows.READ_ERROR))
        .select(col("status"), col("key"), col("message"));
    LineStream.inOrder(stateDS, counts.skipped() + counts.readErrors(), col("key"))
        .forEachRemaining(row -> lines.accept(Rows.SKIPPED.equals(row.getString(0))
            ? LogLine.skipped(row.getString(1), row.getString(2)) : LogLine.kept(row.getString(1), row.getString(2))));
  }

  /** The line (README, "What a run does") for a file that a live record lists and the bucket lacks. */
  static String missingLine(String key, String stateFileKey) {
    return LogLine.missing(key, stateFileKey).text();
  }

  private void writeRun(RunContext run, Tables tables, Instant startedAt, RunSummary summary, Counts counts,
      String failure, PlanCost cost) {
    phase("record-run", "Recording the run");
    RunsTable.RunRow row = new RunsTable.RunRow(run.runId(), run.runDate(), run.runId(), "plan", startedAt,
        Instant.now(), run.now(), options.bucket(), options.prefix().value(), options.layout().name(),
        options.layout().fingerprint(), options.graceDays(), options.settings(), null, counts.listingTasks(), counts.keysListed(), counts.bytes(),
        counts.badState(), counts.notYetDue(), 0, 0, 0, null, summary, failure, source, cost);
    TableWrites.append(RunsTable.dataset(spark, row), tables, Tables.RUNS);
    LOG.info("Run {} recorded in {}", run.runId(), LineText.escape(tables.runs()));
  }

  private void phase(String name, String description) {
    long now = System.nanoTime();
    if (currentPhase != null) {
      phaseSeconds.merge(currentPhase, (now - phaseStarted) / 1e9, Double::sum);
    }
    currentPhase = name;
    phaseStarted = now;
    spark.sparkContext().setJobGroup(JOB_GROUP + "-" + name, "statesweep plan: " + description, false);
    if (progress != null) {
      progress.phase(name, null, -1);
    }
    LOG.info("Phase {}: {}", name, LineText.escape(description));
  }

  /** The plan's result: its summary with the lock's and {@code --fail-on}'s pairs, its lines, metrics and phases. */
  private SparkPlanResult result(RunContext run, Tables tables, RunSummary summary, LineStream lines, String failure,
      ActionLock lock) {
    Map<String, Double> seconds = phaseSeconds();
    LockOutcome runLock = lock.outcome();
    return new SparkPlanResult(run.runId(), options.failOn().appliedTo(runLock.appliedTo(summary)), tables,
        lines.sample(), lines.counts(), failure, seconds,
        Metrics.of(metrics.json("plan", run.runId(), run.runId(), summary, seconds)), runLock);
  }

  private Map<String, Double> phaseSeconds() {
    phase("done", "Done");
    Map<String, Double> seconds = new LinkedHashMap<>(phaseSeconds);
    phaseSeconds.clear();
    currentPhase = null;
    return seconds;
  }

  /** Counts of one run, from the rows of its tables. */
  record Counts(long stateFiles, long skipped, long readErrors, long gone, long planned, long recordsDeleted,
      long childKeys, long bytes, long keptNewer, long keptRefused, long badState, long notYetDue,
      long removedFilesRecords, long missingFiles, long keysToDelete, long keysListed, long listingTasks) {
    static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }
}
