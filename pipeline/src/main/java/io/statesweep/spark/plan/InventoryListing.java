package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.input_file_name;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import io.statesweep.cost.NoncurrentVersions;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.scan.InventoryEntry;
import io.statesweep.scan.InventoryManifest;
import io.statesweep.spark.rows.InventoryObjectRow;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.RowTimes;
import io.statesweep.store.StoredObject;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The listing read from an S3 Inventory report instead of ListObjectsV2: the report's data files are
 * table input (Spark's CSV, ORC and Parquet readers, through the Hadoop filesystem of the manifest's
 * scheme), each line becomes the object a listing would have shown, and only the export prefix's
 * live keys remain. A line that cannot be read fails the run with the file, key and field: a
 * listing with holes would plan against a bucket that is not there.
 */
public final class InventoryListing {
  private InventoryListing() {}

  /**
   * The report's lines under {@code prefix}: one row per live key (the object a listing would show), and per
   * partition one row without a key that counts its noncurrent versions and their bytes (pipeline/README.md, "The cost
   * of a run"), so that one reading of the report gives both ({@link #objects}, {@link #noncurrentVersions}).
   */
  public static Dataset<InventoryObjectRow> read(SparkSession spark, InventoryManifest manifest, String scheme,
      ExportPrefix prefix) {
    List<String> files = manifest.fileUris(scheme);
    if (files.isEmpty()) {
      return spark.emptyDataset(InventoryObjectRow.ENCODER);
    }
    String[] paths = files.toArray(String[]::new);
    Dataset<Row> lines = switch (manifest.format()) {
      case CSV -> {
        List<StructField> fields = new ArrayList<>();
        for (String column : manifest.columns()) {
          fields.add(DataTypes.createStructField(column, DataTypes.StringType, true));
        }
        yield spark.read().schema(new StructType(fields.toArray(StructField[]::new)))
            .option("header", "false").option("mode", "FAILFAST").csv(paths);
      }
      case ORC -> spark.read().orc(paths);
      case PARQUET -> spark.read().parquet(paths);
    };
    List<String> present = List.of(lines.columns());
    Column[] selected = new Column[] {
        input_file_name().as("file"), col("key"), col("size"), col("last_modified_date"), col("e_tag"),
        optional(present, "is_latest"), optional(present, "is_delete_marker"), optional(present, "storage_class")};
    return lines.select(selected)
        .mapPartitions(new ToObjects(manifest.format(), prefix), InventoryObjectRow.ENCODER);
  }

  /** The live keys of {@link #read}'s rows, as a listing would show them. */
  public static Dataset<ObjectRow> objects(Dataset<InventoryObjectRow> read) {
    return read.filter(col("key").isNotNull())
        .select(col("key"), col("etag"), col("lastModified"), col("size"), col("storageClass")).as(ObjectRow.ENCODER);
  }

  /**
   * The noncurrent versions of {@link #read}'s rows, counted when the report lists every version ({@code is_latest});
   * else not counted, and why.
   */
  public static NoncurrentVersions noncurrentVersions(Dataset<InventoryObjectRow> read, InventoryManifest manifest) {
    if (!manifest.hasVersions()) {
      return NoncurrentVersions.notInReport();
    }
    Row sums = read.filter(col("key").isNull())
        .agg(sum(col("noncurrentVersions")).as("versions"), sum(col("noncurrentBytes")).as("bytes")).first();
    return NoncurrentVersions.counted(sums.isNullAt(0) ? 0 : sums.getLong(0), sums.isNullAt(1) ? 0 : sums.getLong(1),
        "in the S3 Inventory report taken at " + manifest.createdAt());
  }

  private static Column optional(List<String> present, String column) {
    return present.contains(column) ? col(column) : lit(null).cast(DataTypes.StringType).as(column);
  }

  /**
   * A partition's lines to the objects of its live keys under the export prefix, then one row of its noncurrent
   * versions under the prefix (when it has any), as they are read: a partition is never held whole.
   */
  static final class ToObjects implements MapPartitionsFunction<Row, InventoryObjectRow> {
    private static final long serialVersionUID = 1L;
    private final InventoryManifest.Format format;
    private final ExportPrefix prefix;

    ToObjects(InventoryManifest.Format format, ExportPrefix prefix) {
      this.format = requireNonNull(format, "format is null");
      this.prefix = requireNonNull(prefix, "prefix is null");
    }

    @Override
    public Iterator<InventoryObjectRow> call(Iterator<Row> lines) {
      return new Iterator<>() {
        private long versions;
        private long bytes;
        private boolean counted;
        private InventoryObjectRow next;

        @Override
        public boolean hasNext() {
          while (next == null && lines.hasNext()) {
            next = object(lines.next());
          }
          if (next == null && !counted) {
            counted = true;
            if (versions > 0) {
              next = new InventoryObjectRow();
              next.setNoncurrentVersions(versions);
              next.setNoncurrentBytes(bytes);
            }
          }
          return next != null;
        }

        @Override
        public InventoryObjectRow next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          InventoryObjectRow row = next;
          next = null;
          return row;
        }

        /** The line's object when it is a live key under the prefix; a noncurrent version there is counted. */
        private InventoryObjectRow object(Row line) {
          InventoryEntry entry = new InventoryEntry(line.getString(0), format, line.get(1), line.get(2), line.get(3),
              line.get(4), line.get(5), line.get(6));
          if (entry.isNoncurrentVersion() && prefix.contains(entry.decodedKey())) {
            versions++;
            bytes += entry.object().size();
            return null;
          }
          if (!entry.isLive() || !prefix.contains(entry.decodedKey())) {
            return null;
          }
          StoredObject object = entry.object();
          InventoryObjectRow row = new InventoryObjectRow();
          row.setKey(object.key());
          row.setEtag(object.etag());
          row.setLastModified(RowTimes.timestamp(object.lastModified()));
          row.setSize(object.size());
          // The report's StorageClass field, when the inventory was configured with it.
          row.setStorageClass(line.isNullAt(7) ? null : line.get(7).toString());
          return row;
        }
      };
    }
  }
}
