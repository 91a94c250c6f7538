package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** What a listing task yields: an object (key set) or a task for the keys it left (taskPrefix set). A Spark bean row ({@link #ENCODER}). */
public final class ListedRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ListedRow> ENCODER = Encoders.bean(ListedRow.class);

  private String key;
  private String etag;
  private java.sql.Timestamp lastModified;
  private long size;
  /** The listing's StorageClass (STANDARD where the store names none); null from an inventory without that field. */
  private String storageClass;
  private String taskPrefix;
  private String taskStartAfter;
  private String taskNextChars;
  private String taskDepth;

  public ListedRow() {}

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getEtag() {
    return etag;
  }

  public void setEtag(String etag) {
    this.etag = etag;
  }

  public java.sql.Timestamp getLastModified() {
    return lastModified;
  }

  public void setLastModified(java.sql.Timestamp lastModified) {
    this.lastModified = lastModified;
  }

  public String getStorageClass() {
    return storageClass;
  }

  public void setStorageClass(String storageClass) {
    this.storageClass = storageClass;
  }

  public long getSize() {
    return size;
  }

  public void setSize(long size) {
    this.size = size;
  }

  public String getTaskPrefix() {
    return taskPrefix;
  }

  public void setTaskPrefix(String taskPrefix) {
    this.taskPrefix = taskPrefix;
  }

  public String getTaskStartAfter() {
    return taskStartAfter;
  }

  public void setTaskStartAfter(String taskStartAfter) {
    this.taskStartAfter = taskStartAfter;
  }

  public String getTaskNextChars() {
    return taskNextChars;
  }

  public void setTaskNextChars(String taskNextChars) {
    this.taskNextChars = taskNextChars;
  }

  public String getTaskDepth() {
    return taskDepth;
  }

  public void setTaskDepth(String taskDepth) {
    this.taskDepth = taskDepth;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ListedRow that)) {
      return false;
    }
    return Objects.equals(key, that.key) && Objects.equals(etag, that.etag) && Objects.equals(lastModified, that.lastModified) && size == that.size && Objects.equals(taskPrefix, that.taskPrefix) && Objects.equals(taskStartAfter, that.taskStartAfter) && Objects.equals(taskNextChars, that.taskNextChars) && Objects.equals(taskDepth, that.taskDepth);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, etag, lastModified, size, taskPrefix, taskStartAfter, taskNextChars, taskDepth);
  }

  @Override
  public String toString() {
    return "ListedRow{" + "key=" + key + ", " + "etag=" + etag + ", " + "lastModified=" + lastModified + ", " + "size=" + size + ", " + "taskPrefix=" + taskPrefix + ", " + "taskStartAfter=" + taskStartAfter + ", " + "taskNextChars=" + taskNextChars + ", " + "taskDepth=" + taskDepth + "}";
  }
}
