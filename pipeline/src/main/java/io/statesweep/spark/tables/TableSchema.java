package io.statesweep.spark.tables;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The declaration of one statesweep table (pipeline/README.md, "Tables"): its name, its comment, its columns in order,
 * each with its comment, and the row bean its rows are made of, where it has one. The column order of the writes, the
 * bean's encoder, the {@code StructType} of a table written from {@link Row}s, and the comments a new table is created
 * with all come from it. {@link TableSchemas} declares the six.
 *
 * @param <T> the row bean, or {@link Row} for a table written from rows
 */
public final class TableSchema<T> {
  private final String name;
  private final String comment;
  private final Class<T> rowClass;
  private final Encoder<T> encoder;
  private final Map<String, TableColumn> columns = new LinkedHashMap<>();

  private TableSchema(String name, String comment, Class<T> rowClass, Encoder<T> encoder, TableColumn... columns) {
    this.name = requireNonNull(name, "name is null");
    if (comment == null || comment.isBlank()) {
      throw new IllegalArgumentException("table " + name + " has no comment");
    }
    this.comment = comment;
    this.rowClass = rowClass;
    this.encoder = encoder;
    for (TableColumn column : columns) {
      if (this.columns.put(column.name(), column) != null) {
        throw new IllegalArgumentException("table " + name + " declares column " + column.name() + " twice");
      }
    }
  }

  /** A table whose rows are {@code rowClass} beans: its types are the bean's, its columns the bean's properties. */
  static <T> TableSchema<T> ofBean(String name, Class<T> rowClass, String comment, TableColumn... columns) {
    return new TableSchema<>(name, comment, rowClass, Encoders.bean(rowClass), columns);
  }

  /** A table written from {@link Row}s: each column states its type, or the query that writes it gives them. */
  static TableSchema<Row> ofRows(String name, String comment, TableColumn... columns) {
    return new TableSchema<>(name, comment, null, null, columns);
  }

  /** The table's name, as {@link io.statesweep.api.Tables} names it. */
  public String name() {
    return name;
  }

  /** The table's comment. */
  public String comment() {
    return comment;
  }

  /** The row bean; null for a table written from {@link Row}s. */
  public Class<T> rowClass() {
    return rowClass;
  }

  /** The columns in the table's order. */
  public List<TableColumn> columns() {
    return List.copyOf(columns.values());
  }

  /** The columns' names in the table's order. */
  public List<String> columnNames() {
    return List.copyOf(columns.keySet());
  }

  /** The column {@code column}; an {@link IllegalArgumentException} naming the table when it has none. */
  public TableColumn column(String column) {
    TableColumn declared = columns.get(column);
    if (declared == null) {
      throw new IllegalArgumentException("table " + name + " has no column " + column + "; its columns: "
          + columns.keySet());
    }
    return declared;
  }

  /** The Spark encoder of the table's row bean. */
  public Encoder<T> encoder() {
    if (encoder == null) {
      throw new IllegalStateException("table " + name + " has no row bean: its rows are Rows of its structType()");
    }
    return encoder;
  }

  /** The rows' schema, for a table written from {@link Row}s whose every column states its type. */
  public StructType structType() {
    StructField[] fields = new StructField[columns.size()];
    int i = 0;
    for (TableColumn column : columns.values()) {
      if (column.type() == null) {
        throw new IllegalStateException("column " + column.name() + " of table " + name + " declares no type: its"
            + " type comes from " + (rowClass == null ? "the query that writes the table" : rowClass.getName()));
      }
      fields[i++] = new StructField(column.name(), column.type(), column.nullable(),
          org.apache.spark.sql.types.Metadata.empty());
    }
    return new StructType(fields);
  }

  /**
   * {@code schema} with each column's comment, every column nullable; a column this table does not declare is a
   * programming error.
   */
  StructType withComments(StructType schema) {
    StructField[] fields = schema.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      TableColumn column = columns.get(fields[i].name());
      if (column == null) {
        throw new IllegalStateException("column " + fields[i].name() + " of table " + name + " has no comment: it"
            + " is not declared in TableSchemas");
      }
      // Nullable in the table: a NOT NULL column would turn a later version's null into a failed append.
      fields[i] = new StructField(fields[i].name(), fields[i].dataType(), true, fields[i].metadata())
          .withComment(column.comment());
    }
    return new StructType(fields);
  }

  @Override
  public String toString() {
    return "table " + name + " " + columns.keySet();
  }
}
