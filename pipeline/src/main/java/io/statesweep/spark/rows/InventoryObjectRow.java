package io.statesweep.spark.rows;

import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * A row read from an S3 Inventory report: an object as a listing would show it, or, with no key, how many noncurrent
 * versions one data-file partition held under the prefix and their bytes (pipeline/README.md, "The cost of a run"). A
 * Spark bean row ({@link #ENCODER}).
 */
public final class InventoryObjectRow extends ListedObjectFields {
  private static final long serialVersionUID = 1L;

  public static final Encoder<InventoryObjectRow> ENCODER = Encoders.bean(InventoryObjectRow.class);

  private Long noncurrentVersions;
  private Long noncurrentBytes;

  public InventoryObjectRow() {}

  public Long getNoncurrentVersions() {
    return noncurrentVersions;
  }

  public void setNoncurrentVersions(Long noncurrentVersions) {
    this.noncurrentVersions = noncurrentVersions;
  }

  public Long getNoncurrentBytes() {
    return noncurrentBytes;
  }

  public void setNoncurrentBytes(Long noncurrentBytes) {
    this.noncurrentBytes = noncurrentBytes;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof InventoryObjectRow that)) {
      return false;
    }
    return Objects.equals(getKey(), that.getKey()) && Objects.equals(getEtag(), that.getEtag())
        && Objects.equals(getLastModified(), that.getLastModified()) && getSize() == that.getSize()
        && Objects.equals(getStorageClass(), that.getStorageClass())
        && Objects.equals(noncurrentVersions, that.noncurrentVersions)
        && Objects.equals(noncurrentBytes, that.noncurrentBytes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getKey(), getEtag(), getLastModified(), getSize(), getStorageClass(), noncurrentVersions,
        noncurrentBytes);
  }

  @Override
  public String toString() {
    return "InventoryObjectRow{key=" + getKey() + ", etag=" + getEtag() + ", lastModified=" + getLastModified()
        + ", size=" + getSize() + ", storageClass=" + getStorageClass() + ", noncurrentVersions=" + noncurrentVersions
        + ", noncurrentBytes=" + noncurrentBytes + "}";
  }
}
