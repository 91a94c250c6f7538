package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** A key that a state file lists, with the listing's view of it (etag null: it does not exist) and its closest owning state file. A Spark bean row ({@link #ENCODER}). */
public final class ListedKeyRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ListedKeyRow> ENCODER = Encoders.bean(ListedKeyRow.class);

  private String key;
  private String etag;
  private java.sql.Timestamp lastModified;
  private Long size;
  private String owner;

  public ListedKeyRow() {}

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
    return Objects.equals(key, that.key) && Objects.equals(etag, that.etag) && Objects.equals(lastModified, that.lastModified) && Objects.equals(size, that.size) && Objects.equals(owner, that.owner);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, etag, lastModified, size, owner);
  }

  @Override
  public String toString() {
    return "ListedKeyRow{" + "key=" + key + ", " + "etag=" + etag + ", " + "lastModified=" + lastModified + ", " + "size=" + size + ", " + "owner=" + owner + "}";
  }
}
