package io.statesweep.spark.tables;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import org.apache.spark.sql.types.DataType;

/**
 * One column of a statesweep table (pipeline/README.md, "Tables"): its snake_case name, its comment (what {@code
 * DESCRIBE} and catalog browsers show), and its Spark type where no row bean or query gives the table its types.
 *
 * @param type null where the table's row bean ({@link TableSchema#rowClass()}) or the query that writes it gives the
 *     type
 * @param nullable whether rows may hold null (a table itself makes every column nullable: {@link TableDocs})
 */
public record TableColumn(String name, String comment, DataType type, boolean nullable) {
  public TableColumn {
    requireNonNull(name, "name is null");
    if (!name.matches("[a-z][a-z0-9_]*")) {
      throw new IllegalArgumentException("column name '" + name + "' is not snake_case");
    }
    if (comment == null || comment.isBlank()) {
      throw new IllegalArgumentException("column " + name + " has no comment");
    }
  }

  /** A column whose type comes from the table's row bean or query. */
  public static TableColumn column(String name, String comment) {
    return new TableColumn(name, comment, null, true);
  }

  /** This column of {@code type}, never null in the rows written. */
  public TableColumn notNull(DataType newType) {
    return new TableColumn(name, comment, requireNonNull(newType, "type is null"), false);
  }

  /** This column of {@code type}, null where the row has no value. */
  public TableColumn nullable(DataType newType) {
    return new TableColumn(name, comment, requireNonNull(newType, "type is null"), true);
  }

  /** The bean property of a snake_case column: {@code state_file_key} is {@code stateFileKey}. */
  public static String property(String column) {
    StringBuilder property = new StringBuilder();
    boolean upper = false;
    for (char c : column.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        property.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return property.toString();
  }

  /** The snake_case column of a camelCase bean property: {@code stateFileKey} is {@code state_file_key}. */
  public static String ofProperty(String property) {
    return property.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }
}
