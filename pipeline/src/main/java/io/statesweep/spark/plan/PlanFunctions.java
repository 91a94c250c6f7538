package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.layout.Classification;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.plan.ListedKey;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RecordInput;
import io.statesweep.plan.RecordPlan;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.scan.BudgetedListing;
import io.statesweep.scan.ListingTask;
import io.statesweep.scan.StateFileReader;
import io.statesweep.spark.rows.ListedKeyRow;
import io.statesweep.spark.rows.ListedRow;
import io.statesweep.spark.rows.ListingTaskRow;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.RecordRow;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.rows.StateFileRows;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateParser;
import io.statesweep.store.ListingDepth;
import io.statesweep.store.StoredObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import scala.Tuple3;

/**
 * The Spark functions of planning: each a static class with final serializable fields that calls the
 * plain-Java core. S3 clients are shared per executor JVM ({@link S3Clients#shared}).
 */
public final class PlanFunctions {
  private PlanFunctions() {}

  /**
   * Lists a partition's tasks: a folder level (DIRECT) whole, a prefix (RECURSIVE) up to its page
   * budget, yielding its objects and then the tasks that cover what it left.
   */
  public static final class ListTasks implements FlatMapFunction<ListingTaskRow, ListedRow> {
    private static final long serialVersionUID = 1L;
    private final S3Settings s3;
    private final String bucket;
    private final int pagesPerTask;
    private final RunMetrics metrics;

    public ListTasks(S3Settings s3, String bucket, int pagesPerTask, RunMetrics metrics) {
      this.metrics = requireNonNull(metrics, "metrics is null");
      this.s3 = requireNonNull(s3, "s3 is null");
      this.bucket = requireNonNull(bucket, "bucket is null");
      this.pagesPerTask = pagesPerTask;
    }

    @Override
    public Iterator<ListedRow> call(ListingTaskRow row) {
      S3ObjectStore store = S3ObjectStore.open(s3, bucket);
      ListingTask task = new ListingTask(row.getPrefix(), row.getStartAfter(),
          ListingTask.NextChars.valueOf(row.getNextChars()), ListingDepth.valueOf(row.getDepth()));
      if (task.depth() == ListingDepth.DIRECT) {
        Iterator<StoredObject> objects = store.iterate(task.prefix(), ListingDepth.DIRECT);
        return new Iterator<>() {
          private boolean counted;

          @Override
          public boolean hasNext() {
            boolean more = objects.hasNext();
            if (!more && !counted) {
              counted = true;
              metrics.addRequests(store.requestCounts());
            }
            return more;
          }

          @Override
          public ListedRow next() {
            metrics.keysListed.add(1);
            return Rows.listedRow(objects.next());
          }
        };
      }
      // A task holds at most its page budget of keys: its rows fit in memory by construction.
      List<ListedRow> out = new ArrayList<>();
      BudgetedListing.Outcome outcome = new BudgetedListing(store::listPage, pagesPerTask)
          .list(task, object -> out.add(Rows.listedRow(object)));
      metrics.keysListed.add(out.size());
      metrics.addRequests(store.requestCounts());
      for (ListingTask rest : outcome.rest()) {
        out.add(Rows.listedTask(rest));
      }
      return out.iterator();
    }
  }

  public static final class IsStateFileName implements FilterFunction<ObjectRow> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean call(ObjectRow row) {
      return Keys.isStateFileName(row.getKey());
    }
  }

  /**
   * Keeps (or excludes) keys at a state-file place, known kind or not: no other record may own them
   * or reach into their folder.
   */
  static final class IsRecordBoundary implements FilterFunction<ObjectRow> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;
    private final Boundaries boundaries;

    IsRecordBoundary(KeyClassifier classifier, Boundaries boundaries) {
      this.classifier = requireNonNull(classifier, "classifier is null");
      this.boundaries = requireNonNull(boundaries, "boundaries is null");
    }

    @Override
    public boolean call(ObjectRow row) {
      boolean boundary = Keys.isStateFileName(row.getKey()) && classifier.isRecordBoundary(row.getKey());
      return boundaries == Boundaries.KEEP ? boundary : !boundary;
    }
  }

  public static final class ClassifyStateNamed implements MapFunction<ObjectRow, StateFileRow> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;
    private final RunContext run;

    public ClassifyStateNamed(KeyClassifier classifier, RunContext run) {
      this.classifier = requireNonNull(classifier, "classifier is null");
      this.run = requireNonNull(run, "run is null");
    }

    @Override
    public StateFileRow call(ObjectRow row) {
      return Rows.stateNamedRow(classifier.classify(row.getKey()), row, run);
    }
  }

  /** The state-named keys in the run's scope ({@link io.statesweep.plan.Scope}). */
  public static final class InScope implements org.apache.spark.api.java.function.FilterFunction<StateFileRow> {
    private static final long serialVersionUID = 1L;
    private final io.statesweep.plan.Scope scope;

    public InScope(io.statesweep.plan.Scope scope) {
      this.scope = requireNonNull(scope, "scope is null");
    }

    @Override
    public boolean call(StateFileRow row) {
      return scope.includes(row.getKey(), row.getKind(), row.getIds());
    }
  }

  /** GETs and parses the listed state files of a partition, {@code workers} at a time; skipped rows pass through. */
  public static final class ReadStateFiles implements MapPartitionsFunction<StateFileRow, StateFileRow> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;
    private final S3Settings s3;
    private final String bucket;
    private final int maxStateBytes;
    private final int workers;
    private final RunMetrics metrics;

    public ReadStateFiles(KeyClassifier classifier, S3Settings s3, String bucket, int maxStateBytes, int workers,
        RunMetrics metrics) {
      this.metrics = requireNonNull(metrics, "metrics is null");
      this.classifier = requireNonNull(classifier, "classifier is null");
      this.s3 = requireNonNull(s3, "s3 is null");
      this.bucket = requireNonNull(bucket, "bucket is null");
      this.maxStateBytes = maxStateBytes;
      this.workers = workers;
    }

    @Override
    public Iterator<StateFileRow> call(Iterator<StateFileRow> rows) {
      S3ObjectStore store = S3ObjectStore.open(s3, bucket);
      StateParser parser = new StateParser(classifier.layout().markedAtFields());
      StateFileReader reader = new StateFileReader(store, parser, maxStateBytes, workers);
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) context -> reader.close());
      }
      Iterator<StateFileRow> read = reader.readAll(rows,
          row -> Rows.LISTED.equals(row.getStatus()) ? (Classification.StateFile) classifier.classify(row.getKey()) : null,
          Rows::withRead);
      return new Iterator<>() {
        private boolean counted;

        @Override
        public boolean hasNext() {
          boolean more = read.hasNext();
          if (!more) {
            reader.close();
            if (!counted) {
              counted = true;
              metrics.addRequests(store.requestCounts());
            }
          }
          return more;
        }

        @Override
        public StateFileRow next() {
          StateFileRow row = read.next();
          if (!Rows.SKIPPED.equals(row.getStatus())) {
            metrics.stateFilesRead.add(1);
          }
          return row;
        }
      };
    }
  }

  /** (key, candidate owner state file, depth) for every key. */
  static final class OwnerCandidates implements FlatMapFunction<String, Tuple3<String, String, Integer>> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;

    OwnerCandidates(KeyClassifier classifier) {
      this.classifier = requireNonNull(classifier, "classifier is null");
    }

    @Override
    public Iterator<Tuple3<String, String, Integer>> call(String key) {
      List<Tuple3<String, String, Integer>> out = new ArrayList<>();
      for (OwnerCandidate candidate : classifier.ownerCandidates(key)) {
        out.add(new Tuple3<>(key, candidate.stateFileKey(), candidate.depth()));
      }
      return out.iterator();
    }
  }

  /** Runs the planner on one record. */
  public static final class PlanRecord implements MapFunction<RecordRow, PlanRow> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;
    private final Planner planner;
    private final RunContext run;
    private final Instant listedAt;
    private final RunMetrics metrics;

    /** {@code listedAt}: when the listing began (an inventory report: when it was taken). */
    public PlanRecord(KeyClassifier classifier, Planner planner, RunContext run, Instant listedAt, RunMetrics metrics) {
      this.metrics = requireNonNull(metrics, "metrics is null");
      this.classifier = requireNonNull(classifier, "classifier is null");
      this.planner = requireNonNull(planner, "planner is null");
      this.run = requireNonNull(run, "run is null");
      this.listedAt = requireNonNull(listedAt, "listedAt is null");
    }

    @Override
    public PlanRow call(RecordRow record) {
      StateFileRow state = record.getState();
      Classification.StateFile stateFile = (Classification.StateFile) classifier.classify(state.getKey());
      StoredObject stateObject = Rows.storedObject(state.getKey(), state.getEtag(), state.getLastModified(),
          state.getSize());
      ParsedState parsed = StateFileRows.parsed(state);
      Map<String, ListedKey> listed = new HashMap<>();
      if (record.getListed() != null) {
        for (ListedKeyRow key : record.getListed()) {
          listed.put(key.getKey(), new ListedKey(key.getKey(),
              Rows.storedObject(key.getKey(), key.getEtag(), key.getLastModified(), key.getSize()), key.getOwner()));
        }
      }
      StoredObject newest = record.getNewest() == null ? null : Rows.storedObject(record.getNewest().getKey(),
          record.getNewest().getEtag(), record.getNewest().getLastModified(), record.getNewest().getSize());
      RecordPlan plan = planner.plan(new RecordInput(stateFile, stateObject, parsed, listed, newest), run.now(),
          listedAt);
      metrics.recordsPlanned.add(1);
      return Rows.planRow(state, plan, planner.graceFor(stateFile), run);
    }
  }
}
