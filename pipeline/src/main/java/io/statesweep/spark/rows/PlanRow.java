package io.statesweep.spark.rows;

import java.util.Objects;

/**
 * One row of table deletion_plan: the decision for one record of one run. A Spark bean row whose table columns,
 * encoder and comments are declared in {@link io.statesweep.spark.tables.TableSchemas#DELETION_PLAN}.
 * Every field is nullable, numbers included: anyone who can write the table can append a row with nulls, and
 * reading one must never fail the execute ({@link PlanRows} checks what execution uses).
 */
public final class PlanRow extends RecordFields {
  private static final long serialVersionUID = 1L;

  private String stateFileKey;
  private String action;
  private String reason;
  private java.sql.Timestamp dueAt;
  private String stateEtag;
  private java.sql.Timestamp stateLastModified;
  private java.util.List<DeleteRow> deletes;
  private Long keysToDelete;
  private Long childKeysToDelete;
  private Long bytesToDelete;
  private Integer missingKeys;
  private java.util.List<String> missingFiles;
  private Integer keptKeys;
  private Integer graceDays;
  private String graceRule;
  private java.sql.Timestamp plannedAt;

  public PlanRow() {}

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

  public Long getKeysToDelete() {
    return keysToDelete;
  }

  public void setKeysToDelete(Long keysToDelete) {
    this.keysToDelete = keysToDelete;
  }

  public Long getChildKeysToDelete() {
    return childKeysToDelete;
  }

  public void setChildKeysToDelete(Long childKeysToDelete) {
    this.childKeysToDelete = childKeysToDelete;
  }

  public Long getBytesToDelete() {
    return bytesToDelete;
  }

  public void setBytesToDelete(Long bytesToDelete) {
    this.bytesToDelete = bytesToDelete;
  }

  public Integer getMissingKeys() {
    return missingKeys;
  }

  public void setMissingKeys(Integer missingKeys) {
    this.missingKeys = missingKeys;
  }

  /** A live record's files that the bucket lacks ({@code missing <key>}, pipeline/README.md, "What a run does"). */
  public java.util.List<String> getMissingFiles() {
    return missingFiles;
  }

  public void setMissingFiles(java.util.List<String> missingFiles) {
    this.missingFiles = missingFiles;
  }

  public Integer getKeptKeys() {
    return keptKeys;
  }

  public void setKeptKeys(Integer keptKeys) {
    this.keptKeys = keptKeys;
  }

  public String getGraceRule() {
    return graceRule;
  }

  public void setGraceRule(String graceRule) {
    this.graceRule = graceRule;
  }

  public Integer getGraceDays() {
    return graceDays;
  }

  public void setGraceDays(Integer graceDays) {
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
    return Objects.equals(getRunId(), that.getRunId()) && Objects.equals(getRunDate(), that.getRunDate()) && Objects.equals(stateFileKey, that.stateFileKey) && Objects.equals(getRecordType(), that.getRecordType()) && Objects.equals(getKind(), that.getKind()) && Objects.equals(getIds(), that.getIds()) && Objects.equals(action, that.action) && Objects.equals(reason, that.reason) && Objects.equals(dueAt, that.dueAt) && Objects.equals(stateEtag, that.stateEtag) && Objects.equals(stateLastModified, that.stateLastModified) && Objects.equals(deletes, that.deletes) && Objects.equals(keysToDelete, that.keysToDelete) && Objects.equals(childKeysToDelete, that.childKeysToDelete) && Objects.equals(bytesToDelete, that.bytesToDelete) && Objects.equals(missingKeys, that.missingKeys) && Objects.equals(missingFiles, that.missingFiles) && Objects.equals(keptKeys, that.keptKeys) && Objects.equals(graceDays, that.graceDays) && Objects.equals(graceRule, that.graceRule) && Objects.equals(plannedAt, that.plannedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getRunId(), getRunDate(), stateFileKey, getRecordType(), getKind(), getIds(), action, reason, dueAt, stateEtag, stateLastModified, deletes, keysToDelete, childKeysToDelete, bytesToDelete, missingKeys, missingFiles, keptKeys, graceDays, graceRule, plannedAt);
  }

  @Override
  public String toString() {
    return "PlanRow{" + "runId=" + getRunId() + ", " + "runDate=" + getRunDate() + ", " + "stateFileKey=" + stateFileKey + ", " + "recordType=" + getRecordType() + ", " + "kind=" + getKind() + ", " + "ids=" + getIds() + ", " + "action=" + action + ", " + "reason=" + reason + ", " + "dueAt=" + dueAt + ", " + "stateEtag=" + stateEtag + ", " + "stateLastModified=" + stateLastModified + ", " + "deletes=" + deletes + ", " + "keysToDelete=" + keysToDelete + ", " + "childKeysToDelete=" + childKeysToDelete + ", " + "bytesToDelete=" + bytesToDelete + ", " + "missingKeys=" + missingKeys + ", " + "missingFiles=" + missingFiles + ", " + "keptKeys=" + keptKeys + ", " + "graceDays=" + graceDays + ", " + "graceRule=" + graceRule + ", " + "plannedAt=" + plannedAt + "}";
  }
}
