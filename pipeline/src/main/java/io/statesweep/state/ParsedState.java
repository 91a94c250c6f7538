package io.statesweep.state;

import static java.util.Objects.requireNonNull;

/** A state file's document, or why it could not be read as one. Exactly one of the two is set. */
public record ParsedState(StateDocument document, String error) {
  public ParsedState {
    if ((document == null) == (error == null)) {
      throw new IllegalArgumentException("exactly one of document and error must be set");
    }
  }

  static ParsedState ok(StateDocument document) {
    return new ParsedState(requireNonNull(document, "document is null"), null);
  }

  static ParsedState bad(String error) {
    return new ParsedState(null, requireNonNull(error, "error is null"));
  }

  public boolean isValid() {
    return document != null;
  }
}
