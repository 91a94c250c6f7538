package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * A key an execute deleted, with its role, the ETag it was verified with, when the store's answer came (null: found
 * gone after its task stopped) and, on a versioned bucket, the delete marker it got and, for a record that came back,
 * the version current again. A Spark bean row
 * ({@link #ENCODER}).
 */
public final class DeletedKeyRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<DeletedKeyRow> ENCODER = Encoders.bean(DeletedKeyRow.class);

  private String key;
  private String role;
  private String etag;
  private java.sql.Timestamp deletedAt;
  private String deleteMarker;
  private String restoredVersion;

  public DeletedKeyRow() {}

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getRole() {
    return role;
  }

  public void setRole(String role) {
    this.role = role;
  }

  public String getEtag() {
    return etag;
  }

  public void setEtag(String etag) {
    this.etag = etag;
  }

  public java.sql.Timestamp getDeletedAt() {
    return deletedAt;
  }

  public void setDeletedAt(java.sql.Timestamp deletedAt) {
    this.deletedAt = deletedAt;
  }

  public String getDeleteMarker() {
    return deleteMarker;
  }

  public void setDeleteMarker(String deleteMarker) {
    this.deleteMarker = deleteMarker;
  }

  public String getRestoredVersion() {
    return restoredVersion;
  }

  public void setRestoredVersion(String restoredVersion) {
    this.restoredVersion = restoredVersion;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof DeletedKeyRow that)) {
      return false;
    }
    return Objects.equals(key, that.key) && Objects.equals(role, that.role) && Objects.equals(etag, that.etag)
        && Objects.equals(deletedAt, that.deletedAt) && Objects.equals(deleteMarker, that.deleteMarker)
        && Objects.equals(restoredVersion, that.restoredVersion);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, role, etag, deletedAt, deleteMarker, restoredVersion);
  }

  @Override
  public String toString() {
    return "DeletedKeyRow{key=" + key + ", role=" + role + ", etag=" + etag + ", deletedAt=" + deletedAt
        + ", deleteMarker=" + deleteMarker + ", restoredVersion=" + restoredVersion + "}";
  }
}
