package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** One listing task: a prefix and whether to list it recursively. A Spark bean row ({@link #ENCODER}). */
public final class ListingTaskRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ListingTaskRow> ENCODER = Encoders.bean(ListingTaskRow.class);

  private String prefix;
  private String depth;

  public ListingTaskRow() {}

  public String getPrefix() {
    return prefix;
  }

  public void setPrefix(String prefix) {
    this.prefix = prefix;
  }

  public String getDepth() {
    return depth;
  }

  public void setDepth(String depth) {
    this.depth = depth;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ListingTaskRow that)) {
      return false;
    }
    return Objects.equals(prefix, that.prefix) && Objects.equals(depth, that.depth);
  }

  @Override
  public int hashCode() {
    return Objects.hash(prefix, depth);
  }

  @Override
  public String toString() {
    return "ListingTaskRow{" + "prefix=" + prefix + ", " + "depth=" + depth + "}";
  }
}
