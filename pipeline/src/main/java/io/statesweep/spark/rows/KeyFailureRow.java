package io.statesweep.spark.rows;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/** A key that could not be deleted, with the store's error code and message. A Spark bean row ({@link #ENCODER}). */
public final class KeyFailureRow implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Encoder<KeyFailureRow> ENCODER = Encoders.bean(KeyFailureRow.class);

  private String key;
  private String code;
  private String message;

  public KeyFailureRow() {}

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getCode() {
    return code;
  }

  public void setCode(String code) {
    this.code = code;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof KeyFailureRow that)) {
      return false;
    }
    return Objects.equals(key, that.key) && Objects.equals(code, that.code) && Objects.equals(message, that.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, code, message);
  }

  @Override
  public String toString() {
    return "KeyFailureRow{" + "key=" + key + ", " + "code=" + code + ", " + "message=" + message + "}";
  }
}
