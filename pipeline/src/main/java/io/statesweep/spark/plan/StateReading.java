package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;

import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.api.Tables;
import io.statesweep.config.PlanOptions;
import io.statesweep.layout.Classification;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.plan.Scope;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.scan.StateFileReader;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.run.Progress;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.spark.run.Spread;
import io.statesweep.spark.run.StoreAccess;
import io.statesweep.state.StateParser;
import java.util.Iterator;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;

/**
 * A plan's second stage (pipeline/README.md, "What a run does"): the listing's state-named keys classified, those out
 * of the run's scope left out, each state file's parsed row taken from the previous plan where its ETag is unchanged
 * ({@link StateReuse}), and the others read with GET and parsed in executors. Each state file is read once: the
 * {@code state_files} table and the planning stage take the same rows.
 */
public final class StateReading {
  private StateReading() {}

  /**
   * The stage's rows (held by the job: a local checkpoint), how many state files it read with GET, and the earlier
   * plan it took the others from, or null.
   */
  public record StateFiles(Dataset<StateFileRow> rows, long gets, String reusedFrom) {}

  /**
   * Reads the state files of {@code listingDS}, spread over at least {@code shufflePartitions} tasks; tells
   * {@code progress} how many GETs the phase makes before it makes them.
   */
  public static StateFiles read(SparkSession spark, PlanOptions options, Tables tables, Dataset<ObjectRow> listingDS,
      KeyClassifier classifier, RunContext run, RunMetrics metrics, Progress progress, int shufflePartitions) {
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    Dataset<StateFileRow> classifiedDS = listingDS
        .filter(new IsStateFileName())
        .map(new ClassifyStateNamed(classifier, run), TableSchemas.STATE_FILES.encoder());
    if (!options.scope().all()) {
      // Only the records in scope are read and planned; owners still come from the whole listing (RecordJoin).
      classifiedDS = classifiedDS.filter(new InScope(options.scope()));
    }
    StateReuse.EarlierPlan previous = options.reuseStateFiles()
        ? StateReuse.previousPlan(spark, tables, options.export()) : null;
    if (previous != null) {
      // Joined once: the count below and the reads both take these rows.
      classifiedDS = StateReuse.withPrevious(spark, classifiedDS, tables, previous.runId(), previous.runDate())
          .localCheckpoint(true);
    }
    // The rows still "listed" before reading are the ones that need a GET: the phase's total.
    long gets = classifiedDS.filter(col("status").equalTo(Rows.LISTED)).count();
    progress.phase("read-state-files", "state_files_read", gets);
    Dataset<StateFileRow> stateFilesDS = Spread.byKey(classifiedDS, Math.max(parallelism * 2, shufflePartitions), "key")
        .mapPartitions(new ReadStateFiles(classifier, StoreAccess.of(options.export(), metrics),
            options.export().maxStateBytes(), options.export().workers()), TableSchemas.STATE_FILES.encoder())
        // Each state file is read once: the table and the plan see the same documents.
        .localCheckpoint(true);
    return new StateFiles(stateFilesDS, gets, previous == null ? null : previous.runId());
  }

  /** Keeps the keys named as state files are. */
  static final class IsStateFileName implements FilterFunction<ObjectRow> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean call(ObjectRow row) {
      return Keys.isStateFileName(row.getKey());
    }
  }

  /** A state-named key's row: its record's kind and ids, listed to be read, or skipped with the reason. */
  static final class ClassifyStateNamed implements MapFunction<ObjectRow, StateFileRow> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;
    private final RunContext run;

    ClassifyStateNamed(KeyClassifier classifier, RunContext run) {
      this.classifier = requireNonNull(classifier, "classifier is null");
      this.run = requireNonNull(run, "run is null");
    }

    @Override
    public StateFileRow call(ObjectRow row) {
      return Rows.stateNamedRow(classifier.classify(row.getKey()), row, run);
    }
  }

  /** The state-named keys in the run's scope ({@link Scope}). */
  static final class InScope implements FilterFunction<StateFileRow> {
    private static final long serialVersionUID = 1L;
    private final Scope scope;

    InScope(Scope scope) {
      this.scope = requireNonNull(scope, "scope is null");
    }

    @Override
    public boolean call(StateFileRow row) {
      return scope.includes(row.getKey(), row.getKind(), row.getIds());
    }
  }

  /** GETs and parses the listed state files of a partition, {@code workers} at a time; skipped rows pass through. */
  static final class ReadStateFiles implements MapPartitionsFunction<StateFileRow, StateFileRow> {
    private static final long serialVersionUID = 1L;
    private final KeyClassifier classifier;
    private final StoreAccess access;
    private final int maxStateBytes;
    private final int workers;

    ReadStateFiles(KeyClassifier classifier, StoreAccess access, int maxStateBytes, int workers) {
      this.classifier = requireNonNull(classifier, "classifier is null");
      this.access = requireNonNull(access, "access is null");
      this.maxStateBytes = maxStateBytes;
      this.workers = workers;
    }

    @Override
    public Iterator<StateFileRow> call(Iterator<StateFileRow> rows) {
      S3ObjectStore store = access.open();
      StateParser parser = new StateParser(classifier.layout().markedAtFields());
      StateFileReader reader = new StateFileReader(store, parser, maxStateBytes, workers);
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) context -> reader.close());
      }
      Iterator<StateFileRow> read = reader.readAll(rows,
          row -> Rows.LISTED.equals(row.getStatus()) ? (Classification.StateFile) classifier.classify(row.getKey()) : null,
          Rows::withRead);
      return access.countedAtEnd(read, store, row -> {
        if (!Rows.SKIPPED.equals(row.getStatus())) {
          access.metrics().stateFilesRead.add(1);
        }
        return row;
      }, reader::close);
    }
  }
}
