package io.statesweep.store;

/** A request to the object store failed; the message names the operation, the key and the store's error code. */
public final class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String errorCode;

  public StoreException(String message, String errorCode, Throwable cause) {
    super(message, cause);
    this.errorCode = errorCode == null ? "Unknown" : errorCode;
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
