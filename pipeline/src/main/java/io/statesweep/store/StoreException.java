package io.statesweep.store;

/** A request to the object store failed; the message names the operation, the key and the store's error code. */
public final class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String errorCode;
  private final int throttled;

  public StoreException(String message, String errorCode, Throwable cause) {
    this(message, errorCode, cause, 0);
  }

  /** @param throttled SlowDown answers (503, 429) the request got before it failed, its retries' included */
  public StoreException(String message, String errorCode, Throwable cause, int throttled) {
    super(message, cause);
    this.errorCode = errorCode == null ? "Unknown" : errorCode;
    this.throttled = throttled;
  }

  /** SlowDown answers (503, 429) the request got before it failed, its retries' included; 0 where not counted. */
  public int throttled() {
    return throttled;
  }

  /** The store's error code, such as {@code AccessDenied}, or the exception's class for network errors. */
  public String errorCode() {
    return errorCode;
  }

  /** The store refused the request for want of a permission (403 AccessDenied). */
  public boolean isAccessDenied() {
    return errorCode.equals("AccessDenied") || errorCode.equals("HTTP 403");
  }
}
