package io.statesweep.testing;

import com.holdenkarau.spark.testing.JavaDatasetSuiteBase;
import java.util.Arrays;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * Dataset comparisons of spark-testing-base ({@link JavaDatasetSuiteBase#assertDatasetEquals}: the same
 * schema, the same number of rows, and row by row equal, the unequal rows named), for tests that compare
 * two plans or two tables. Its comparison is by position, so both sides are sorted by every column first:
 * the rows must be orderable (no map columns; arrays and structs are fine, their order inside a row counts).
 */
public final class DatasetAssertions {
  private static final JavaDatasetSuiteBase DATASETS = new JavaDatasetSuiteBase();

  private DatasetAssertions() {}

  /** {@code actual} holds exactly the rows of {@code expected}, in any order; {@code what} names the case. */
  public static void assertSameRows(String what, Dataset<Row> expected, Dataset<Row> actual) {
    try {
      DATASETS.assertDatasetEquals(sorted(expected), sorted(actual));
    } catch (AssertionError | RuntimeException e) {
      // scalatest's TestFailedException is a RuntimeException; say which comparison failed.
      throw new AssertionError(what + ": the rows differ from the expected rows: " + e.getMessage(), e);
    }
  }

  private static Dataset<Row> sorted(Dataset<Row> rows) {
    Column[] columns = Arrays.stream(rows.columns()).map(functions::col).toArray(Column[]::new);
    return rows.orderBy(columns);
  }
}
