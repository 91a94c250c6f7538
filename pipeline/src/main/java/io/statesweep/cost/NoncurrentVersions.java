package io.statesweep.cost;

import static java.util.Objects.requireNonNull;

/**
 * The noncurrent versions already under the export's prefix, as the plan's listing saw them (pipeline/README.md, "The
 * cost of a run"): counted, with their bytes, when the listing sees them cheaply (an S3 Inventory report of all
 * versions), or not counted and why (ListObjectsV2 and a report of current versions see only the current ones).
 *
 * @param versions how many noncurrent versions (delete markers not counted); null when not counted
 * @param bytes their bytes; null when not counted
 * @param source where they were counted (the report and when it was taken), or why they were not
 */
public record NoncurrentVersions(Long versions, Long bytes, String source) {
  /** What counts them where the listing cannot: its words close a "not counted" statement. */
  static final String WHAT_COUNTS_THEM = "an S3 Inventory report of all versions (IncludedObjectVersions All,"
      + " read with --listing inventory) counts them, as does ListObjectVersions of the prefix";

  public NoncurrentVersions {
    requireNonNull(source, "source is null");
    if ((versions == null) != (bytes == null)) {
      throw new IllegalArgumentException("noncurrent versions and their bytes are counted together");
    }
  }

  /** Counted: {@code versions} noncurrent versions of {@code bytes} bytes, {@code where} (such as the report's date). */
  public static NoncurrentVersions counted(long versions, long bytes, String where) {
    return new NoncurrentVersions(versions, bytes, requireNonNull(where, "where is null"));
  }

  /** A ListObjectsV2 listing: it lists current versions only. */
  public static NoncurrentVersions notListed() {
    return new NoncurrentVersions(null, null, "ListObjectsV2 lists current versions only; " + WHAT_COUNTS_THEM);
  }

  /** An S3 Inventory report of current versions only. */
  public static NoncurrentVersions notInReport() {
    return new NoncurrentVersions(null, null, "the S3 Inventory report lists current versions only"
        + " (IncludedObjectVersions Current); " + WHAT_COUNTS_THEM);
  }

  public boolean isCounted() {
    return versions != null;
  }

  /** The sentence of the plan's versioning line about them, under {@code prefix}. */
  public String text(String prefix) {
    requireNonNull(prefix, "prefix is null");
    String under = prefix.isEmpty() ? "in the bucket" : "under " + prefix;
    if (isCounted()) {
      return versions + " noncurrent versions (" + bytes + " bytes) are already " + under + " (" + source
          + "): they too cost until they expire";
    }
    return "the noncurrent versions already " + under + " are not counted: " + source;
  }
}
