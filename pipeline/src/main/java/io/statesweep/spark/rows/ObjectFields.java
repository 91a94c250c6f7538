package io.statesweep.spark.rows;

import java.io.Serializable;
import java.sql.Timestamp;

/**
 * The fields a listing gives every object, shared by the bean rows of objects: its key, its ETag and its
 * LastModified (a row's size is its own, which some rows may not know, or {@link ListedObjectFields}'). Spark's bean
 * encoder reads inherited properties as a row's own: the rows' columns are unchanged.
 */
public abstract class ObjectFields implements Serializable {
  private static final long serialVersionUID = 1L;

  private String key;
  private String etag;
  private Timestamp lastModified;

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

  public Timestamp getLastModified() {
    return lastModified;
  }

  public void setLastModified(Timestamp lastModified) {
    this.lastModified = lastModified;
  }
}
