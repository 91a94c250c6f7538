package io.statesweep.spark.rows;

import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** An object as listed: one row per key of the listing. A Spark bean row ({@link #ENCODER}). */
public final class ObjectRow extends ListedObjectFields {
  private static final long serialVersionUID = 1L;

  public static final Encoder<ObjectRow> ENCODER = Encoders.bean(ObjectRow.class);

  public ObjectRow() {}

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ObjectRow that)) {
      return false;
    }
    return Objects.equals(getKey(), that.getKey()) && Objects.equals(getEtag(), that.getEtag()) && Objects.equals(getLastModified(), that.getLastModified()) && getSize() == that.getSize() && Objects.equals(getStorageClass(), that.getStorageClass());
  }

  @Override
  public int hashCode() {
    return Objects.hash(getKey(), getEtag(), getLastModified(), getSize(), getStorageClass());
  }

  @Override
  public String toString() {
    return "ObjectRow{" + "key=" + getKey() + ", " + "etag=" + getEtag() + ", " + "lastModified=" + getLastModified() + ", " + "size=" + getSize() + ", " + "storageClass=" + getStorageClass() + "}";
  }
}
