package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** One listing task: a prefix, where to start, which next characters it covers, and how deep. A Spark bean row ({@link #ENCODER}). */
public final class ListingTaskRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ListingTaskRow> ENCODER = Encoders.bean(ListingTaskRow.class);

  private String prefix;
  private String startAfter;
  private String nextChars;
  private String depth;

  public ListingTaskRow() {}

  public String getPrefix() {
    return prefix;
  }

  public void setPrefix(String prefix) {
    this.prefix = prefix;
  }

  public String getStartAfter() {
    return startAfter;
  }

  public void setStartAfter(String startAfter) {
    this.startAfter = startAfter;
  }

  public String getNextChars() {
    return nextChars;
  }

  public void setNextChars(String nextChars) {
    this.nextChars = nextChars;
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
    return Objects.equals(prefix, that.prefix) && Objects.equals(startAfter, that.startAfter) && Objects.equals(nextChars, that.nextChars) && Objects.equals(depth, that.depth);
  }

  @Override
  public int hashCode() {
    return Objects.hash(prefix, startAfter, nextChars, depth);
  }

  @Override
  public String toString() {
    return "ListingTaskRow{" + "prefix=" + prefix + ", " + "startAfter=" + startAfter + ", " + "nextChars=" + nextChars + ", " + "depth=" + depth + "}";
  }
}
