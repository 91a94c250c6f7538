package io.statesweep.spark.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.spark.run.Spread;
import io.statesweep.spark.plan.Planning;
import io.statesweep.spark.plan.RecordJoin;
import io.statesweep.spark.plan.Rows;
import io.statesweep.spark.run.RunContext;
import io.statesweep.spark.run.RunMetrics;
import com.holdenkarau.spark.testing.JavaDatasetSuiteBase;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Layout;
import io.statesweep.plan.Planner;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.testing.SharedSpark;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The Spark joins of planning, on in-memory Datasets (no S3): who owns a key is decided by the
 * closest existing state file, and a record sees the newest file it owns even when it does not list it.
 */
class RecordJoinTest {
  private static final Instant STATE_TIME = Instant.parse("2026-11-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2026-11-29T00:00:00Z");
  private static final KeyClassifier CLASSIFIER = Layout.builtIn("cogram").classifier(ExportPrefix.of("t/"));
  private static final RunContext RUN = new RunContext("run-1", "2026-11-29", NOW, 0);

  /** spark-testing-base's Dataset equality, on the shared session's Datasets. */
  private final JavaDatasetSuiteBase datasets = new JavaDatasetSuiteBase();

  private final List<ObjectRow> listing = new ArrayList<>();
  private final List<StateFileRow> stateFiles = new ArrayList<>();

  @Test
  void ownershipAndNewestOwnedFileDecideTheirRecordsPlans() {
    // p1 lists a file inside a live meeting that has its own state file: refused.
    object("projects/p1/project.json", -10);
    object("projects/p1/meetings/m/minutes.pdf", -10);
    state("projects/p1/state.json", true, "projects/p1/project.json", "projects/p1/meetings/m/minutes.pdf");
    state("projects/p1/meetings/m/state.json", false, "projects/p1/meetings/m/minutes.pdf");
    // p2 does not list a draft that was written after its state file: the record is coming back.
    object("projects/p2/project.json", -10);
    object("projects/p2/drafts/new.txt", 60);
    state("projects/p2/state.json", true, "projects/p2/project.json");
    // p3 is due; one listed file never existed; a meeting without a state file belongs to p3.
    object("projects/p3/project.json", -10);
    object("projects/p3/meetings/orphan/a.txt", -5);
    state("projects/p3/state.json", true, "projects/p3/project.json", "projects/p3/gone.json",
        "projects/p3/meetings/orphan/a.txt");

    SparkSession spark = SharedSpark.session();
    Dataset<ObjectRow> listingDS = spark.createDataset(listing, ObjectRow.ENCODER);
    Dataset<StateFileRow> stateFilesDS = spark.createDataset(stateFiles, TableSchemas.STATE_FILES.encoder());
    Dataset<PlanRow> planDS = RecordJoin.records(stateFilesDS, listingDS, CLASSIFIER)
        .map(new Planning.PlanRecord(CLASSIFIER, new Planner(CLASSIFIER, Duration.ZERO), RUN,
            RUN.now(), RunMetrics.register(spark.sparkContext())), TableSchemas.DELETION_PLAN.encoder());

    Dataset<Row> actual = planDS.selectExpr("stateFileKey", "action", "transform(deletes, d -> d.key) as deleteKeys",
        "missingKeys").orderBy("stateFileKey");
    StructType schema = new StructType()
        .add("stateFileKey", DataTypes.StringType)
        .add("action", DataTypes.StringType)
        .add("deleteKeys", DataTypes.createArrayType(DataTypes.StringType))
        .add("missingKeys", DataTypes.IntegerType, false);
    Dataset<Row> expected = spark.createDataFrame(List.of(
        RowFactory.create("t/projects/p1/meetings/m/state.json", "keep", List.of(), 0),
        RowFactory.create("t/projects/p1/state.json", "kept_refused", List.of(), 0),
        RowFactory.create("t/projects/p2/state.json", "kept_newer_files", List.of(), 0),
        RowFactory.create("t/projects/p3/state.json", "delete_record", List.of("t/projects/p3/project.json",
            "t/projects/p3/meetings/orphan/a.txt", "t/projects/p3/state.json"), 1)), schema);

    datasets.assertDatasetEquals(expected, actual);
  }

  @Test
  void joinsOfAListingOfUnknownSizeShuffleAndNeverBroadcastTheListing() {
    object("projects/p1/project.json", -10);
    state("projects/p1/state.json", true, "projects/p1/project.json");
    SparkSession spark = SharedSpark.session();

    // A listing made from a local list looks tiny to Spark: it plans broadcasts, which would collect a
    // listing of millions of keys into the driver. This is what the test guards against.
    String fromLocalList = RecordJoin.records(spark.createDataset(stateFiles, TableSchemas.STATE_FILES.encoder()),
        spark.createDataset(listing, ObjectRow.ENCODER), CLASSIFIER).queryExecution().sparkPlan().toString();
    assertThat(fromLocalList).contains("BroadcastHashJoin");

    String ofUnknownSize = RecordJoin.records(
        Spread.ofUnknownSize(spark, stateFiles, TableSchemas.STATE_FILES.encoder()),
        Spread.ofUnknownSize(spark, listing, ObjectRow.ENCODER), CLASSIFIER)
        .queryExecution().sparkPlan().toString();
    assertThat(ofUnknownSize).doesNotContain("Broadcast").contains("SortMergeJoin");
  }

  @Test
  void shufflePartitionsGrowWithTheListingAndNeverFallBelowTheSessionsSetting() {
    assertThat(RecordJoin.shufflePartitions(5_000, 8)).isEqualTo(8);
    assertThat(RecordJoin.shufflePartitions(10_000_000, 8)).isEqualTo(50);
    assertThat(RecordJoin.shufflePartitions(10_000_001, 8)).isEqualTo(51);
    assertThat(RecordJoin.shufflePartitions(10_000_000, 200)).isEqualTo(200);
    assertThat(RecordJoin.shufflePartitions(Long.MAX_VALUE / 2, 8)).isEqualTo(20_000);
  }

  private void object(String key, long secondsAfterState) {
    ObjectRow row = new ObjectRow();
    row.setKey("t/" + key);
    row.setEtag("etag-" + key.hashCode());
    row.setLastModified(Timestamp.from(STATE_TIME.plusSeconds(secondsAfterState)));
    row.setSize(10);
    listing.add(row);
  }

  private void state(String key, boolean delete, String... files) {
    object(key, 0);
    ObjectRow listed = listing.get(listing.size() - 1);
    StateFileRow row = Rows.stateNamedRow(CLASSIFIER.classify(listed.getKey()), listed, RUN);
    row.setStatus(Rows.READ);
    row.setDelete(delete);
    List<String> keys = new ArrayList<>();
    for (String file : files) {
      keys.add("t/" + file);
    }
    row.setFiles(keys);
    row.setDeleteFiles(List.of());
    row.setRawJson("{}");
    stateFiles.add(row);
  }
}
