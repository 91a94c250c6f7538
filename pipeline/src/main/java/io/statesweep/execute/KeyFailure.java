package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

/** A key that could not be deleted, with the store's code and message. */
public record KeyFailure(String key, String code, String message) {
  public KeyFailure {
    requireNonNull(key, "key is null");
    requireNonNull(code, "code is null");
    requireNonNull(message, "message is null");
  }
}
