package io.statesweep.spark.tables;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;

import io.statesweep.api.Tables;
import io.delta.tables.DeltaTable;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import scala.Tuple2;

/**
 * The digest of a plan's rows, which {@code approve} records and {@code execute --run-id} requires
 * unchanged: SHA-256 (hex) over every {@code deletion_plan} row of the run ({@code run_date} and
 * {@code run_id}), so that a row appended, edited or deleted after the approval is seen.
 *
 * <p>How it is made (version 1):
 * <ol>
 *   <li>Each row is serialized canonically: every column of the table, in column-name order, as its
 *       name and a typed value; a null column is left out, so a column that a later version adds (null
 *       in older rows) leaves older digests as they were, while a value set to or from null still
 *       changes the digest. Strings are UTF-8 with their length; integers of any width are 64-bit;
 *       timestamps are microseconds since the epoch (UTC, not the session's time zone); arrays keep
 *       their order (the {@code deletes} array, state file last, and each delete's key, etag,
 *       last_modified, size and role, as a struct by the same rule); map entries are sorted by key
 *       (the {@code ids} map). Each row's serialization is hashed with SHA-256.
 *   <li>The rows are sorted by {@code state_file_key}, then by their hash (a canonical order for rows
 *       of the same state file), on the executors.
 *   <li>The digest is SHA-256 over {@code "statesweep deletion_plan digest v1\n"} followed by the row
 *       hashes in that order, read on the driver one partition at a time ({@code toLocalIterator}), so
 *       millions of rows are never held there at once.
 * </ol>
 * The row hashes are chained in order rather than summed or XOR-ed: a sum of hashes can be forged by
 * choosing rows (Wagner's generalized birthday attack), a hash over a sorted sequence cannot.
 */
public final class PlanDigest {
  static final String VERSION_LINE = "statesweep deletion_plan digest v1\n";

  private PlanDigest() {}

  /** The digest of a run's rows in one version of the table, and how many rows it covers. */
  public record Result(String digest, long rows, long tableVersion) {
    public Result {
      requireNonNull(digest, "digest is null");
    }
  }

  /** The current version of {@code deletion_plan}: approve and execute read the plan as of one version. */
  public static long currentVersion(SparkSession spark, Tables tables) {
    return DeltaTable.forPath(spark, tables.deletionPlan()).history(1).select("version").first().getLong(0);
  }

  /** The run's rows of {@code deletion_plan} as of {@code version}. */
  public static Dataset<Row> planRows(SparkSession spark, Tables tables, long version, String runDate, String runId) {
    return spark.read().format("delta").option("versionAsOf", version).load(tables.deletionPlan())
        .filter(col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId)));
  }

  public static Result of(SparkSession spark, Tables tables, long version, String runDate, String runId) {
    Dataset<Row> rows = planRows(spark, tables, version, runDate, runId);
    Dataset<Tuple2<String, byte[]>> hashesDS = rows.map(new RowHash(rows.schema()),
        Encoders.tuple(Encoders.STRING(), Encoders.BINARY()));
    MessageDigest digest = sha256();
    digest.update(VERSION_LINE.getBytes(StandardCharsets.UTF_8));
    long count = 0;
    Iterator<Tuple2<String, byte[]>> sorted = hashesDS.sort(col("_1"), col("_2")).toLocalIterator();
    while (sorted.hasNext()) {
      digest.update(sorted.next()._2());
      count++;
    }
    return new Result(HexFormat.of().formatHex(digest.digest()), count, version);
  }

  /** A row to its state file key and the SHA-256 of its canonical serialization. */
  static final class RowHash implements MapFunction<Row, Tuple2<String, byte[]>> {
    private static final long serialVersionUID = 1L;
    private final StructType schema;
    private final int stateFileKey;

    RowHash(StructType schema) {
      this.schema = requireNonNull(schema, "schema is null");
      this.stateFileKey = schema.fieldIndex("state_file_key");
    }

    @Override
    public Tuple2<String, byte[]> call(Row row) {
      return new Tuple2<>(row.isNullAt(stateFileKey) ? null : row.getString(stateFileKey),
          sha256().digest(serialize(schema, row)));
    }
  }

  /** The canonical serialization of a row (see the class comment). */
  static byte[] serialize(StructType schema, Row row) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      write(out, schema, row);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void write(DataOutputStream out, DataType type, Object value) throws IOException {
    if (value == null) {
      out.writeByte('N');
    } else if (type instanceof StringType) {
      out.writeByte('S');
      writeBytes(out, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (type instanceof LongType || type instanceof IntegerType || type instanceof ShortType
        || type instanceof ByteType) {
      out.writeByte('L');
      out.writeLong(((Number) value).longValue());
    } else if (type instanceof BooleanType) {
      out.writeByte('B');
      out.writeBoolean((Boolean) value);
    } else if (type instanceof DoubleType || type instanceof FloatType) {
      out.writeByte('F');
      out.writeLong(Double.doubleToLongBits(((Number) value).doubleValue()));
    } else if (type instanceof DecimalType) {
      out.writeByte('M');
      writeBytes(out, ((BigDecimal) value).stripTrailingZeros().toPlainString().getBytes(StandardCharsets.UTF_8));
    } else if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      out.writeByte('T');
      out.writeLong(micros(value));
    } else if (type instanceof DateType) {
      out.writeByte('D');
      out.writeLong(value instanceof LocalDate date ? date.toEpochDay()
          : ((java.sql.Date) value).toLocalDate().toEpochDay());
    } else if (type instanceof BinaryType) {
      out.writeByte('Y');
      writeBytes(out, (byte[]) value);
    } else if (type instanceof ArrayType array) {
      List<Object> elements = list(value);
      out.writeByte('A');
      out.writeInt(elements.size());
      for (Object element : elements) {
        write(out, array.elementType(), element);
      }
    } else if (type instanceof MapType map) {
      List<byte[][]> entries = new ArrayList<>();
      for (Map.Entry<Object, Object> entry : javaMap(value).entrySet()) {
        entries.add(new byte[][] {encode(map.keyType(), entry.getKey()), encode(map.valueType(), entry.getValue())});
      }
      entries.sort((left, right) -> Arrays.compareUnsigned(left[0], right[0]));
      out.writeByte('P');
      out.writeInt(entries.size());
      for (byte[][] entry : entries) {
        out.write(entry[0]);
        out.write(entry[1]);
      }
    } else if (type instanceof StructType struct) {
      Row row = (Row) value;
      StructField[] fields = struct.fields().clone();
      Integer[] order = new Integer[fields.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (left, right) -> fields[left].name().compareTo(fields[right].name()));
      List<Integer> present = new ArrayList<>();
      for (int i : order) {
        if (!row.isNullAt(i)) {
          present.add(i);
        }
      }
      out.writeByte('R');
      out.writeInt(present.size());
      for (int i : present) {
        writeBytes(out, fields[i].name().getBytes(StandardCharsets.UTF_8));
        write(out, fields[i].dataType(), row.get(i));
      }
    } else {
      throw new IllegalStateException("Cannot digest a column of type " + type.simpleString());
    }
  }

  private static byte[] encode(DataType type, Object value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      write(out, type, value);
    }
    return bytes.toByteArray();
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static long micros(Object value) {
    Instant instant;
    if (value instanceof Timestamp timestamp) {
      instant = timestamp.toInstant();
    } else if (value instanceof Instant given) {
      instant = given;
    } else if (value instanceof LocalDateTime local) {
      instant = local.toInstant(ZoneOffset.UTC);
    } else {
      throw new IllegalStateException("Cannot digest a timestamp of class " + value.getClass().getName());
    }
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object value) {
    if (value instanceof List<?> list) {
      return (List<Object>) list;
    }
    return scala.collection.JavaConverters.seqAsJavaListConverter((scala.collection.Seq<Object>) value).asJava();
  }

  @SuppressWarnings("unchecked")
  private static Map<Object, Object> javaMap(Object value) {
    if (value instanceof Map<?, ?> map) {
      return (Map<Object, Object>) map;
    }
    return scala.collection.JavaConverters.mapAsJavaMapConverter((scala.collection.Map<Object, Object>) value).asJava();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
