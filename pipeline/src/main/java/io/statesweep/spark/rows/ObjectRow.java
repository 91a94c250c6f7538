package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** An object as listed: one row per key of the listing. A Spark bean row ({@link #ENCODER}). */
public final class ObjectRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ObjectRow> ENCODER = Encoders.bean(ObjectRow.class);

  private String key;
  private String etag;
  private java.sql.Timestamp lastModified;
  private long size;
  /** The listing's StorageClass (STANDARD where the store names none); null from an inventory without that field. */
  private String storageClass;

  public ObjectRow() {}

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

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ObjectRow that)) {
      return false;
    }
    return Objects.equals(key, that.key) && Objects.equals(etag, that.etag) && Objects.equals(lastModified, that.lastModified) && size == that.size && Objects.equals(storageClass, that.storageClass);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, etag, lastModified, size, storageClass);
  }

  @Override
  public String toString() {
    return "ObjectRow{" + "key=" + key + ", " + "etag=" + etag + ", " + "lastModified=" + lastModified + ", " + "size=" + size + "}";
  }
}
