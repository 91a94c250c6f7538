package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.LogLine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * An action's per-key lines on their way out (pipeline/README.md, "The action API"): each goes to the action's sink as
 * it is produced, and the result keeps only the first {@link LogLine#RESULT_SAMPLE} of them and how many of each kind
 * there were, so the driver's memory does not grow with the lines.
 */
public final class LineStream implements Consumer<LogLine> {
  /**
   * Rows of a table that reach the driver at once when lines are read from it: {@link #inOrder} reads one range
   * partition of at most about this many rows at a time.
   */
  static final long ROWS_PER_PARTITION = 50_000;

  private final Consumer<LogLine> sink;
  private final List<LogLine> sample = new ArrayList<>();
  private final Map<LogLine.Kind, Long> counts = new EnumMap<>(LogLine.Kind.class);

  public LineStream(Consumer<LogLine> sink) {
    this.sink = requireNonNull(sink, "sink is null");
  }

  @Override
  public void accept(LogLine line) {
    requireNonNull(line, "line is null");
    sink.accept(line);
    counts.merge(line.kind(), 1L, Long::sum);
    if (sample.size() < LogLine.RESULT_SAMPLE) {
      sample.add(line);
    }
  }

  /** The first {@link LogLine#RESULT_SAMPLE} lines. */
  public List<LogLine> sample() {
    return List.copyOf(sample);
  }

  /** How many lines of each kind went to the sink (kinds without lines are absent). */
  public Map<LogLine.Kind, Long> counts() {
    return Collections.unmodifiableMap(new EnumMap<>(counts));
  }

  /**
   * The rows of {@code rowsDS} sorted by {@code order}, brought to the driver one range partition at a time (about
   * {@link #ROWS_PER_PARTITION} rows each, by {@code rows}, how many there are): a plain sort would let the
   * session's shuffle partitions (or adaptive execution's coalescing) decide how much arrives at once.
   */
  public static Iterator<Row> inOrder(Dataset<Row> rowsDS, long rows, Column... order) {
    if (rows == 0) {
      // Counted exactly from the same rows (the plan's counts): no job to find none.
      return Collections.emptyIterator();
    }
    int partitions = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (rows + ROWS_PER_PARTITION - 1) / ROWS_PER_PARTITION));
    return rowsDS.repartitionByRange(partitions, order).sortWithinPartitions(order).toLocalIterator();
  }
}
