package io.statesweep.spark.rows;

import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** What a listing task yields: an object (key set) or a task for the keys it left (taskPrefix set). A Spark bean row ({@link #ENCODER}). */
public final class ListedRow extends ListedObjectFields {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ListedRow> ENCODER = Encoders.bean(ListedRow.class);

  private String taskPrefix;
  private String taskStartAfter;
  private String taskNextChars;
  private String taskDepth;

  public ListedRow() {}

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
    return Objects.equals(getKey(), that.getKey()) && Objects.equals(getEtag(), that.getEtag()) && Objects.equals(getLastModified(), that.getLastModified()) && getSize() == that.getSize() && Objects.equals(getStorageClass(), that.getStorageClass()) && Objects.equals(taskPrefix, that.taskPrefix) && Objects.equals(taskStartAfter, that.taskStartAfter) && Objects.equals(taskNextChars, that.taskNextChars) && Objects.equals(taskDepth, that.taskDepth);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getKey(), getEtag(), getLastModified(), getSize(), getStorageClass(), taskPrefix, taskStartAfter, taskNextChars, taskDepth);
  }

  @Override
  public String toString() {
    return "ListedRow{" + "key=" + getKey() + ", " + "etag=" + getEtag() + ", " + "lastModified=" + getLastModified() + ", " + "size=" + getSize() + ", " + "storageClass=" + getStorageClass() + ", " + "taskPrefix=" + taskPrefix + ", " + "taskStartAfter=" + taskStartAfter + ", " + "taskNextChars=" + taskNextChars + ", " + "taskDepth=" + taskDepth + "}";
  }
}
