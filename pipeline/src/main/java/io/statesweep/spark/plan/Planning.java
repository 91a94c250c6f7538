package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.layout.Classification;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.plan.Grace;
import io.statesweep.plan.ListedKey;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RecordInput;
import io.statesweep.plan.RecordPlan;
import io.statesweep.spark.rows.ListedKeyRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.RecordRow;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.rows.StateFileRows;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.state.ParsedState;
import io.statesweep.store.StoredObject;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;

/**
 * A plan's third stage (pipeline/README.md, "What a run does"): each record read by the state-reading stage joined with
 * the listing ({@link RecordJoin}) and given one action by the {@link Planner}, in executors.
 */
public final class Planning {
  private Planning() {}

  /**
   * One row per record of {@code stateFilesDS} (read or bad state), planned at the run's "now" under {@code grace};
   * not yet computed: the caller decides where the rows are held.
   */
  public static Dataset<PlanRow> plan(Dataset<StateFileRow> stateFilesDS, Listings.Listing listing,
      KeyClassifier classifier, Grace grace, RunContext run, RunMetrics metrics) {
    Planner planner = new Planner(classifier, grace);
    return RecordJoin.records(stateFilesDS, listing.objects(), classifier)
        .map(new PlanRecord(classifier, planner, run, listing.listedAt(), metrics), TableSchemas.DELETION_PLAN.encoder());
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
