package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.max_by;
import static org.apache.spark.sql.functions.struct;

import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.RecordRow;
import io.statesweep.spark.rows.StateFileRow;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import scala.Tuple3;

/**
 * The joins that give each record what its plan needs, done in Spark rather than with per-record
 * requests: the listing's view of every key its state file names, the closest existing state file
 * that owns each such key, and the newest file the record itself owns.
 */
public final class RecordJoin {
  private RecordJoin() {}

  /**
   * Joins each readable record with the listing of the keys it names (existence, version, closest
   * owning state file) and with the newest file it owns.
   */
  public static Dataset<RecordRow> records(Dataset<StateFileRow> stateFilesDS, Dataset<ObjectRow> listingDS,
      KeyClassifier classifier) {
    Dataset<Row> readDS = stateFilesDS.toDF()
        .filter(col("status").isin(Rows.READ, Rows.BAD_STATE));
    Dataset<Row> refsDS = readDS.filter(col("status").equalTo(Rows.READ))
        .select(col("key").as("state_key"),
            explode(expr("array_distinct(concat(coalesce(files, array()), coalesce(deleteFiles, array())))"))
                .as("key"));

    // The closest existing record boundary above each key: its owner.
    Dataset<String> keysDS = listingDS.select(col("key")).as(Encoders.STRING())
        .union(refsDS.select(col("key")).as(Encoders.STRING()));
    Dataset<Row> candidatesDS = keysDS
        .flatMap(new OwnerCandidates(classifier),
            Encoders.tuple(Encoders.STRING(), Encoders.STRING(), Encoders.INT()))
        .toDF("key", "candidate", "depth");
    Dataset<Row> boundariesDS = listingDS.filter(new IsRecordBoundary(classifier, Boundaries.KEEP))
        .select(col("key").as("candidate"));
    Dataset<Row> ownersDS = candidatesDS.join(boundariesDS, "candidate")
        .groupBy("key")
        .agg(max_by(col("candidate"), col("depth")).as("owner"));

    Dataset<Row> listingRows = listingDS.toDF().withColumnRenamed("key", "listed_key");
    Dataset<Row> ownerRows = ownersDS.withColumnRenamed("key", "owned_key");
    Dataset<Row> listedDS = refsDS
        .join(listingRows, refsDS.col("key").equalTo(listingRows.col("listed_key")), "left")
        .join(ownerRows, refsDS.col("key").equalTo(ownerRows.col("owned_key")), "left")
        .groupBy("state_key")
        .agg(collect_list(struct(col("key"), col("etag"), col("lastModified"), col("size"), col("owner")))
            .as("listed"));

    Dataset<Row> ownedDS = listingDS.filter(new IsRecordBoundary(classifier, Boundaries.EXCLUDE))
        .toDF()
        .join(ownersDS, "key")
        .groupBy("owner")
        .agg(max_by(struct(col("key"), col("etag"), col("lastModified"), col("size"), col("storageClass")),
            col("lastModified"))
            .as("newest"));

    Column[] stateColumns = java.util.Arrays.stream(readDS.columns()).map(c -> col(c)).toArray(Column[]::new);
    return readDS.select(struct(stateColumns).as("state"), col("key").as("record_key"))
        .join(listedDS, col("record_key").equalTo(listedDS.col("state_key")), "left")
        .join(ownedDS, col("record_key").equalTo(ownedDS.col("owner")), "left")
        .select(col("state"), col("listed"), col("newest"))
        .as(RecordRow.ENCODER);
  }


  /** The most listed keys one partition of the joins holds ({@link #shufflePartitions}). */
  public static final long KEYS_PER_SHUFFLE_PARTITION = 200_000;
  private static final long MAX_SHUFFLE_PARTITIONS = 20_000;

  /**
   * The shuffle partitions of the plan's joins: the session's setting, raised so that no partition
   * holds more than {@link #KEYS_PER_SHUFFLE_PARTITION} listed keys (a fixed count that suits a test
   * archive would give a 100M-key archive's joins partitions of millions of rows).
   */
  public static int shufflePartitions(long keysListed, int configured) {
    long needed = (keysListed + KEYS_PER_SHUFFLE_PARTITION - 1) / KEYS_PER_SHUFFLE_PARTITION;
    return (int) Math.max(configured, Math.min(needed, MAX_SHUFFLE_PARTITIONS));
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
}
