package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * What one task attempt did with one record, as read from an execute's ledger, on its way to the record's row of
 * {@code executions}: the outcome (as the ledger's JSON), whether it was found by looking at the keys of an intent,
 * and the ledger objects it came from (removed once {@code executions} holds the row). A Spark bean row
 * ({@link #ENCODER}).
 */
public final class LedgerTryRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<LedgerTryRow> ENCODER = Encoders.bean(LedgerTryRow.class);

  private String stateFileKey;
  private long taskAttempt;
  private boolean fromIntent;
  private String outcome;
  private java.util.List<String> sources;

  public LedgerTryRow() {}

  public String getStateFileKey() {
    return stateFileKey;
  }

  public void setStateFileKey(String stateFileKey) {
    this.stateFileKey = stateFileKey;
  }

  public long getTaskAttempt() {
    return taskAttempt;
  }

  public void setTaskAttempt(long taskAttempt) {
    this.taskAttempt = taskAttempt;
  }

  public boolean isFromIntent() {
    return fromIntent;
  }

  public void setFromIntent(boolean fromIntent) {
    this.fromIntent = fromIntent;
  }

  public String getOutcome() {
    return outcome;
  }

  public void setOutcome(String outcome) {
    this.outcome = outcome;
  }

  public java.util.List<String> getSources() {
    return sources;
  }

  public void setSources(java.util.List<String> sources) {
    this.sources = sources;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof LedgerTryRow that)) {
      return false;
    }
    return taskAttempt == that.taskAttempt && fromIntent == that.fromIntent
        && Objects.equals(stateFileKey, that.stateFileKey) && Objects.equals(outcome, that.outcome)
        && Objects.equals(sources, that.sources);
  }

  @Override
  public int hashCode() {
    return Objects.hash(stateFileKey, taskAttempt, fromIntent, outcome, sources);
  }

  @Override
  public String toString() {
    return "LedgerTryRow{stateFileKey=" + stateFileKey + ", taskAttempt=" + taskAttempt + ", fromIntent=" + fromIntent
        + ", outcome=" + outcome + ", sources=" + sources + "}";
  }
}
