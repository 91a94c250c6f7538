package io.statesweep.spark.rows;

import java.util.Map;

/**
 * A run's fields and the record's place as the layout names it: its record type, its kind folder (null for records
 * without one) and the ids of its place. The rows of a state file and of its plan both have them.
 */
public abstract class RecordFields extends RunFields {
  private static final long serialVersionUID = 1L;

  private String recordType;
  private String kind;
  private Map<String, String> ids;

  public String getRecordType() {
    return recordType;
  }

  public void setRecordType(String recordType) {
    this.recordType = recordType;
  }

  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  public Map<String, String> getIds() {
    return ids;
  }

  public void setIds(Map<String, String> ids) {
    this.ids = ids;
  }
}
