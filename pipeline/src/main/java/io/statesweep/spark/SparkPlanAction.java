package io.statesweep.spark;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.spark.plan.Listings;
import io.statesweep.spark.plan.MissingVersions;
import io.statesweep.spark.plan.PlanCosts;
import io.statesweep.spark.plan.PlanCounts;
import io.statesweep.spark.plan.PlanSummary;
import io.statesweep.spark.plan.Planning;
import io.statesweep.spark.plan.RecordJoin;
import io.statesweep.spark.plan.Rows;
import io.statesweep.spark.plan.StateReading;
import io.statesweep.spark.run.ActionLock;
import io.statesweep.spark.run.ActionSettings;
import io.statesweep.spark.run.LineStream;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RootMessage;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.StoreAccess;
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
import io.statesweep.config.ExportOptions;
import io.statesweep.config.PlanOptions;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.Action;
import io.statesweep.plan.LineText;
import io.statesweep.plan.RunSummary;
import io.statesweep.cost.PlanCost;
import io.statesweep.cost.PriceTable;
import io.statesweep.store.BucketVersioning;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
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
 * the {@link io.statesweep.plan.Planner}, and appends the dry-run report to the Delta tables {@code state_files},
 * {@code deletion_plan} and {@code runs}. It deletes nothing.
 *
 * <p>The driver holds only the listing tasks (folder names) and the summary, never the keys. The records are planned
 * once, into rows held by the job (a local checkpoint): the tables are written from them, and the summary, the cost
 * and the per-key lines are read from the same rows, so the summary is exactly what analysts see.
 *
 * <p>It holds the export's run lock while it runs (pipeline/README.md, "One run at a time"): {@link #execute()} throws
 * {@link io.statesweep.api.failures.RunLockException.Held} while another run holds it, and {@link
 * io.statesweep.api.failures.RunLockException.Unavailable} when it cannot be taken for another reason. When the store
 * denies the lock's permissions, the plan (which deletes nothing) warns and goes on without it; a lock lost during the
 * plan is reported in its result ({@link PlanResult#runLock()}, exit code 1).
 */
final class SparkPlanAction {
  private static final Logger LOG = LoggerFactory.getLogger(SparkPlanAction.class);
  private static final String JOB_GROUP = "statesweep-plan";
  private static final String SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions";

  private final SparkSession spark;
  private final PlanOptions options;
  private final ExportOptions export;
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
  /** The noncurrent versions under the prefix as the listing saw them, or why it did not (pipeline/README.md, "The cost
   * of a run"). */
  private io.statesweep.cost.NoncurrentVersions noncurrent;
  /** The plan's tables, made on a thread of their own where they are missing. */
  private PlanTables planTables;
  /** How many missing files the plan looks up on a versioned bucket ({@link MissingVersions}). */
  private int missingLookups = MissingVersions.MAX_LOOKUPS;
  /** On a versioned bucket with missing files: what their latest versions are ({@link MissingVersions#lookUp}). */
  private Dataset<Row> missingVersions;

  SparkPlanAction(SparkSession spark, PlanOptions options) {
    this.spark = requireNonNull(spark, "spark is null");
    this.options = requireNonNull(options, "options is null");
    this.export = options.export();
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

  /** How many missing files to look up on a versioned bucket (tests look up fewer). */
  SparkPlanAction missingLookups(int bound) {
    if (bound < 0) {
      throw new IllegalArgumentException("missingLookups must not be negative: " + bound);
    }
    this.missingLookups = bound;
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
        ActionLock lock = heldLock != null ? heldLock : ActionLock.forDryRun(export, "plan")) {
      return plan(lock, settings);
    }
  }

  private PlanResult plan(ActionLock lock, ActionSettings settings) {
    RunContext run = RunContext.start(clock.instant(), export.graceDays());
    Tables tables = new Tables(export.warehouse(), export.catalogSchema());
    // A schema the catalog lacks, or a table name it holds elsewhere, is a bad setting: nothing is listed or written.
    CatalogTables.registerAll(spark, tables);
    Instant startedAt = Instant.now();
    LOG.info("Run {}: planning s3://{}/{} (layout {}, grace {} days) into {}", run.runId(), export.bucket(),
        LineText.escape(export.prefix().value()), LineText.escape(export.layout().name()), export.graceDays(),
        LineText.escape(tables.warehouse()));
    metrics = RunMetrics.register(spark.sparkContext());
    progress = Progress.every(export.progressSeconds(), metrics, run.runId());
    LineStream lines = new LineStream(sink);
    try {
      priceTable = PlanCosts.priceTable(spark, export);
      planTables = PlanTables.makeMissing(spark, tables, priceTable, PlanCosts.region(export).name());
      versioning = bucketVersioning();
      PlanCounts counts = plan(run, tables, settings);
      lookUpMissingVersions(run, tables, counts);
      PlanCost cost = cost(run, tables, lock, counts);
      RunSummary summary = summary(run, counts, true, 0);
      for (Map.Entry<String, String> pair : cost.summaryPairs().entrySet()) {
        summary = summary.with(pair.getKey(), pair.getValue());
      }
      logLines(counts, lines);
      if (cost.versioningNote() != null && versioning.keepsNoncurrentVersions()) {
        lines.accept(LogLine.versioning(export.bucket(), cost.versioningNote()));
      }
      // Every table the review reads exists from here on, empty where nothing happened yet.
      planTables.await();
      writeRun(run, tables, startedAt, summary, counts, null, cost);
      return result(run, tables, summary, lines, null, lock);
    } catch (Exception e) {
      // Spark's job failures are SparkExceptions, checked in Java's eyes though Scala throws them freely.
      LOG.error("Run {} did not complete: {}", run.runId(), LineText.escape(RootMessage.of(e)), e);
      RunSummary summary = summary(run, PlanCounts.NONE, false, 1);
      if (planTables != null) {
        planTables.awaitQuietly();
      }
      try {
        writeRun(run, tables, startedAt, summary, PlanCounts.NONE, RootMessage.of(e), null);
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
    StoreAccess access = StoreAccess.of(export, metrics);
    S3ObjectStore store = access.open();
    BucketVersioning answer = store.bucketVersioning();
    access.countRequests(store);
    if (answer.unknownBecause() != null) {
      LOG.warn("Bucket versioning of s3://{} is unknown: {}", export.bucket(),
          LineText.escape(answer.unknownBecause()));
    }
    return answer;
  }

  /**
   * On a versioned bucket, the latest version of each missing file (the first {@link #missingLookups}), before the
   * plan is priced, so the cost counts its ListObjectVersions. A lookup that fails is its lines' answer.
   */
  private void lookUpMissingVersions(RunContext run, Tables tables, PlanCounts counts) {
    missingVersions = null;
    if (!versioning.keepsNoncurrentVersions() || counts.missingFiles() == 0) {
      return;
    }
    phase("missing-versions", "Looking up the versions of missing files");
    try {
      planTables.await(Tables.EXECUTIONS);
      missingVersions = MissingVersions.lookUp(spark, missingRows(), StoreAccess.of(export, metrics), tables,
          missingLookups);
      LOG.info("Run {}: looked up the latest version of {} of {} missing files", run.runId(),
          Math.min(counts.missingFiles(), missingLookups), counts.missingFiles());
    } catch (RuntimeException e) {
      String why = "the lookups failed: " + RootMessage.of(e);
      LOG.warn("Run {}: cannot look up the versions of missing files: {}", run.runId(),
          LineText.escape(RootMessage.of(e)), e);
      missingVersions = MissingVersions.failed(missingRows(), why);
    }
  }

  /** A live record's files that the bucket lacks: {@code state_file_key}, {@code position}, {@code key}. */
  private Dataset<Row> missingRows() {
    return planRows.select(col("state_file_key"), expr("posexplode(missing_files) as (position, key)"));
  }

  /** What the plan cost, what its execute will cost, and what it frees (pipeline/README.md, "The cost of a run"). */
  private PlanCost cost(RunContext run, Tables tables, ActionLock lock, PlanCounts counts) {
    phase("cost", "Pricing the plan");
    PlanCosts.Region region = PlanCosts.region(export);
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
        PlanCosts.versioningNote(export, versioning, counts.bytes(), noncurrent), noncurrent);
    LOG.info("Run {}: {}", run.runId(), LineText.escape(cost.describe()));
    if (cost.versioningNote() != null) {
      LOG.warn("Run {}: {}", run.runId(), LineText.escape(cost.versioningNote()));
    }
    return cost;
  }

  /** The plan's stages, list -> read the state files -> plan the records, each stage's rows written to its table. */
  private PlanCounts plan(RunContext run, Tables tables, ActionSettings settings) {
    KeyClassifier classifier = export.layout().classifier(export.prefix());
    Listings.Listing listing = list(run, classifier);
    long keysListed = listing.objects().count();
    LOG.info("Run {}: {} keys under the prefix ({})", run.runId(), keysListed,
        LineText.escape(listing.description()));
    int partitions = RecordJoin.shufflePartitions(keysListed, Integer.parseInt(spark.conf().get(SHUFFLE_PARTITIONS)));
    settings.set(SHUFFLE_PARTITIONS, Integer.toString(partitions));
    storageClassesDS = PlanCosts.storageClasses(listing.objects());
    Dataset<StateFileRow> stateFilesDS = readStateFiles(run, tables, classifier, listing, partitions);
    planRecords(run, tables, classifier, listing, stateFilesDS);
    return counts(keysListed, listing.tasks());
  }

  /** The listing stage: ListObjectsV2 tasks, or an S3 Inventory report (pipeline/README.md, "What a run does"). */
  private Listings.Listing list(RunContext run, KeyClassifier classifier) {
    Listings.Listing listing;
    if (options.listing() == PlanOptions.Listing.INVENTORY) {
      phase("list", "Reading the inventory report " + options.inventory());
      source = new RunsTable.Source("inventory", options.inventory().toString(), null);
      progress.phase("list", "keys_listed", -1);
      listing = Listings.fromInventory(spark, options, run.runId());
    } else {
      phase("list", "Listing s3://" + export.bucket() + "/" + export.prefix());
      source = RunsTable.Source.LIST;
      progress.phase("list", "keys_listed", -1);
      listing = Listings.fromListing(spark, options, classifier, metrics, run.runId());
    }
    source = listing.source();
    noncurrent = listing.noncurrent();
    if (versioning.keepsNoncurrentVersions()) {
      LOG.info("Run {}: {}", run.runId(), LineText.escape(noncurrent.text(export.prefix().value())));
    }
    return listing;
  }

  /** The state-reading stage, its rows appended to {@code state_files}. */
  private Dataset<StateFileRow> readStateFiles(RunContext run, Tables tables, KeyClassifier classifier,
      Listings.Listing listing, int partitions) {
    phase("read-state-files", "Reading state files");
    StateReading.StateFiles read = StateReading.read(spark, options, tables, listing.objects(), classifier, run,
        metrics, progress, partitions);
    stateReads = read.gets();
    stateFileRows = TableWrites.toTable(read.rows().toDF(), TableSchemas.STATE_FILES);
    planTables.await(Tables.STATE_FILES);
    TableWrites.append(stateFileRows, tables, Tables.STATE_FILES);
    LOG.info("Run {}: {} state files read with GET{}", run.runId(), stateReads,
        read.reusedFrom() == null ? "" : " (the others taken from run " + read.reusedFrom()
            + ", their ETags unchanged)");
    return read.rows();
  }

  /** The planning stage, its rows appended to {@code deletion_plan}, and their summary to {@code plan_summary}. */
  private void planRecords(RunContext run, Tables tables, KeyClassifier classifier, Listings.Listing listing,
      Dataset<StateFileRow> stateFilesDS) {
    phase("plan", "Planning records");
    progress.phase("plan", "records_planned", -1);
    Dataset<PlanRow> planDS = Planning.plan(stateFilesDS, listing, classifier, export.gracePolicy(), run, metrics);
    // The records are planned once: the table is written from these rows, and its summary, the run's counts, its
    // cost and its lines are all read from them, never from a second planning or a reading of the table back.
    planRows = TableWrites.planTable(planDS).localCheckpoint(true);
    planTables.await(Tables.DELETION_PLAN);
    TableWrites.append(planRows, tables, Tables.DELETION_PLAN);
    planTables.await(Tables.PLAN_SUMMARY);
    TableWrites.append(PlanSummary.of(planRows, storageClassesDS, priceTable, PlanCosts.region(export).name()), tables,
        Tables.PLAN_SUMMARY);
  }

  /** The run's counts, from the rows its tables were written from (the state files, the plan). */
  private PlanCounts counts(long keysListed, long listingTasks) {
    phase("summary", "Counting the plan");
    return PlanCounts.of(stateFileRows, planRows, keysListed, listingTasks);
  }

  private RunSummary summary(RunContext run, PlanCounts counts, boolean complete, long extraErrors) {
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
   * The per-key lines (pipeline/README.md, "What a run does"), each to {@code lines} as it is read: the first {@code
   * --log-lines}
   * {@code would delete} lines, then every kept line (refused, coming back, bad state), every {@code missing} line
   * (a live record's file that the bucket lacks) and every skipped line, never capped: users count the alert
   * phrases with log metric filters, so one line left out is an alert missed. They reach the driver a bounded
   * partition at a time ({@link LineStream#inOrder}), however many there are.
   */
  private void logLines(PlanCounts counts, LineStream lines) {
    phase("log-lines", "Printing log lines");
    if (options.logLines() != 0) {
      Column[] order = {col("state_file_key"), col("position")};
      Dataset<Row> deletesDS = planRows
          .filter(col("action").isin(Action.DELETE_RECORD.label(), Action.DELETE_REMOVED_FILES.label()))
          .select(col("state_file_key"), expr("posexplode(deletes) as (position, delete)"))
          .select(col("state_file_key"), col("position"), col("delete.key").as("key"));
      long deletes = counts.keysToDelete();
      if (options.logLines() != PlanOptions.ALL_LINES) {
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
    Dataset<Row> missingDS = missingRows();
    if (missingVersions == null) {
      LineStream.inOrder(missingDS, counts.missingFiles(), col("state_file_key"), col("position"))
          .forEachRemaining(row -> lines.accept(LogLine.missing(row.getString(2), row.getString(0))));
    } else {
      // On a versioned bucket each line says what hides its key (pipeline/README.md, "The summary line").
      LineStream.inOrder(MissingVersions.lines(missingDS, missingVersions), counts.missingFiles(),
              col("state_file_key"), col("position"))
          .forEachRemaining(row -> lines.accept(LogLine.missing(row.getString(2), row.getString(0),
              MissingVersions.of(row, missingLookups))));
    }
    Dataset<Row> stateDS = stateFileRows
        .filter(col("status").isin(Rows.SKIPPED, Rows.READ_ERROR))
        .select(col("status"), col("key"), col("message"));
    LineStream.inOrder(stateDS, counts.skipped() + counts.readErrors(), col("key"))
        .forEachRemaining(row -> lines.accept(Rows.SKIPPED.equals(row.getString(0))
            ? LogLine.skipped(row.getString(1), row.getString(2)) : LogLine.kept(row.getString(1), row.getString(2))));
  }

  /** The line (pipeline/README.md, "What a run does") for a file that a live record lists and the bucket lacks. */
  static String missingLine(String key, String stateFileKey) {
    return LogLine.missing(key, stateFileKey).text();
  }

  private void writeRun(RunContext run, Tables tables, Instant startedAt, RunSummary summary, PlanCounts counts,
      String failure, PlanCost cost) {
    phase("record-run", "Recording the run");
    RunsTable.RunRow row = new RunsTable.RunRow(run.runId(), run.runDate(), run.runId(), "plan", startedAt,
        Instant.now(), run.now(), export.bucket(), export.prefix().value(), export.layout().name(),
        export.layout().fingerprint(), export.graceDays(), export.settings(), null, counts.listingTasks(),
        counts.keysListed(), counts.bytes(),
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
    return new SparkPlanResult(run.runId(), export.failOn().appliedTo(runLock.appliedTo(summary)), tables,
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
}
