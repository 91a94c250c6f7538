package io.statesweep.spark.rows;

import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * One key of a plan row, in execution order, with the version the plan saw. A Spark bean row ({@link #ENCODER});
 * every field nullable, as in {@link PlanRow}.
 */
public final class DeleteRow extends ObjectFields {
  private static final long serialVersionUID = 1L;

  public static final Encoder<DeleteRow> ENCODER = Encoders.bean(DeleteRow.class);

  private Long size;
  private String role;

  public DeleteRow() {}

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
    return Objects.equals(getKey(), that.getKey()) && Objects.equals(getEtag(), that.getEtag()) && Objects.equals(getLastModified(), that.getLastModified()) && Objects.equals(size, that.size) && Objects.equals(role, that.role);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getKey(), getEtag(), getLastModified(), size, role);
  }

  @Override
  public String toString() {
    return "DeleteRow{" + "key=" + getKey() + ", " + "etag=" + getEtag() + ", " + "lastModified=" + getLastModified() + ", " + "size=" + size + ", " + "role=" + role + "}";
  }
}
