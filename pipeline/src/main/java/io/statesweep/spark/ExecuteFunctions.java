package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.KeyFailure;
import io.statesweep.execute.ObjectStoreRecords;
import io.statesweep.execute.PlannedRecord;
import io.statesweep.execute.RecordExecutor;
import io.statesweep.execute.RecordStore;
import io.statesweep.execute.SharedDeleteThrottle;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.plan.StoredObject;
import io.statesweep.s3.ConditionalRead;
import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3Settings;
import io.statesweep.s3.StateCheck;
import io.statesweep.spark.rows.DeleteRow;
import io.statesweep.spark.rows.ExecutionRow;
import io.statesweep.spark.rows.KeyFailureRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.state.StateParser;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskKilledException;
import org.apache.spark.api.java.function.MapPartitionsFunction;

/** The Spark function of execution: runs the {@link RecordExecutor} over a partition's plan rows, a window at a time. */
final class ExecuteFunctions {
  private ExecuteFunctions() {}

  static final class ExecuteRecords implements MapPartitionsFunction<PlanRow, ExecutionRow> {
    private static final long serialVersionUID = 1L;

    private final Planner planner;
    private final int maxStateBytes;
    private final S3Settings s3;
    private final String bucket;
    private final int batchSize;
    private final ConditionalDeletes conditional;
    private final double keysPerSecondPerTask;
    private final ExecutionHook hook;
    private final String attemptId;
    private final int workers;
    private final RunMetrics metrics;

    ExecuteRecords(Planner planner, int maxStateBytes, S3Settings s3, String bucket, int batchSize,
        ConditionalDeletes conditional, double keysPerSecondPerTask, ExecutionHook hook, String attemptId, int workers,
        RunMetrics metrics) {
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
      this.attemptId = requireNonNull(attemptId, "attemptId is null");
    }

    @Override
    public Iterator<ExecutionRow> call(Iterator<PlanRow> rows) {
      ObjectStore store = new ObjectStore(S3Clients.shared(s3), bucket);
      // The tasks of this attempt in this JVM share one throttle (see SharedDeleteThrottle).
      SharedDeleteThrottle.Share share = SharedDeleteThrottle.join(attemptId, keysPerSecondPerTask);
      // A window: records verified together, then deleted at once. Small, so that a record's files go
      // well within a second of its verification: at most two records per verifying thread, a batch of
      // keys, and no more keys than one request under the throttle may carry.
      int windowRecords = Math.max(1, 2 * workers);
      int windowKeys = Math.max(1, Math.min(batchSize, share.throttle().maxBatch()));
      TaskContext task = TaskContext.get();
      StateParser parser = new StateParser(planner.classifier().layout().markedAtFields());
      RecordExecutor executor = new RecordExecutor(new UnlessKilled(new ObjectStoreRecords(store, maxStateBytes), task),
          planner, parser, batchSize, conditional, share.throttle(), hook, Clock.systemUTC(), workers);
      if (task != null) {
        task.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) context -> {
          share.close();
          executor.close();
        });
      }
      return new Iterator<>() {
        private Iterator<ExecutionRow> current = Collections.emptyIterator();
        private boolean counted;

        @Override
        public boolean hasNext() {
          while (!current.hasNext() && rows.hasNext()) {
            List<PlanRow> window = new ArrayList<>();
            List<PlannedRecord> records = new ArrayList<>();
            int keys = 0;
            while (rows.hasNext() && keys < windowKeys && window.size() < windowRecords) {
              PlanRow row = rows.next();
              window.add(row);
              records.add(plannedRecord(row));
              keys += row.getDeletes().size();
            }
            UnlessKilled.check(task);
            List<ExecutionOutcome> outcomes = executor.execute(records);
            metrics.recordsVerified.add(outcomes.size());
            for (ExecutionOutcome outcome : outcomes) {
              metrics.keysDeleted.add(outcome.keysDeleted());
              if (outcome.verifiedToDeleted() != null) {
                metrics.verifiedToDeleted.add(outcome.verifiedToDeleted());
              }
            }
            List<ExecutionRow> out = new ArrayList<>(outcomes.size());
            for (int i = 0; i < outcomes.size(); i++) {
              out.add(executionRow(window.get(i), outcomes.get(i)));
            }
            current = out.iterator();
          }
          boolean more = current.hasNext();
          if (!more && !counted) {
            counted = true;
            metrics.addRequests(store.requestCounts());
          }
          return more;
        }

        @Override
        public ExecutionRow next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          return current.next();
        }
      };
    }

    private ExecutionRow executionRow(PlanRow plan, ExecutionOutcome outcome) {
      ExecutionRow row = new ExecutionRow();
      row.setRunId(plan.getRunId());
      row.setRunDate(plan.getRunDate());
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
      row.setStartedAt(Rows.timestamp(outcome.startedAt()));
      row.setEndedAt(Rows.timestamp(outcome.endedAt()));
      return row;
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

    @Override
    public DeleteResult delete(List<DeleteTarget> targets) {
      check(task);
      return store.delete(targets);
    }
  }

  static PlannedRecord plannedRecord(PlanRow row) {
    StoredObject stateFile = new StoredObject(row.getStateFileKey(), row.getStateEtag(),
        row.getStateLastModified().toInstant(), 0L);
    List<PlannedDelete> deletes = new ArrayList<>(row.getDeletes().size());
    for (DeleteRow delete : row.getDeletes()) {
      deletes.add(new PlannedDelete(new StoredObject(delete.getKey(), delete.getEtag(),
          delete.getLastModified().toInstant(), delete.getSize()), DeleteRole.fromLabel(delete.getRole())));
    }
    return new PlannedRecord(Action.fromLabel(row.getAction()), stateFile, deletes);
  }
}
