package io.statesweep.spark.rows;

import java.util.Objects;

/**
 * One row of table state_files: a state-named key as this run saw it. status is read, bad_state, gone, read_error or
 * skipped; message is the parse error, the read error or the reason for skipping. A Spark bean row whose table
 * columns, encoder and comments are declared in {@link io.statesweep.spark.tables.TableSchemas#STATE_FILES}.
 */
public final class StateFileRow extends RecordFields {
  private static final long serialVersionUID = 1L;

  private String key;
  private String etag;
  private java.sql.Timestamp lastModified;
  private String status;
  private String message;
  private String shape;
  private String scope;
  private Long size;
  private Boolean delete;
  private java.sql.Timestamp expiresAt;
  private java.sql.Timestamp markedAt;
  private java.util.List<String> files;
  private java.util.List<String> deleteFiles;
  private String rawJson;

  public StateFileRow() {}

  /** The state file's key. */
  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  /** The state file's ETag as read (as listed for a skipped key). */
  public String getEtag() {
    return etag;
  }

  public void setEtag(String etag) {
    this.etag = etag;
  }

  /** The state file's LastModified as read (as listed for a skipped key). */
  public java.sql.Timestamp getLastModified() {
    return lastModified;
  }

  public void setLastModified(java.sql.Timestamp lastModified) {
    this.lastModified = lastModified;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getShape() {
    return shape;
  }

  public void setShape(String shape) {
    this.shape = shape;
  }

  public String getScope() {
    return scope;
  }

  public void setScope(String scope) {
    this.scope = scope;
  }

  public Long getSize() {
    return size;
  }

  public void setSize(Long size) {
    this.size = size;
  }

  public Boolean getDelete() {
    return delete;
  }

  public void setDelete(Boolean delete) {
    this.delete = delete;
  }

  public java.sql.Timestamp getExpiresAt() {
    return expiresAt;
  }

  public void setExpiresAt(java.sql.Timestamp expiresAt) {
    this.expiresAt = expiresAt;
  }

  public java.sql.Timestamp getMarkedAt() {
    return markedAt;
  }

  public void setMarkedAt(java.sql.Timestamp markedAt) {
    this.markedAt = markedAt;
  }

  public java.util.List<String> getFiles() {
    return files;
  }

  public void setFiles(java.util.List<String> files) {
    this.files = files;
  }

  public java.util.List<String> getDeleteFiles() {
    return deleteFiles;
  }

  public void setDeleteFiles(java.util.List<String> deleteFiles) {
    this.deleteFiles = deleteFiles;
  }

  public String getRawJson() {
    return rawJson;
  }

  public void setRawJson(String rawJson) {
    this.rawJson = rawJson;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof StateFileRow that)) {
      return false;
    }
    return Objects.equals(getRunId(), that.getRunId()) && Objects.equals(getRunDate(), that.getRunDate()) && Objects.equals(getKey(), that.getKey()) && Objects.equals(status, that.status) && Objects.equals(message, that.message) && Objects.equals(getRecordType(), that.getRecordType()) && Objects.equals(getKind(), that.getKind()) && Objects.equals(getIds(), that.getIds()) && Objects.equals(shape, that.shape) && Objects.equals(scope, that.scope) && Objects.equals(getEtag(), that.getEtag()) && Objects.equals(getLastModified(), that.getLastModified()) && Objects.equals(size, that.size) && Objects.equals(delete, that.delete) && Objects.equals(expiresAt, that.expiresAt) && Objects.equals(markedAt, that.markedAt) && Objects.equals(files, that.files) && Objects.equals(deleteFiles, that.deleteFiles) && Objects.equals(rawJson, that.rawJson);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getRunId(), getRunDate(), getKey(), status, message, getRecordType(), getKind(), getIds(), shape, scope, getEtag(), getLastModified(), size, delete, expiresAt, markedAt, files, deleteFiles, rawJson);
  }

  @Override
  public String toString() {
    return "StateFileRow{" + "runId=" + getRunId() + ", " + "runDate=" + getRunDate() + ", " + "key=" + getKey() + ", " + "status=" + status + ", " + "message=" + message + ", " + "recordType=" + getRecordType() + ", " + "kind=" + getKind() + ", " + "ids=" + getIds() + ", " + "shape=" + shape + ", " + "scope=" + scope + ", " + "etag=" + getEtag() + ", " + "lastModified=" + getLastModified() + ", " + "size=" + size + ", " + "delete=" + delete + ", " + "expiresAt=" + expiresAt + ", " + "markedAt=" + markedAt + ", " + "files=" + files + ", " + "deleteFiles=" + deleteFiles + ", " + "rawJson=" + rawJson + "}";
  }
}
