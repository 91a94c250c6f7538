package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * A missing file's latest version, as a plan looked it up on a versioned bucket (pipeline/README.md, "The summary
 * line"): its version id and whether it is a delete marker, both null when the key has no version, or why the lookup
 * failed. A Spark bean row ({@link #ENCODER}).
 */
public final class VersionLookupRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<VersionLookupRow> ENCODER = Encoders.bean(VersionLookupRow.class);

  private String key;
  private String versionId;
  private Boolean deleteMarker;
  private String error;

  public VersionLookupRow() {}

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getVersionId() {
    return versionId;
  }

  public void setVersionId(String versionId) {
    this.versionId = versionId;
  }

  public Boolean getDeleteMarker() {
    return deleteMarker;
  }

  public void setDeleteMarker(Boolean deleteMarker) {
    this.deleteMarker = deleteMarker;
  }

  public String getError() {
    return error;
  }

  public void setError(String error) {
    this.error = error;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof VersionLookupRow that)) {
      return false;
    }
    return Objects.equals(key, that.key) && Objects.equals(versionId, that.versionId)
        && Objects.equals(deleteMarker, that.deleteMarker) && Objects.equals(error, that.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, versionId, deleteMarker, error);
  }

  @Override
  public String toString() {
    return "VersionLookupRow{key=" + key + ", versionId=" + versionId + ", deleteMarker=" + deleteMarker + ", error="
        + error + "}";
  }
}
