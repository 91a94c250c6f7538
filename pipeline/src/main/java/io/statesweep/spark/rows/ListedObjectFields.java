package io.statesweep.spark.rows;

/**
 * An object as a listing gives it: {@link ObjectFields}' key, ETag and LastModified, its size and its storage class.
 * The listing's rows of objects and of listing tasks both have them.
 */
public abstract class ListedObjectFields extends ObjectFields {
  private static final long serialVersionUID = 1L;

  private long size;
  /** The listing's StorageClass (STANDARD where the store names none); null from an inventory without that field. */
  private String storageClass;

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
}
