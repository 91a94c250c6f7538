package io.statesweep.store;

import java.util.Map;
import java.util.Set;

/**
 * What one DeleteObjects request did: the keys it deleted (or found already gone), and the per-key
 * errors of the store, key to error. {@code PreconditionFailed} means the key changed since its ETag
 * was seen, and it stays.
 */
public record DeleteResult(Set<String> deleted, Map<String, KeyError> errors) {
  public DeleteResult {
    deleted = Set.copyOf(deleted);
    errors = Map.copyOf(errors);
  }

  /** A store's error for one key, such as {@code AccessDenied}: "message (code)". */
  public record KeyError(String code, String message) {
    public boolean isPreconditionFailed() {
      return "PreconditionFailed".equals(code);
    }

    @Override
    public String toString() {
      return message + " (" + code + ")";
    }
  }
}
