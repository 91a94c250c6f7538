package io.statesweep.layout;

import static java.util.Objects.requireNonNull;

/**
 * A state file that would own a key if it exists: the state file of an enclosing folder record, or
 * the {@code <id>.state.json} beside a {@code <id>.json}. A higher depth is a closer owner.
 */
public record OwnerCandidate(String stateFileKey, int depth) {
  public OwnerCandidate {
    requireNonNull(stateFileKey, "stateFileKey is null");
  }
}
