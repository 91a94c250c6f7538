package io.statesweep.spark.rows;

import java.sql.Timestamp;
import java.time.Instant;

/** An instant as the bean rows hold it (Spark's {@code timestamp}); null stays null. */
public final class RowTimes {
  private RowTimes() {}

  public static Timestamp timestamp(Instant instant) {
    return instant == null ? null : Timestamp.from(instant);
  }
}
