package io.statesweep.spark.plan;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.input_file_name;
import static org.apache.spark.sql.functions.lit;

import io.statesweep.layout.ExportPrefix;
import io.statesweep.scan.InventoryEntry;
import io.statesweep.scan.InventoryManifest;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.RowTimes;
import io.statesweep.store.StoredObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
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

  public static Dataset<ObjectRow> objects(SparkSession spark, InventoryManifest manifest, String scheme,
      ExportPrefix prefix) {
    List<String> files = manifest.fileUris(scheme);
    if (files.isEmpty()) {
      return spark.emptyDataset(ObjectRow.ENCODER);
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
        .flatMap(new ToObjects(manifest.format(), prefix), ObjectRow.ENCODER);
  }

  private static Column optional(List<String> present, String column) {
    return present.contains(column) ? col(column) : lit(null).cast(DataTypes.StringType).as(column);
  }

  /** A line to its object when it is a live key under the export prefix. */
  static final class ToObjects implements FlatMapFunction<Row, ObjectRow> {
    private static final long serialVersionUID = 1L;
    private final InventoryManifest.Format format;
    private final ExportPrefix prefix;

    ToObjects(InventoryManifest.Format format, ExportPrefix prefix) {
      this.format = requireNonNull(format, "format is null");
      this.prefix = requireNonNull(prefix, "prefix is null");
    }

    @Override
    public Iterator<ObjectRow> call(Row line) {
      InventoryEntry entry = new InventoryEntry(line.getString(0), format, line.get(1), line.get(2), line.get(3),
          line.get(4), line.get(5), line.get(6));
      if (!entry.isLive() || !prefix.contains(entry.decodedKey())) {
        return Collections.emptyIterator();
      }
      StoredObject object = entry.object();
      ObjectRow row = new ObjectRow();
      row.setKey(object.key());
      row.setEtag(object.etag());
      row.setLastModified(RowTimes.timestamp(object.lastModified()));
      row.setSize(object.size());
      // The report's StorageClass field, when the inventory was configured with it.
      row.setStorageClass(line.isNullAt(7) ? null : line.get(7).toString());
      return List.of(row).iterator();
    }
  }
}
