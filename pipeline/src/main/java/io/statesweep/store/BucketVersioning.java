package io.statesweep.store;

import static java.util.Objects.requireNonNull;

/**
 * A bucket's versioning as GetBucketVersioning answered it.
 *
 * @param status {@code Enabled}, {@code Suspended}, {@value #OFF} (never enabled) or {@value #UNKNOWN}
 * @param unknownBecause why it is unknown (the call was denied or is not supported); null otherwise
 */
public record BucketVersioning(String status, String unknownBecause) {
  public static final String OFF = "Off";
  public static final String UNKNOWN = "unknown";

  public BucketVersioning {
    requireNonNull(status, "status is null");
    if (status.equals(UNKNOWN) != (unknownBecause != null)) {
      throw new IllegalArgumentException("a reason goes with an unknown status only");
    }
  }

  /** Whether deletes leave noncurrent versions (and delete markers) behind: Enabled or Suspended. */
  public boolean keepsNoncurrentVersions() {
    return status.equals("Enabled") || status.equals("Suspended");
  }
}
