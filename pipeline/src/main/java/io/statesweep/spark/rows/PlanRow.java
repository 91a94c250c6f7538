package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** One row of table deletion_plan: the decision for one record of one run. A Spark bean row ({@link #ENCODER}). */
public final class PlanRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<PlanRow> ENCODER = Encoders.bean(PlanRow.class);

  private String runId;
  private String runDate;
  private String stateFileKey;
  private String recordType;
  private String kind;
  private java.util.Map<String, String> ids;
  private String action;
  private String reason;
  private java.sql.Timestamp dueAt;
  private String stateEtag;
  private java.sql.Timestamp stateLastModified;
  private java.util.List<DeleteRow> deletes;
  private long keysToDelete;
  private long childKeysToDelete;
  private long bytesToDelete;
  private int missingKeys;
  private java.util.List<String> missingFiles;
  private int keptKeys;
  private int graceDays;
  private String graceRule;
  private java.sql.Timestamp plannedAt;

  public PlanRow() {}

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

  public String getStateFileKey() {
    return stateFileKey;
  }

  public void setStateFileKey(String stateFileKey) {
    this.stateFileKey = stateFileKey;
  }

  public String getRecordType() {
    return recordType;
  }

  public void setRecordType(String recordType) {
    this.recordType = recordType;
  }

  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  public java.util.Map<String, String> getIds() {
    return ids;
  }

  public void setIds(java.util.Map<String, String> ids) {
    this.ids = ids;
  }

  public String getAction() {
    return action;
  }

  public void setAction(String action) {
    this.action = action;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public java.sql.Timestamp getDueAt() {
    return dueAt;
  }

  public void setDueAt(java.sql.Timestamp dueAt) {
    this.dueAt = dueAt;
  }

  public String getStateEtag() {
    return stateEtag;
  }

  public void setStateEtag(String stateEtag) {
    this.stateEtag = stateEtag;
  }

  public java.sql.Timestamp getStateLastModified() {
    return stateLastModified;
  }

  public void setStateLastModified(java.sql.Timestamp stateLastModified) {
    this.stateLastModified = stateLastModified;
  }

  public java.util.List<DeleteRow> getDeletes() {
    return deletes;
  }

  public void setDeletes(java.util.List<DeleteRow> deletes) {
    this.deletes = deletes;
  }

  public long getKeysToDelete() {
    return keysToDelete;
  }

  public void setKeysToDelete(long keysToDelete) {
    this.keysToDelete = keysToDelete;
  }

  public long getChildKeysToDelete() {
    return childKeysToDelete;
  }

  public void setChildKeysToDelete(long childKeysToDelete) {
    this.childKeysToDelete = childKeysToDelete;
  }

  public long getBytesToDelete() {
    return bytesToDelete;
  }

  public void setBytesToDelete(long bytesToDelete) {
    this.bytesToDelete = bytesToDelete;
  }

  public int getMissingKeys() {
    return missingKeys;
  }

  public void setMissingKeys(int missingKeys) {
    this.missingKeys = missingKeys;
  }

  /** A live record's files that the bucket lacks (spec section 4, {@code missing <key>}). */
  public java.util.List<String> getMissingFiles() {
    return missingFiles;
  }

  public void setMissingFiles(java.util.List<String> missingFiles) {
    this.missingFiles = missingFiles;
  }

  public int getKeptKeys() {
    return keptKeys;
  }

  public void setKeptKeys(int keptKeys) {
    this.keptKeys = keptKeys;
  }

  public String getGraceRule() {
    return graceRule;
  }

  public void setGraceRule(String graceRule) {
    this.graceRule = graceRule;
  }

  public int getGraceDays() {
    return graceDays;
  }

  public void setGraceDays(int graceDays) {
    this.graceDays = graceDays;
  }

  public java.sql.Timestamp getPlannedAt() {
    return plannedAt;
  }

  public void setPlannedAt(java.sql.Timestamp plannedAt) {
    this.plannedAt = plannedAt;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof PlanRow that)) {
      return false;
    }
    return Objects.equals(runId, that.runId) && Objects.equals(runDate, that.runDate) && Objects.equals(stateFileKey, that.stateFileKey) && Objects.equals(recordType, that.recordType) && Objects.equals(kind, that.kind) && Objects.equals(ids, that.ids) && Objects.equals(action, that.action) && Objects.equals(reason, that.reason) && Objects.equals(dueAt, that.dueAt) && Objects.equals(stateEtag, that.stateEtag) && Objects.equals(stateLastModified, that.stateLastModified) && Objects.equals(deletes, that.deletes) && keysToDelete == that.keysToDelete && childKeysToDelete == that.childKeysToDelete && bytesToDelete == that.bytesToDelete && missingKeys == that.missingKeys && Objects.equals(missingFiles, that.missingFiles) && keptKeys == that.keptKeys && graceDays == that.graceDays && Objects.equals(plannedAt, that.plannedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(runId, runDate, stateFileKey, recordType, kind, ids, action, reason, dueAt, stateEtag, stateLastModified, deletes, keysToDelete, childKeysToDelete, bytesToDelete, missingKeys, missingFiles, keptKeys, graceDays, plannedAt);
  }

  @Override
  public String toString() {
    return "PlanRow{" + "runId=" + runId + ", " + "runDate=" + runDate + ", " + "stateFileKey=" + stateFileKey + ", " + "recordType=" + recordType + ", " + "kind=" + kind + ", " + "ids=" + ids + ", " + "action=" + action + ", " + "reason=" + reason + ", " + "dueAt=" + dueAt + ", " + "stateEtag=" + stateEtag + ", " + "stateLastModified=" + stateLastModified + ", " + "deletes=" + deletes + ", " + "keysToDelete=" + keysToDelete + ", " + "childKeysToDelete=" + childKeysToDelete + ", " + "bytesToDelete=" + bytesToDelete + ", " + "missingKeys=" + missingKeys + ", " + "missingFiles=" + missingFiles + ", " + "keptKeys=" + keptKeys + ", " + "graceDays=" + graceDays + ", " + "plannedAt=" + plannedAt + "}";
  }
}
