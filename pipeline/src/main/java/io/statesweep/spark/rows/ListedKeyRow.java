package io.statesweep.spark.rows;

import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** A key that a state file lists, with the listing's view of it (etag null: it does not exist) and its closest owning state file. A Spark bean row ({@link #ENCODER}). */
public final class ListedKeyRow extends ObjectFields {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ListedKeyRow> ENCODER = Encoders.bean(ListedKeyRow.class);

  private Long size;
  private String owner;

  public ListedKeyRow() {}

  public Long getSize() {
    return size;
  }

  public void setSize(Long size) {
    this.size = size;
  }

  public String getOwner() {
    return owner;
  }

  public void setOwner(String owner) {
    this.owner = owner;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ListedKeyRow that)) {
      return false;
    }
    return Objects.equals(getKey(), that.getKey()) && Objects.equals(getEtag(), that.getEtag()) && Objects.equals(getLastModified(), that.getLastModified()) && Objects.equals(size, that.size) && Objects.equals(owner, that.owner);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getKey(), getEtag(), getLastModified(), size, owner);
  }

  @Override
  public String toString() {
    return "ListedKeyRow{" + "key=" + getKey() + ", " + "etag=" + getEtag() + ", " + "lastModified=" + getLastModified() + ", " + "size=" + size + ", " + "owner=" + owner + "}";
  }
}
