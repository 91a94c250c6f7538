package io.statesweep.spark.restore;

import static java.util.Objects.requireNonNull;

import io.statesweep.restore.Deletion;
import io.statesweep.restore.KeyRestoration;
import io.statesweep.restore.RecordRestore;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.run.StoreAccess;
import io.statesweep.spark.tables.TableSchemas;
import java.io.Serializable;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Each record of a restore in a Spark task ({@link RecordRestore}: its files, then its state file), one row of
 * {@code restorations} per key, with two columns for the restore's own use after them: {@code seq}, the key's place
 * in its record's order, and {@code failed}, whether a request to the store failed.
 */
public final class RestoreTasks implements MapPartitionsFunction<Row, Row>, Serializable {
  private static final long serialVersionUID = 1L;

  /** The rows' columns: those of table restorations, then {@code seq} and {@code failed}. */
  public static final StructType SCHEMA = TableSchemas.RESTORATIONS.structType()
      .add("seq", DataTypes.IntegerType, false)
      .add("failed", DataTypes.BooleanType, false);

  private static final Encoder<Row> ENCODER = Encoders.row(SCHEMA);

  private final StoreAccess access;
  private final String restoreId;
  private final boolean dryRun;

  public RestoreTasks(StoreAccess access, String restoreId, boolean dryRun) {
    this.access = requireNonNull(access, "access is null");
    this.restoreId = requireNonNull(restoreId, "restoreId is null");
    this.dryRun = dryRun;
  }

  /** The records' keys restored (or, in a dry run, looked at), one row each. */
  public Dataset<Row> restore(Dataset<Row> byRecord) {
    return byRecord.mapPartitions(this, ENCODER);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> records) {
    if (!records.hasNext()) {
      return Collections.emptyIterator();
    }
    S3ObjectStore store = access.open();
    RecordRestore restore = new RecordRestore(store, dryRun);
    Iterator<List<Row>> perRecord = new Iterator<>() {
      @Override
      public boolean hasNext() {
        return records.hasNext();
      }

      @Override
      public List<Row> next() {
        return rows(restore, records.next());
      }
    };
    Iterator<Row> rows = flatten(perRecord);
    return access.countedAtEnd(rows, store, row -> row, () -> { });
  }

  private List<Row> rows(RecordRestore restore, Row record) {
    String stateFileKey = record.getString(0);
    String runDate = record.getString(1);
    List<Deletion> deletions = new ArrayList<>();
    for (Row d : record.<Row>getList(2)) {
      deletions.add(new Deletion(d.getAs("run_id"), d.getAs("attempt_id"), stateFileKey, d.getAs("key"),
          d.getAs("role"), d.getAs("delete_marker"), d.getAs("etag"), instant(d, "deleted_at"), d.getAs("restored_by"),
          d.getAs("restored_version"), instant(d, "sent_after"), instant(d, "sent_before")));
    }
    List<Row> rows = new ArrayList<>();
    int seq = 0;
    for (KeyRestoration done : restore.restore(deletions)) {
      Deletion deletion = done.deletion();
      rows.add(RowFactory.create(restoreId, deletion.runId(), runDate, deletion.attemptId(), stateFileKey,
          deletion.key(), deletion.role(), deletion.deleteMarker(), done.versionMadeCurrent(), done.status().label(),
          done.detail(), Timestamp.from(Instant.now()), seq++, done.failed()));
    }
    return rows;
  }

  private static Instant instant(Row row, String field) {
    Timestamp time = row.getAs(field);
    return time == null ? null : time.toInstant();
  }

  private static Iterator<Row> flatten(Iterator<List<Row>> lists) {
    return new Iterator<>() {
      private Iterator<Row> current = Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext() && lists.hasNext()) {
          current = lists.next().iterator();
        }
        return current.hasNext();
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        return current.next();
      }
    };
  }
}
