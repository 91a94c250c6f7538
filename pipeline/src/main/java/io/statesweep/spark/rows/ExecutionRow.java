package io.statesweep.spark.rows;

import java.util.Objects;

/**
 * One row of table executions: what one attempt did with one record of a plan. A Spark bean row whose table
 * columns, encoder and comments are declared in {@link io.statesweep.spark.tables.TableSchemas#EXECUTIONS}.
 */
public final class ExecutionRow extends RunFields {
  private static final long serialVersionUID = 1L;

  private String attemptId;
  private String stateFileKey;
  private String action;
  private String outcome;
  private String message;
  private long childKeysDeleted;
  private boolean stateFileDeleted;
  private int keysAlreadyGone;
  private java.util.List<KeyFailureRow> failures;
  private java.util.List<String> deletedKeys;
  private java.sql.Timestamp startedAt;
  private java.sql.Timestamp endedAt;
  private java.util.List<DeletedKeyRow> deleted;
  private String recordedFrom;
  private int taskAttempts;

  public ExecutionRow() {}

  public String getAttemptId() {
    return attemptId;
  }

  public void setAttemptId(String attemptId) {
    this.attemptId = attemptId;
  }

  public String getStateFileKey() {
    return stateFileKey;
  }

  public void setStateFileKey(String stateFileKey) {
    this.stateFileKey = stateFileKey;
  }

  public String getAction() {
    return action;
  }

  public void setAction(String action) {
    this.action = action;
  }

  public String getOutcome() {
    return outcome;
  }

  public void setOutcome(String outcome) {
    this.outcome = outcome;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public long getChildKeysDeleted() {
    return childKeysDeleted;
  }

  public void setChildKeysDeleted(long childKeysDeleted) {
    this.childKeysDeleted = childKeysDeleted;
  }

  public boolean isStateFileDeleted() {
    return stateFileDeleted;
  }

  public void setStateFileDeleted(boolean stateFileDeleted) {
    this.stateFileDeleted = stateFileDeleted;
  }

  public int getKeysAlreadyGone() {
    return keysAlreadyGone;
  }

  public void setKeysAlreadyGone(int keysAlreadyGone) {
    this.keysAlreadyGone = keysAlreadyGone;
  }

  public java.util.List<String> getDeletedKeys() {
    return deletedKeys;
  }

  public void setDeletedKeys(java.util.List<String> deletedKeys) {
    this.deletedKeys = deletedKeys;
  }

  public java.util.List<KeyFailureRow> getFailures() {
    return failures;
  }

  public void setFailures(java.util.List<KeyFailureRow> failures) {
    this.failures = failures;
  }

  public java.sql.Timestamp getStartedAt() {
    return startedAt;
  }

  public void setStartedAt(java.sql.Timestamp startedAt) {
    this.startedAt = startedAt;
  }

  public java.sql.Timestamp getEndedAt() {
    return endedAt;
  }

  public void setEndedAt(java.sql.Timestamp endedAt) {
    this.endedAt = endedAt;
  }

  public java.util.List<DeletedKeyRow> getDeleted() {
    return deleted;
  }

  public void setDeleted(java.util.List<DeletedKeyRow> deleted) {
    this.deleted = deleted;
  }

  public String getRecordedFrom() {
    return recordedFrom;
  }

  public void setRecordedFrom(String recordedFrom) {
    this.recordedFrom = recordedFrom;
  }

  public int getTaskAttempts() {
    return taskAttempts;
  }

  public void setTaskAttempts(int taskAttempts) {
    this.taskAttempts = taskAttempts;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ExecutionRow that)) {
      return false;
    }
    return Objects.equals(getRunId(), that.getRunId()) && Objects.equals(getRunDate(), that.getRunDate()) && Objects.equals(attemptId, that.attemptId) && Objects.equals(stateFileKey, that.stateFileKey) && Objects.equals(action, that.action) && Objects.equals(outcome, that.outcome) && Objects.equals(message, that.message) && childKeysDeleted == that.childKeysDeleted && stateFileDeleted == that.stateFileDeleted && keysAlreadyGone == that.keysAlreadyGone && Objects.equals(failures, that.failures) && Objects.equals(deletedKeys, that.deletedKeys) && Objects.equals(startedAt, that.startedAt) && Objects.equals(endedAt, that.endedAt) && Objects.equals(deleted, that.deleted) && Objects.equals(recordedFrom, that.recordedFrom) && taskAttempts == that.taskAttempts;
  }

  @Override
  public int hashCode() {
    return Objects.hash(getRunId(), getRunDate(), attemptId, stateFileKey, action, outcome, message, childKeysDeleted, stateFileDeleted, keysAlreadyGone, failures, deletedKeys, startedAt, endedAt, deleted, recordedFrom, taskAttempts);
  }

  @Override
  public String toString() {
    return "ExecutionRow{" + "runId=" + getRunId() + ", " + "runDate=" + getRunDate() + ", " + "attemptId=" + attemptId + ", " + "stateFileKey=" + stateFileKey + ", " + "action=" + action + ", " + "outcome=" + outcome + ", " + "message=" + message + ", " + "childKeysDeleted=" + childKeysDeleted + ", " + "stateFileDeleted=" + stateFileDeleted + ", " + "keysAlreadyGone=" + keysAlreadyGone + ", " + "failures=" + failures + ", " + "deletedKeys=" + deletedKeys + ", " + "startedAt=" + startedAt + ", " + "endedAt=" + endedAt + ", " + "deleted=" + deleted + ", " + "recordedFrom=" + recordedFrom + ", " + "taskAttempts=" + taskAttempts + "}";
  }
}
