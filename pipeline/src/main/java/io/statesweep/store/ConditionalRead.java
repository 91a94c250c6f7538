package io.statesweep.store;

import static java.util.Objects.requireNonNull;

/**
 * A read of an object on condition that it still has a given ETag: the answer, and when unchanged
 * its bytes (at most a limit; {@code truncated} when there was more).
 */
public record ConditionalRead(StateCheck check, byte[] bytes, boolean truncated) {
  private static final byte[] NONE = new byte[0];

  public ConditionalRead {
    requireNonNull(check, "check is null");
    requireNonNull(bytes, "bytes is null");
  }

  public static ConditionalRead of(StateCheck check) {
    return new ConditionalRead(check, NONE, false);
  }
}
