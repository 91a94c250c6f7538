package io.statesweep.spark.rows;

import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** An object as listed: one row per key of the listing. A Spark bean row ({@link #ENCODER}). */
public final class ObjectRow extends ObjectFields {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ObjectRow> ENCODER = Encoders.bean(ObjectRow.class);

  private long size;
  /** The listing's StorageClass (STANDARD where the store names none); null from an inventory without that field. */
  private String storageClass;

  public ObjectRow() {}

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
    return Objects.equals(getKey(), that.getKey()) && Objects.equals(getEtag(), that.getEtag()) && Objects.equals(getLastModified(), that.getLastModified()) && size == that.size && Objects.equals(storageClass, that.storageClass);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getKey(), getEtag(), getLastModified(), size, storageClass);
  }

  @Override
  public String toString() {
    return "ObjectRow{" + "key=" + getKey() + ", " + "etag=" + getEtag() + ", " + "lastModified=" + getLastModified() + ", " + "size=" + size + "}";
  }
}
