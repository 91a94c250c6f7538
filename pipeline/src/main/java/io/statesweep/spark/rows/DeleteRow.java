package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * One key of a plan row, in execution order, with the version the plan saw. A Spark bean row ({@link #ENCODER});
 * every field nullable, as in {@link PlanRow}.
 */
public final class DeleteRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<DeleteRow> ENCODER = Encoders.bean(DeleteRow.class);

  private String key;
  private String etag;
  private java.sql.Timestamp lastModified;
  private Long size;
  private String role;

  public DeleteRow() {}

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

  public Long getSize() {
    return size;
  }

  public void setSize(Long size) {
    this.size = size;
  }

  public String getRole() {
    return role;
  }

  public void setRole(String role) {
    this.role = role;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof DeleteRow that)) {
      return false;
    }
    return Objects.equals(key, that.key) && Objects.equals(etag, that.etag) && Objects.equals(lastModified, that.lastModified) && Objects.equals(size, that.size) && Objects.equals(role, that.role);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, etag, lastModified, size, role);
  }

  @Override
  public String toString() {
    return "DeleteRow{" + "key=" + key + ", " + "etag=" + etag + ", " + "lastModified=" + lastModified + ", " + "size=" + size + ", " + "role=" + role + "}";
  }
}
