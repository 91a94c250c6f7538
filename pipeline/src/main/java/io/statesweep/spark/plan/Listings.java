package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;

import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.config.PlanOptions;
import io.statesweep.cost.NoncurrentVersions;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.LineText;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.scan.BudgetedListing;
import io.statesweep.scan.InventoryManifest;
import io.statesweep.scan.ListingFanOut;
import io.statesweep.scan.ListingTask;
import io.statesweep.spark.rows.InventoryObjectRow;
import io.statesweep.spark.rows.ListedRow;
import io.statesweep.spark.rows.ListingTaskRow;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.run.HadoopFiles;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.Spread;
import io.statesweep.spark.run.StoreAccess;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.store.FileSource;
import io.statesweep.store.ListingDepth;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plan's first stage (pipeline/README.md, "What a run does"): the objects under the export prefix as a Dataset,
 * listed with ListObjectsV2 in parallel tasks of bounded pages, or read from an S3 Inventory report.
 */
public final class Listings {
  private static final Logger LOG = LoggerFactory.getLogger(Listings.class);
  private static final int MAX_MANIFEST_BYTES = 256 * 1024 * 1024;
  /**
   * How much earlier than its start a listing is taken to begin, for the planner's "was this state file
   * written before the listing?" ({@code missing <key>} lines): a GET's Last-Modified has whole seconds,
   * and the driver's clock is not S3's.
   */
  public static final Duration LISTING_CLOCK_MARGIN = Duration.ofSeconds(1);

  private Listings() {}

  /**
   * The objects under the prefix, how many tasks produced them, what to log about it, and when the
   * listing began (for an inventory report, when it was taken), less {@link #LISTING_CLOCK_MARGIN}, and the
   * noncurrent versions under the prefix where the listing sees them (pipeline/README.md, "The cost of a run").
   */
  public record Listing(Dataset<ObjectRow> objects, long tasks, String description, Instant listedAt,
      RunsTable.Source source, NoncurrentVersions noncurrent) {}

  /** ListObjectsV2 over the prefix, in parallel tasks of bounded pages. */
  public static Listing fromListing(SparkSession spark, PlanOptions options, KeyClassifier classifier,
      RunMetrics metrics, String runId) {
    // The wall clock, not the run's "now" (which tests may set): it is compared with LastModified times.
    Instant listedAt = Instant.now().minus(LISTING_CLOCK_MARGIN);
    StoreAccess access = StoreAccess.of(options.export(), metrics);
    S3ObjectStore store = access.open();
    List<ListingTask> tasks = new ListingFanOut(store, classifier).tasks();
    access.countRequests(store);
    List<ListingTaskRow> pending = new ArrayList<>(tasks.size());
    for (ListingTask task : tasks) {
      pending.add(Rows.taskRow(task));
    }
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    // Rounds: each task lists at most its page budget and hands what it left to the next round, so a
    // prefix that holds half the archive spreads over many tasks. Only tasks reach the driver.
    Dataset<ObjectRow> listingDS = null;
    int rounds = 0;
    long tasksRun = 0;
    while (!pending.isEmpty()) {
      rounds++;
      tasksRun += pending.size();
      // From an RDD, not a local list: a Dataset of a local list carries its (tiny) size into every
      // estimate derived from it, so Spark would plan the listing's joins as broadcasts and collect
      // millions of keys into the driver. An RDD's size is unknown, so the joins shuffle.
      Dataset<ListedRow> listedDS = Spread.ofUnknownSize(spark, pending, ListingTaskRow.ENCODER,
              Math.max(1, Math.min(pending.size(), parallelism * 4)))
          .flatMap(new ListTasks(access, options.pagesPerTask()), ListedRow.ENCODER)
          // One snapshot of the bucket for every later step: a lost block fails the run, never re-lists.
          .localCheckpoint(true);
      Dataset<ObjectRow> objectsDS = listedDS.filter(col("taskPrefix").isNull())
          .select(col("key"), col("etag"), col("lastModified"), col("size"), col("storageClass")).as(ObjectRow.ENCODER);
      listingDS = listingDS == null ? objectsDS : listingDS.union(objectsDS);
      pending = new ArrayList<>();
      for (ListedRow task : listedDS.filter(col("taskPrefix").isNotNull()).collectAsList()) {
        pending.add(Rows.taskRow(task));
      }
      LOG.info("Run {}: listing round {} done; {} tasks left", runId, rounds, pending.size());
    }
    if (listingDS == null) {
      listingDS = spark.emptyDataset(ObjectRow.ENCODER);
    }
    return new Listing(listingDS, tasksRun, "listed in " + tasksRun + " tasks over " + rounds + " rounds", listedAt,
        RunsTable.Source.LIST, NoncurrentVersions.notListed());
  }

  /**
   * The objects of an S3 Inventory report instead of LIST. The report is a day old at most; execution
   * still verifies every record against the live bucket.
   */
  public static Listing fromInventory(SparkSession spark, PlanOptions options, String runId) {
    InventoryManifest.Location location = options.inventory();
    // Through Hadoop's FileSystem, as its data files are: the report may be in another bucket or account.
    byte[] manifestBytes;
    try {
      manifestBytes = HadoopFiles.of(spark).read(location.toString(), MAX_MANIFEST_BYTES);
    } catch (java.io.IOException e) {
      // The message says why: a failed run reports the root cause's message, so no cause here.
      if (FileSource.isMissing(e)) {
        throw new BadSettingsException("Inventory manifest " + location + " does not exist");
      }
      throw new BadSettingsException("Cannot read inventory manifest " + location + ": " + FileSource.reason(e));
    }
    InventoryManifest manifest = InventoryManifest.parse(manifestBytes, location.toString());
    manifest.checkLists(options.export().bucket());
    LOG.info("Run {}: inventory of s3://{} taken at {}: {} {} files", runId,
        LineText.escape(manifest.sourceBucket()), manifest.createdAt(), manifest.files().size(), manifest.format());
    // s3:// is the platform's S3 filesystem (EMRFS, Databricks'); where it has none, S3A.
    String dataScheme = location.dataFileScheme().equals("s3")
        ? HadoopFiles.s3Scheme(spark.sparkContext().hadoopConfiguration()) : location.dataFileScheme();
    Dataset<InventoryObjectRow> read = InventoryListing.read(spark, manifest, dataScheme, options.export().prefix())
        // One reading of the report for every later step, as with LIST: the objects and the noncurrent versions.
        .localCheckpoint(true);
    Dataset<ObjectRow> objectsDS = InventoryListing.objects(read);
    NoncurrentVersions noncurrent = InventoryListing.noncurrentVersions(read, manifest);
    return new Listing(objectsDS, manifest.files().size(), "from the inventory taken at " + manifest.createdAt()
        + ", " + manifest.files().size() + " " + manifest.format() + " files",
        manifest.createdAt().minus(LISTING_CLOCK_MARGIN),
        new RunsTable.Source("inventory", location.toString(), manifest.createdAt()), noncurrent);
  }

  /**
   * Lists a partition's tasks: a folder level (DIRECT) whole, a prefix (RECURSIVE) up to its page
   * budget, yielding its objects and then the tasks that cover what it left.
   */
  static final class ListTasks implements FlatMapFunction<ListingTaskRow, ListedRow> {
    private static final long serialVersionUID = 1L;
    private final StoreAccess access;
    private final int pagesPerTask;

    ListTasks(StoreAccess access, int pagesPerTask) {
      this.access = requireNonNull(access, "access is null");
      this.pagesPerTask = pagesPerTask;
    }

    @Override
    public Iterator<ListedRow> call(ListingTaskRow row) {
      S3ObjectStore store = access.open();
      ListingTask task = new ListingTask(row.getPrefix(), row.getStartAfter(),
          ListingTask.NextChars.valueOf(row.getNextChars()), ListingDepth.valueOf(row.getDepth()));
      if (task.depth() == ListingDepth.DIRECT) {
        return access.countedAtEnd(store.iterate(task.prefix(), ListingDepth.DIRECT), store, object -> {
          access.metrics().keysListed.add(1);
          return Rows.listedRow(object);
        }, () -> { });
      }
      // A task holds at most its page budget of keys: its rows fit in memory by construction.
      List<ListedRow> out = new ArrayList<>();
      BudgetedListing.Outcome outcome = new BudgetedListing(store::listPage, pagesPerTask)
          .list(task, object -> out.add(Rows.listedRow(object)));
      access.metrics().keysListed.add(out.size());
      access.countRequests(store);
      for (ListingTask rest : outcome.rest()) {
        out.add(Rows.listedTask(rest));
      }
      return out.iterator();
    }
  }
}
