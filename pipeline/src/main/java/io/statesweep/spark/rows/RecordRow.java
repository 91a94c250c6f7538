package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** A record with everything its plan needs: its state file, the keys it lists and the newest file it owns. A Spark bean row ({@link #ENCODER}). */
public final class RecordRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<RecordRow> ENCODER = Encoders.bean(RecordRow.class);

  private StateFileRow state;
  private java.util.List<ListedKeyRow> listed;
  private ObjectRow newest;

  public RecordRow() {}

  public StateFileRow getState() {
    return state;
  }

  public void setState(StateFileRow state) {
    this.state = state;
  }

  public java.util.List<ListedKeyRow> getListed() {
    return listed;
  }

  public void setListed(java.util.List<ListedKeyRow> listed) {
    this.listed = listed;
  }

  public ObjectRow getNewest() {
    return newest;
  }

  public void setNewest(ObjectRow newest) {
    this.newest = newest;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof RecordRow that)) {
      return false;
    }
    return Objects.equals(state, that.state) && Objects.equals(listed, that.listed) && Objects.equals(newest, that.newest);
  }

  @Override
  public int hashCode() {
    return Objects.hash(state, listed, newest);
  }

  @Override
  public String toString() {
    return "RecordRow{" + "state=" + state + ", " + "listed=" + listed + ", " + "newest=" + newest + "}";
  }
}
