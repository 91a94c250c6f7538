package io.statesweep.spark.rows;

import java.io.Serializable;

/**
 * The fields every row of a run's tables starts with: the run's id and its date, the partition (pipeline/README.md,
 * "Tables"). Spark's bean encoder reads inherited properties as a row's own; the order of a table's columns is its
 * declaration's, not the bean's.
 */
public abstract class RunFields implements Serializable {
  private static final long serialVersionUID = 1L;

  private String runId;
  private String runDate;

  public String getRunId() {
    return runId;
  }

  public void setRunId(String runId) {
    this.runId = runId;
  }

  public String getRunDate() {
    return runDate;
  }

  public void setRunDate(String runDate) {
    this.runDate = runDate;
  }
}
