package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.run.RunMetrics;
import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.ObjectStoreRecords;
import io.statesweep.execute.PlannedRecord;
import io.statesweep.execute.PlannedRow;
import io.statesweep.execute.RecordExecutor;
import io.statesweep.execute.RecordStore;
import io.statesweep.execute.PacedLane;
import io.statesweep.execute.SharedDeleteThrottle;
import io.statesweep.ledger.LedgerEntry;
import io.statesweep.ledger.LedgerKeys;
import io.statesweep.ledger.ObjectStoreLedger;
import io.statesweep.ledger.TaskLedger;
import io.statesweep.plan.Planner;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.PlanRows;
import io.statesweep.state.StateParser;
import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoredObject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskKilledException;
import org.apache.spark.api.java.function.ForeachPartitionFunction;

/** The Spark function of execution: runs the {@link RecordExecutor} over a partition's plan rows, a window at a time. */
public final class ExecuteFunctions {
  private ExecuteFunctions() {}

  /**
   * Executes a partition's plan rows a window at a time, each window's intent and outcomes written to the
   * attempt's ledger (pipeline/README.md, "Every delete on the record"): {@code executions} is built from the ledger,
   * never from this task's output, so whatever becomes of the task its deletes are on the record.
   */
  public static final class ExecuteRecords implements ForeachPartitionFunction<PlanRow> {
    private static final long serialVersionUID = 1L;

    private final Planner planner;
    private final int maxStateBytes;
    private final S3Settings s3;
    private final String bucket;
    private final int batchSize;
    private final ConditionalDeletes conditional;
    private final double keysPerSecondPerTask;
    private final ExecutionHook hook;
    private final LedgerEntry.Header ledgerHeader;
    private final String ledgerFolder;
    private final int workers;
    private final RunMetrics metrics;
    private final PacedLane.Pacing pacing;
    private final String prefix;
    private final int laneDepth;

    /**
     * @param ledgerHeader the run, its date, the attempt and the warehouse that every ledger object of the attempt
     *     names (the partition, task attempt and window are each task's own)
     * @param ledgerFolder the attempt's folder of the ledger ({@link LedgerKeys#attempt})
     */
    public ExecuteRecords(Planner planner, int maxStateBytes, S3Settings s3, String bucket, int batchSize,
        ConditionalDeletes conditional, double keysPerSecondPerTask, ExecutionHook hook, LedgerEntry.Header ledgerHeader,
        String ledgerFolder, int workers, RunMetrics metrics) {
      this(planner, maxStateBytes, s3, bucket, batchSize, conditional, keysPerSecondPerTask, null, "", 2, hook,
          ledgerHeader, ledgerFolder, workers, metrics);
    }

    /**
     * @param pacing how each lane's deletes are paced (null: not paced)
     * @param prefix the export prefix, below which {@code laneDepth} folders name a record's lane
     */
    public ExecuteRecords(Planner planner, int maxStateBytes, S3Settings s3, String bucket, int batchSize,
        ConditionalDeletes conditional, double keysPerSecondPerTask, PacedLane.Pacing pacing, String prefix,
        int laneDepth, ExecutionHook hook, LedgerEntry.Header ledgerHeader, String ledgerFolder, int workers,
        RunMetrics metrics) {
      this.pacing = pacing;
      this.prefix = requireNonNull(prefix, "prefix is null");
      this.laneDepth = laneDepth;
      this.metrics = requireNonNull(metrics, "metrics is null");
      this.workers = workers;
      this.planner = requireNonNull(planner, "planner is null");
      this.maxStateBytes = maxStateBytes;
      this.s3 = requireNonNull(s3, "s3 is null");
      this.bucket = requireNonNull(bucket, "bucket is null");
      this.batchSize = batchSize;
      this.conditional = requireNonNull(conditional, "conditional is null");
      this.keysPerSecondPerTask = keysPerSecondPerTask;
      this.hook = requireNonNull(hook, "hook is null");
      this.ledgerHeader = requireNonNull(ledgerHeader, "ledgerHeader is null");
      this.ledgerFolder = requireNonNull(ledgerFolder, "ledgerFolder is null");
    }

    @Override
    public void call(Iterator<PlanRow> rows) {
      S3ObjectStore store = S3ObjectStore.open(s3, bucket);
      TaskContext task = TaskContext.get();
      // The ledger's writes go straight to the store, not through UnlessKilled: a window that deleted something
      // records its outcomes even when its task was killed meanwhile.
      LedgerEntry.Header header = ledgerHeader;
      if (task != null) {
        header = new LedgerEntry.Header(header.runId(), header.runDate(), header.attemptId(), header.warehouse(),
            task.partitionId(), task.taskAttemptId(), 0, header.writtenAt());
      }
      TaskLedger ledger = new TaskLedger(new ObjectStoreLedger(store), ledgerFolder, header, Clock.systemUTC());
      // The tasks of this attempt in this JVM share one throttle (see SharedDeleteThrottle).
      SharedDeleteThrottle.Share share = SharedDeleteThrottle.join(ledgerHeader.attemptId(), keysPerSecondPerTask,
          pacing);
      // A window: records verified in parallel, whose deletes start within a second of each one's own
      // verification (RecordExecutor; pipeline/README.md "Deleting"): at most two records per verifying thread, a batch
      // of keys, and no more keys than one request under the throttle may carry; the records of one lane, whose
      // throttle that is (pipeline/README.md, "Deleting at the bucket's speed").
      int windowRecords = Math.max(1, 2 * workers);
      StateParser parser = new StateParser(planner.classifier().layout().markedAtFields());
      java.util.function.Function<String, PacedLane> lanes =
          stateFileKey -> share.lane(PacedLane.of(stateFileKey, prefix, laneDepth));
      try (RecordExecutor executor = new RecordExecutor(new UnlessKilled(new ObjectStoreRecords(store, maxStateBytes),
          task), planner, parser, batchSize, conditional, lanes, hook, Clock.systemUTC(), workers, ledger)) {
        PlannedRow next = rows.hasNext() ? PlanRows.read(rows.next()) : null;
        while (next != null) {
          List<PlannedRecord> records = new ArrayList<>();
          // A row that cannot be executed is kept_refused in its place in the window; the others go on.
          List<ExecutionOutcome> refused = new ArrayList<>();
          List<Integer> refusedAt = new ArrayList<>();
          int rowsRead = 0;
          int keys = 0;
          PacedLane lane = null;
          int windowKeys = Integer.MAX_VALUE;
          while (next != null && keys < windowKeys && rowsRead < windowRecords) {
            PlannedRow planned = next;
            if (planned instanceof PlannedRow.Executable executable) {
              PacedLane its = lanes.apply(executable.record().stateFileKey());
              if (lane == null) {
                lane = its;
                windowKeys = Math.max(1, Math.min(batchSize, lane.throttle().maxBatch()));
              } else if (its != lane) {
                break; // the next lane's records start the next window
              }
            }
            next = rows.hasNext() ? PlanRows.read(rows.next()) : null;
            if (planned instanceof PlannedRow.Executable executable) {
              records.add(executable.record());
              keys += executable.record().deletes().size();
            } else {
              refusedAt.add(rowsRead);
              refused.add(((PlannedRow.Refused) planned).outcome(Instant.now()));
            }
            rowsRead++;
          }
          UnlessKilled.check(task);
          ledger.nextWindow();
          List<ExecutionOutcome> outcomes = new ArrayList<>(records.isEmpty() ? List.of() : executor.execute(records));
          for (int i = 0; i < refused.size(); i++) {
            outcomes.add(refusedAt.get(i), refused.get(i));
          }
          ledger.recordOutcomes(outcomes);
          hook.afterWindow(records.stream().map(PlannedRecord::stateFileKey).toList());
          metrics.recordsVerified.add(outcomes.size());
          for (ExecutionOutcome outcome : outcomes) {
            metrics.keysDeleted.add(outcome.keysDeleted());
            if (outcome.verifiedToDeleted() != null) {
              metrics.verifiedToDeleted.add(outcome.verifiedToDeleted());
            }
          }
        }
      } finally {
        try {
          // The last window's outcomes are durable before the task ends, whatever ends it.
          ledger.close();
        } finally {
          share.close();
          metrics.addRequests(store.requestCounts());
          metrics.addSlowDowns(share.takeSlowDowns());
        }
      }
    }
  }

  /**
   * The records' store of a task that stops as soon as Spark kills it (its job was cancelled: the run
   * lost its lock): every request first looks at the task's kill flag, so no DeleteObjects request starts
   * after it is set; one already sent may finish. Spark sets the flag without interrupting the thread
   * (interruptOnCancel stays false: an interrupt can break Hadoop clients that the executor shares with
   * the Delta writes), so the flag, not an interrupt, is what stops the deletes.
   */
  static final class UnlessKilled implements RecordStore {
    private final RecordStore store;
    private final TaskContext task;

    UnlessKilled(RecordStore store, TaskContext task) {
      this.store = requireNonNull(store, "store is null");
      this.task = task; // null outside a Spark task
    }

    /** Throws Spark's own {@link TaskKilledException} when the task was killed. */
    static void check(TaskContext task) {
      if (task != null && task.isInterrupted()) {
        throw new TaskKilledException("its job was cancelled: no more deletes");
      }
    }

    @Override
    public StateCheck checkUnchanged(String key, String etag) {
      check(task);
      return store.checkUnchanged(key, etag);
    }

    @Override
    public ConditionalRead readState(String key, String etag) {
      check(task);
      return store.readState(key, etag);
    }

    @Override
    public Iterator<StoredObject> list(String prefix, String startAfter) {
      check(task);
      return store.list(prefix, startAfter);
    }

    @Override
    public StoredObject listedObject(String key) {
      check(task);
      return store.listedObject(key);
    }

    /** Not stopped by a kill: it takes back this task's own delete of a file that is live again. */
    @Override
    public io.statesweep.store.MarkerRemoval removeMarkerIfLatest(String key, String markerVersionId,
      String deletedEtag) {
      return store.removeMarkerIfLatest(key, markerVersionId, deletedEtag);
    }

    @Override
    public ListingPage listPage(String prefix, String startAfter, String token) {
      check(task);
      return store.listPage(prefix, startAfter, token);
    }

    @Override
    public DeleteResult delete(List<DeleteTarget> targets) {
      check(task);
      return store.delete(targets);
    }
  }
}
