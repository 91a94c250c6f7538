package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.statesweep.spark.tables.TableDocs;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.spark.tables.TableWrites;
import io.statesweep.api.Tables;
import io.statesweep.config.DeleteOptions;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.config.ExportOptions;
import io.statesweep.execute.DeleteThrottle;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.KeyFailure;
import io.statesweep.execute.PacedLane;
import io.statesweep.ledger.LedgerCleanup;
import io.statesweep.ledger.LedgerCodec;
import io.statesweep.ledger.LedgerEntry;
import io.statesweep.ledger.LedgerKeys;
import io.statesweep.ledger.LedgerReader;
import io.statesweep.ledger.LedgerStore;
import io.statesweep.ledger.LedgerTry;
import io.statesweep.ledger.ObjectStoreLedger;
import io.statesweep.ledger.RecordHistory;
import io.statesweep.plan.LineText;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.rows.DeletedKeyRow;
import io.statesweep.spark.rows.ExecutionRow;
import io.statesweep.spark.rows.KeyFailureRow;
import io.statesweep.spark.rows.LedgerTryRow;
import io.statesweep.spark.rows.RowTimes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.MapGroupsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.CollectionAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an execute attempt's rows of {@code executions} from its ledger (pipeline/README.md, "Every delete on the
 * record"), at the end of the attempt whatever stopped it, and for an attempt whose driver died, at the start of the
 * next execute: each partition's folder is read in a task (a window at a time), what every task attempt did with a
 * record is merged into its one row ({@link RecordHistory}), the rows are inserted unless {@code executions} holds them
 * already (so recording twice, or after a crash between the insert and the cleanup, adds nothing), and then the ledger
 * objects that were read are removed.
 */
public final class LedgerRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerRecorder.class);
  /** The key of a row of executions: one per record per attempt. */
  static final List<String> EXECUTIONS_KEY = List.of("run_date", "attempt_id", "state_file_key");

  private final SparkSession spark;
  private final S3Settings s3;
  private final String bucket;
  private final String root;
  private final RunMetrics metrics;
  /** The ceiling of the deletes that remove recorded ledger objects ({@link #removalKeysPerSecond}). */
  private final double removalKeysPerSecond;
  /**
   * How long after its intent a window without outcomes may still see deletes: a lock's ttl (its holder may run that
   * long before it learns it lost the lock) and the SDK's time for one call, retries included.
   */
  private final java.time.Duration unansweredFor;

  public LedgerRecorder(SparkSession spark, ExecuteOptions options, RunMetrics metrics) {
    this.spark = requireNonNull(spark, "spark is null");
    ExportOptions export = options.export();
    this.s3 = export.s3();
    this.bucket = export.bucket();
    this.root = LedgerKeys.root(export.prefix().value());
    this.metrics = requireNonNull(metrics, "metrics is null");
    this.removalKeysPerSecond = removalKeysPerSecond(options.deletes());
    this.unansweredFor = export.lockTtl().plus(s3.apiCallTimeout());
  }

  /**
   * The ledger's objects are a partition of their own (they sort apart from the export's keys): removed at the rate
   * a paced group starts at (a partition's, the exporter's margin below it), or under the run's ceiling when deletes
   * are not paced, and never above S3's 3,500 keys a second per partition.
   */
  static double removalKeysPerSecond(DeleteOptions deletes) {
    PacedLane.Pacing pacing = deletes.pacing();
    if (pacing != null) {
      return Math.max(1, pacing.partitionKeysPerSecond() * (1 - pacing.margin()));
    }
    int ceiling = deletes.maxDeletesPerSecond();
    return ceiling > 0 ? Math.min(ceiling, S3_PARTITION_KEYS_PER_SECOND) : S3_PARTITION_KEYS_PER_SECOND;
  }

  /** S3's documented writes (a deleted key is one) per second per partitioned prefix. */
  private static final double S3_PARTITION_KEYS_PER_SECOND = 3_500;

  /** The ledger's folder of an attempt. */
  public String folder(String runId, String attemptId) {
    return LedgerKeys.attempt(root, runId, attemptId);
  }

  /** An attempt whose ledger is still in the bucket: its driver stopped before recording it. */
  public record Leftover(String runId, String attemptId, String runDate, String warehouse) {}

  /**
   * What recording an attempt's ledger found: how many of its objects cannot be read (they stay), and the rows it
   * appended to {@code executions} when it read them on the driver and appended them all (else null: the table says).
   */
  public record Recorded(long unreadable, List<ExecutionRow> appended) {
    static final Recorded NOTHING = new Recorded(0, null);
  }

  /** Every attempt with a ledger in the bucket other than {@code exceptAttemptId}, each with its run's date and warehouse. */
  public List<Leftover> leftovers(String exceptAttemptId) {
    return leftovers(exceptAttemptId, null);
  }

  /**
   * As {@link #leftovers(String)}, of run {@code onlyRunId} alone when it is not null (its folder alone is listed).
   */
  public List<Leftover> leftovers(String exceptAttemptId, String onlyRunId) {
    S3ObjectStore store = store();
    List<Leftover> leftovers = new ArrayList<>();
    try {
      List<String> runFolders = onlyRunId == null ? store.listFolder(root).folders()
          : List.of(LedgerKeys.run(root, onlyRunId));
      for (String runFolder : runFolders) {
        for (String attemptFolder : store.listFolder(runFolder).folders()) {
          String attemptId = LedgerKeys.lastSegment(attemptFolder);
          if (attemptId.equals(exceptAttemptId)) {
            continue;
          }
          LedgerEntry.Header header = firstHeader(new ObjectStoreLedger(store), attemptFolder);
          if (header != null) {
            leftovers.add(new Leftover(header.runId(), header.attemptId(), header.runDate(), header.warehouse()));
          }
        }
      }
    } finally {
      metrics.addRequests(store.requestCounts());
    }
    return leftovers;
  }

  /**
   * The header of the attempt's first ledger object that can be read, or null when none can (each that cannot is
   * named, and stays: it never stops this execute).
   */
  private LedgerEntry.Header firstHeader(LedgerStore ledger, String attemptFolder) {
    Iterator<String> keys = ledger.keys(attemptFolder);
    int unreadable = 0;
    while (keys.hasNext()) {
      String key = keys.next();
      if (LedgerKeys.parse(key) == null) {
        continue;
      }
      try {
        byte[] bytes = ledger.read(key);
        if (bytes != null) {
          return LedgerCodec.read(key, bytes).entry().header();
        }
      } catch (RuntimeException e) {
        unreadable++;
        LOG.error("Cannot read the ledger object s3://{}/{}: {}; it stays, and the next of its attempt is read for"
            + " the attempt's run", bucket, LineText.escape(key), LineText.escape(String.valueOf(e.getMessage())));
      }
    }
    if (unreadable > 0) {
      LOG.error("No object of the ledger s3://{}/{} can be read ({} cannot): what it deleted is not in executions;"
          + " it stays, and every execute tries it again: inspect its objects, then remove them", bucket,
          LineText.escape(attemptFolder), unreadable);
    }
    return null;
  }

  /** How an attempt's rows reach executions. */
  public enum Write {
    /**
     * Appended: the attempt's own rows, recorded by the run that holds the lock, which no other run records (a
     * Delta append costs a fraction of a MERGE).
     */
    APPEND,
    /**
     * Inserted unless present (a MERGE that only inserts): the ledger of an attempt that stopped, which may have
     * recorded some of it before, or the attempt's own after its run lost the lock (the next run may record it too).
     */
    INSERT_NEW
  }

  /** Ledgers of at most this many records are read on the driver: Spark's fixed cost for jobs over them is not paid. */
  static final int DRIVER_RECORDS = 20_000;

  /**
   * Records the rows of one attempt's ledger in {@code tables}' executions, then removes the ledger objects it read
   * (unless {@code removeObjects} is false: a task may still be writing). Only for an attempt none of whose tasks
   * still runs.
   *
   * @param recordsHint about how many records the attempt executed (its metrics), -1 when unknown: a ledger of up
   *     to {@link #DRIVER_RECORDS} is read on the driver, a larger one in Spark tasks
   */
  public Recorded record(String runId, String attemptId, String runDate, Tables tables, Write write, boolean removeObjects,
      long recordsHint) {
    S3ObjectStore store = store();
    List<String> partitions;
    try {
      partitions = store.listFolder(folder(runId, attemptId)).folders();
    } finally {
      metrics.addRequests(store.requestCounts());
    }
    if (partitions.isEmpty()) {
      // Nothing was executed: the table exists all the same, for those who read it.
      createTableIfMissing(spark, tables);
      return Recorded.NOTHING;
    }
    java.util.Set<String> keep = new java.util.TreeSet<>();
    Dataset<ExecutionRow> executionsDS = null;
    List<ExecutionRow> rowsOnDriver = null;
    if (recordsHint >= 0 && recordsHint <= DRIVER_RECORDS) {
      rowsOnDriver = readOnDriver(runId, attemptId, runDate, partitions, keep);
      if (rowsOnDriver != null) {
        executionsDS = spark.createDataset(rowsOnDriver, TableSchemas.EXECUTIONS.encoder());
      }
    }
    Dataset<LedgerTryRow> triesDS = null;
    CollectionAccumulator<String> unreadable = null;
    if (executionsDS == null) {
      keep.clear();
      unreadable = spark.sparkContext().collectionAccumulator("statesweep.ledger_unreadable"); // their keys
      int tasks = Math.max(1, Math.min(partitions.size(), 2 * spark.sparkContext().defaultParallelism()));
      triesDS = spark.createDataset(partitions, Encoders.STRING()).repartition(tasks)
          .flatMap(new ReadLedger(s3, bucket, metrics, unreadable), LedgerTryRow.ENCODER)
          .persist(StorageLevel.MEMORY_AND_DISK());
      executionsDS = triesDS
          .groupByKey((MapFunction<LedgerTryRow, String>) LedgerTryRow::getStateFileKey, Encoders.STRING())
          .mapGroups(new MergeTries(runId, runDate, attemptId), TableSchemas.EXECUTIONS.encoder());
    }
    try {
      Dataset<Row> rows = TableWrites.toTable(executionsTable(executionsDS), TableSchemas.EXECUTIONS);
      if (write == Write.APPEND) {
        TableWrites.append(rows, tables, Tables.EXECUTIONS);
      } else {
        addToRecorded(rows, tables, runDate, attemptId);
      }
      // executions holds every row now: the objects read may go; one that cannot be read stays, and is reported.
      if (unreadable != null) {
        keep.addAll(unreadable.value());
      }
      if (removeObjects) {
        // An attempt that records its own ledger under its lock has seen its tasks end; a ledger recorded by another
        // run, or after its lock was lost, may belong to tasks that still send (the holder whose lock was taken over).
        remove(runId, attemptId, partitions, keep, write == Write.INSERT_NEW);
      }
      if (!keep.isEmpty()) {
        LOG.error("Run {} attempt {}: {} objects of its ledger under s3://{}/{} cannot be read and stay there (each is"
            + " named above); what they hold is not in {}", LineText.escape(runId), LineText.escape(attemptId),
            keep.size(), bucket, LineText.escape(folder(runId, attemptId)), LineText.escape(tables.executions()));
      }
      // Rows read on the driver and appended whole are the attempt's rows of the table: its counts need no read of it.
      boolean whole = write == Write.APPEND && unreadable == null && keep.isEmpty() && rowsOnDriver != null;
      return new Recorded(keep.size(), whole ? List.copyOf(rowsOnDriver) : null);
    } finally {
      if (triesDS != null) {
        triesDS.unpersist();
      }
    }
  }

  /**
   * Records rows of an attempt that {@code executions} may hold rows of already (pipeline/README.md, "Every delete on
   * the record"): a record without a row gets the one read; a record with one gets what it lacks ({@link
   * RecordHistory#addTo}: keys, delete markers), its counts and outcome following, and a row that gains nothing is not
   * written. So recording the same objects twice adds nothing, and objects an earlier recording lacked (a window it
   * could not read, outcomes a task still running wrote after it) add exactly theirs.
   */
  private void addToRecorded(Dataset<Row> rows, Tables tables, String runDate, String attemptId) {
    TableDocs.createIfMissing(rows, tables, Tables.EXECUTIONS);
    Dataset<Row> table = spark.read().format("delta").load(tables.path(Tables.EXECUTIONS));
    java.util.Set<String> held = java.util.Set.of(table.columns());
    List<org.apache.spark.sql.Column> columns = new ArrayList<>();
    for (org.apache.spark.sql.types.StructField field : rows.schema().fields()) {
      columns.add(held.contains(field.name()) ? col(field.name())
          : org.apache.spark.sql.functions.lit(null).cast(field.dataType()).as(field.name()));
    }
    Dataset<Row> recorded = table
        .filter(col("run_date").equalTo(runDate).and(col("attempt_id").equalTo(attemptId)))
        .select(col("state_file_key").as("recorded_key"),
            org.apache.spark.sql.functions.struct(columns.toArray(org.apache.spark.sql.Column[]::new))
                .as("recorded"));
    Dataset<Row> gained = rows.join(recorded, rows.col("state_file_key").equalTo(recorded.col("recorded_key")),
            "left")
        .drop("recorded_key")
        .flatMap(new AddToRecorded(rows.schema()), Encoders.row(rows.schema()));
    TableWrites.upsert(gained, tables, Tables.EXECUTIONS, EXECUTIONS_KEY,
        Map.of("run_date", runDate, "attempt_id", attemptId));
  }

  /**
   * The attempt's rows read and merged on the driver, the objects that cannot be read added to {@code unreadable};
   * null when the ledger holds more than {@link #DRIVER_RECORDS} records' tries (then it is read in Spark tasks).
   */
  private List<ExecutionRow> readOnDriver(String runId, String attemptId, String runDate, List<String> partitions,
      java.util.Set<String> unreadable) {
    S3ObjectStore store = store();
    try {
      Map<String, List<LedgerTry>> byRecord = new java.util.LinkedHashMap<>();
      int tries = 0;
      for (String partition : partitions) {
        Iterator<LedgerReader.Window> windows = LedgerReader.windows(new ObjectStoreLedger(store), partition,
            (key, why) -> {
              unreadable.add(key);
              logUnreadable(bucket, key, why);
            });
        while (windows.hasNext()) {
          for (LedgerTry ledgerTry : windows.next().tries()) {
            if (++tries > 2 * DRIVER_RECORDS) {
              return null;
            }
            byRecord.computeIfAbsent(ledgerTry.outcome().stateFileKey(), key -> new ArrayList<>()).add(ledgerTry);
          }
        }
      }
      List<ExecutionRow> rows = new ArrayList<>(byRecord.size());
      byRecord.values().forEach(recordTries -> rows.add(executionRow(runId, runDate, attemptId,
          RecordHistory.merge(recordTries))));
      return rows;
    } finally {
      metrics.addRequests(store.requestCounts());
    }
  }

  /**
   * Removes the ledger objects of the partitions' folders but {@code keep}, on the driver ({@link LedgerCleanup}):
   * a store that keeps refusing leaves the rest to the next execute, which finds their rows recorded. With
   * {@code holdUnanswered} (a ledger another run records, or one recorded after its lock was lost), the intents of a
   * window whose outcomes never came stay while a delete its task sent may still be answered ({@link #unansweredFor}
   * after them): the next recording adds what went meanwhile.
   */
  private void remove(String runId, String attemptId, List<String> partitions, java.util.Set<String> keep,
      boolean holdUnanswered) {
    S3ObjectStore store = store();
    try {
      java.time.Instant heldSince = holdUnanswered ? java.time.Instant.now().minus(unansweredFor) : null;
      LedgerCleanup.Removal removal = new LedgerCleanup(new ObjectStoreLedger(store),
          new DeleteThrottle(removalKeysPerSecond), LedgerCleanup.SLEEP).remove(partitions, keep, heldSince);
      if (removal.held() > 0) {
        LOG.warn("Run {} attempt {}: {} intent objects of windows whose answers never came stay under s3://{}/{} until"
            + " {} min after they were written: their task may have sent deletes that are still answered (a run whose"
            + " lock was taken over); the next execute records them again, adding what went meanwhile, and then"
            + " removes them", LineText.escape(runId), LineText.escape(attemptId), removal.held(), bucket,
            LineText.escape(folder(runId, attemptId)), unansweredFor.toMinutes());
      }
      removal.failedKeys().forEach((failed, why) -> LOG.warn("Cannot remove the recorded ledger object s3://{}/{}: {}",
          bucket, LineText.escape(failed), LineText.escape(why)));
      String where = "s3://" + bucket + "/" + LineText.escape(folder(runId, attemptId));
      if (removal.stoppedBy() != null) {
        LOG.warn("Run {} attempt {}: its rows are in executions, but the removal of its ledger objects under {} stopped"
            + " after {} refusals in a row (the last: {}); the next execute finds what stays recorded and removes it",
            LineText.escape(runId), LineText.escape(attemptId), where, LedgerCleanup.MAX_REFUSALS,
            LineText.escape(removal.stoppedBy()));
      }
      if (removal.failedKeyCount() > 0) {
        LOG.warn("Run {} attempt {}: its rows are in executions, but {} of its ledger objects under {} could not be"
            + " deleted (the first {} are named above); the next execute finds them recorded and removes them",
            LineText.escape(runId), LineText.escape(attemptId), removal.failedKeyCount(), where,
            removal.failedKeys().size());
      }
    } finally {
      metrics.addRequests(store.requestCounts());
    }
  }

  /** Table executions, empty, unless it exists: a plan makes it, so that the notebooks can read it at once. */
  public static void createTableIfMissing(SparkSession spark, Tables tables) {
    TableDocs.createIfMissing(TableWrites.toTable(
        executionsTable(spark.emptyDataset(TableSchemas.EXECUTIONS.encoder())), TableSchemas.EXECUTIONS), tables,
        Tables.EXECUTIONS);
  }

  /** The rows with their nested structs' fields under the table's snake_case names. */
  private static Dataset<Row> executionsTable(Dataset<ExecutionRow> executionsDS) {
    return executionsDS.toDF()
        .withColumn("failures", expr("transform(failures, f -> named_struct('key', f.key, 'code', f.code,"
            + " 'message', f.message))"))
        .withColumn("deleted", expr("transform(deleted, d -> named_struct('key', d.key, 'role', d.role,"
            + " 'etag', d.etag, 'deleted_at', d.deletedAt, 'delete_marker', d.deleteMarker,"
            + " 'restored_version', d.restoredVersion))"));
  }

  private S3ObjectStore store() {
    return S3ObjectStore.open(s3, bucket);
  }

  /** An object of the ledger that cannot be read (or stays beside one), named with why. */
  private static void logUnreadable(String bucket, String key, String why) {
    LOG.error("Cannot read the ledger object s3://{}/{}: {}; it stays, and the keys it names are not on the record"
        + " until it is read: inspect it, then remove it", bucket, LineText.escape(key), LineText.escape(why));
  }

  /** Reads the ledger folders of a task's partitions, a window at a time. */
  static final class ReadLedger implements FlatMapFunction<String, LedgerTryRow> {
    private static final long serialVersionUID = 1L;
    private final S3Settings s3;
    private final String bucket;
    private final RunMetrics metrics;
    private final CollectionAccumulator<String> unreadable;

    ReadLedger(S3Settings s3, String bucket, RunMetrics metrics, CollectionAccumulator<String> unreadable) {
      this.s3 = s3;
      this.bucket = bucket;
      this.metrics = metrics;
      this.unreadable = unreadable;
    }

    @Override
    public Iterator<LedgerTryRow> call(String folder) {
      S3ObjectStore store = S3ObjectStore.open(s3, bucket);
      Iterator<LedgerReader.Window> windows = LedgerReader.windows(new ObjectStoreLedger(store), folder,
          (key, why) -> {
            unreadable.add(key);
            logUnreadable(bucket, key, why);
          });
      return new Iterator<>() {
        private Iterator<LedgerTryRow> current = java.util.Collections.emptyIterator();
        private boolean counted;

        @Override
        public boolean hasNext() {
          while (!current.hasNext() && windows.hasNext()) {
            LedgerReader.Window window = windows.next();
            List<LedgerTryRow> rows = new ArrayList<>(window.tries().size());
            for (LedgerTry ledgerTry : window.tries()) {
              LedgerTryRow row = new LedgerTryRow();
              row.setStateFileKey(ledgerTry.outcome().stateFileKey());
              row.setTaskAttempt(ledgerTry.taskAttempt());
              row.setFromIntent(ledgerTry.fromIntent());
              row.setOutcome(LedgerCodec.writeOutcome(ledgerTry.outcome()));
              row.setSources(window.sources());
              rows.add(row);
            }
            current = rows.iterator();
          }
          boolean more = current.hasNext();
          if (!more && !counted) {
            counted = true;
            metrics.addRequests(store.requestCounts());
          }
          return more;
        }

        @Override
        public LedgerTryRow next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          return current.next();
        }
      };
    }
  }

  /**
   * A row read from the ledger beside the record's row in {@code executions} ({@code recorded}, null when none):
   * the row read when there is none, the recorded row with what it gains ({@link RecordHistory#addTo}) when it gains
   * anything, else nothing.
   */
  static final class AddToRecorded implements FlatMapFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    private final org.apache.spark.sql.types.StructType schema;

    AddToRecorded(org.apache.spark.sql.types.StructType schema) {
      this.schema = schema;
    }

    @Override
    public Iterator<Row> call(Row joined) {
      int width = schema.size();
      Object[] read = new Object[width];
      for (int i = 0; i < width; i++) {
        read[i] = joined.get(i);
      }
      Row recorded = joined.isNullAt(width) ? null : joined.getStruct(width);
      if (recorded == null) {
        return java.util.List.<Row>of(new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(read, schema))
            .iterator();
      }
      Row readRow = new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(read, schema);
      String stateFileKey = recorded.getAs("state_file_key");
      RecordHistory.Added added = RecordHistory.addTo(deletedKeys(recorded, stateFileKey),
          deletedKeys(readRow, stateFileKey));
      if (added.nothing()) {
        return java.util.Collections.emptyIterator();
      }
      Object[] values = new Object[width];
      for (int i = 0; i < width; i++) {
        values[i] = recorded.get(i);
      }
      org.apache.spark.sql.types.StructType keyType = (org.apache.spark.sql.types.StructType)
          ((org.apache.spark.sql.types.ArrayType) schema.apply("deleted").dataType()).elementType();
      List<Row> deleted = new ArrayList<>(added.keys().size());
      List<String> deletedKeys = new ArrayList<>(added.keys().size());
      java.util.Set<String> gone = new java.util.HashSet<>();
      long files = 0;
      boolean stateFile = false;
      for (DeletedKey key : added.keys()) {
        Object[] fields = new Object[keyType.size()];
        fields[keyType.fieldIndex("key")] = key.key();
        fields[keyType.fieldIndex("role")] = key.role().label();
        fields[keyType.fieldIndex("etag")] = key.etag();
        fields[keyType.fieldIndex("deleted_at")] = RowTimes.timestamp(key.deletedAt());
        fields[keyType.fieldIndex("delete_marker")] = key.deleteMarker();
        fields[keyType.fieldIndex("restored_version")] = key.restoredVersion();
        deleted.add(new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(fields, keyType));
        deletedKeys.add(key.key());
        gone.add(key.key());
        if (key.role() == io.statesweep.plan.DeleteRole.STATE_FILE) {
          stateFile = true;
        } else {
          files++;
        }
      }
      set(values, "deleted", seq(deleted));
      set(values, "deleted_keys", seq(deletedKeys));
      set(values, "child_keys_deleted", recorded.get(schema.fieldIndex("child_keys_deleted")) instanceof Integer
          ? (Object) (int) files : (Object) files);
      set(values, "state_file_deleted", stateFile);
      List<Row> failures = new ArrayList<>();
      if (!recorded.isNullAt(schema.fieldIndex("failures"))) {
        for (Row failure : recorded.<Row>getList(schema.fieldIndex("failures"))) {
          if (!gone.contains(failure.<String>getAs("key"))) {
            failures.add(failure);
          }
        }
      }
      set(values, "failures", seq(failures));
      boolean recordedStateFile = Boolean.TRUE.equals(recorded.getAs("state_file_deleted"));
      Row decides = stateFile && !recordedStateFile ? readRow : recorded;
      set(values, "outcome", decides.getAs("outcome"));
      set(values, "message", decides.getAs("message") + " (recorded again from its ledger: " + added.describe()
          + ")");
      set(values, "started_at", earlier(recorded.getAs("started_at"), readRow.getAs("started_at"), true));
      set(values, "ended_at", earlier(recorded.getAs("ended_at"), readRow.getAs("ended_at"), false));
      set(values, "recorded_from", "intent".equals(recorded.getAs("recorded_from"))
          || "intent".equals(readRow.getAs("recorded_from")) ? "intent" : "outcomes");
      Object attempts = recorded.getAs("task_attempts");
      Object more = readRow.getAs("task_attempts");
      if (attempts instanceof Integer && more instanceof Integer) {
        set(values, "task_attempts", (Integer) attempts + (Integer) more);
      }
      return java.util.List.<Row>of(new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(values,
          schema)).iterator();
    }

    private void set(Object[] values, String column, Object value) {
      values[schema.fieldIndex(column)] = value;
    }

    private static <T> scala.collection.Seq<T> seq(List<T> list) {
      return scala.collection.JavaConverters.asScalaBuffer(list).toList();
    }

    private static java.sql.Timestamp earlier(java.sql.Timestamp one, java.sql.Timestamp other, boolean earlier) {
      if (one == null || other == null) {
        return one == null ? other : one;
      }
      return (one.before(other)) == earlier ? one : other;
    }

    /** The row's deleted keys: from {@code deleted}, or from {@code deleted_keys} (no marker) where it is null. */
    private static List<DeletedKey> deletedKeys(Row row, String stateFileKey) {
      List<DeletedKey> keys = new ArrayList<>();
      int deleted = row.fieldIndex("deleted");
      if (!row.isNullAt(deleted)) {
        for (Row key : row.<Row>getList(deleted)) {
          String name = key.getAs("key");
          String role = key.getAs("role");
          java.sql.Timestamp at = key.getAs("deleted_at");
          keys.add(new DeletedKey(name, role != null ? io.statesweep.plan.DeleteRole.fromLabel(role)
              : name.equals(stateFileKey) ? io.statesweep.plan.DeleteRole.STATE_FILE
              : io.statesweep.plan.DeleteRole.FILE, key.getAs("etag"), at == null ? null : at.toInstant(),
              key.getAs("delete_marker"), key.getAs("restored_version")));
        }
      } else if (!row.isNullAt(row.fieldIndex("deleted_keys"))) {
        for (String name : row.<String>getList(row.fieldIndex("deleted_keys"))) {
          keys.add(new DeletedKey(name, name.equals(stateFileKey) ? io.statesweep.plan.DeleteRole.STATE_FILE
              : io.statesweep.plan.DeleteRole.FILE, null, null));
        }
      }
      return keys;
    }
  }

  /** One record's row of executions from what each task attempt did with it. */
  static final class MergeTries implements MapGroupsFunction<String, LedgerTryRow, ExecutionRow> {
    private static final long serialVersionUID = 1L;
    private final String runId;
    private final String runDate;
    private final String attemptId;

    MergeTries(String runId, String runDate, String attemptId) {
      this.runId = runId;
      this.runDate = runDate;
      this.attemptId = attemptId;
    }

    @Override
    public ExecutionRow call(String stateFileKey, Iterator<LedgerTryRow> rows) {
      List<LedgerTry> tries = new ArrayList<>();
      rows.forEachRemaining(row -> tries.add(new LedgerTry(LedgerCodec.readOutcome(row.getOutcome()),
          row.isFromIntent(), row.getTaskAttempt())));
      RecordHistory.Merged merged = RecordHistory.merge(tries);
      return executionRow(runId, runDate, attemptId, merged);
    }
  }

  static ExecutionRow executionRow(String runId, String runDate, String attemptId, RecordHistory.Merged merged) {
    ExecutionOutcome outcome = merged.outcome();
    ExecutionRow row = new ExecutionRow();
    row.setRunId(runId);
    row.setRunDate(runDate);
    row.setAttemptId(attemptId);
    row.setStateFileKey(outcome.stateFileKey());
    row.setAction(outcome.action().label());
    row.setOutcome(outcome.outcome().label());
    row.setMessage(outcome.message());
    row.setChildKeysDeleted(outcome.childKeysDeleted());
    row.setStateFileDeleted(outcome.stateFileDeleted());
    row.setKeysAlreadyGone(outcome.keysAlreadyGone());
    List<KeyFailureRow> failures = new ArrayList<>();
    for (KeyFailure failure : outcome.failures()) {
      KeyFailureRow failureRow = new KeyFailureRow();
      failureRow.setKey(failure.key());
      failureRow.setCode(failure.code());
      failureRow.setMessage(failure.message());
      failures.add(failureRow);
    }
    row.setFailures(failures);
    row.setDeletedKeys(outcome.deletedKeys());
    List<DeletedKeyRow> deleted = new ArrayList<>();
    for (DeletedKey key : outcome.deleted()) {
      DeletedKeyRow keyRow = new DeletedKeyRow();
      keyRow.setKey(key.key());
      keyRow.setRole(key.role().label());
      keyRow.setEtag(key.etag());
      keyRow.setDeletedAt(RowTimes.timestamp(key.deletedAt()));
      keyRow.setDeleteMarker(key.deleteMarker());
      keyRow.setRestoredVersion(key.restoredVersion());
      deleted.add(keyRow);
    }
    row.setDeleted(deleted);
    row.setStartedAt(RowTimes.timestamp(outcome.startedAt()));
    row.setEndedAt(RowTimes.timestamp(outcome.endedAt()));
    row.setRecordedFrom(merged.recordedFrom());
    row.setTaskAttempts(merged.taskAttempts());
    return row;
  }
}
