package io.statesweep.cost;

import static java.util.Objects.requireNonNull;

/**
 * What a plan says about a versioned bucket: on a bucket with versioning Enabled or Suspended a delete
 * adds a delete marker and keeps the object as a noncurrent version, so the bytes a plan deletes are freed
 * only when noncurrent versions expire. The exporter's cleanup guide recommends a lifecycle rule that
 * expires noncurrent versions; {@link #lifecycleRule} is one, for the export's prefix.
 */
public final class VersioningNote {
  /** How long a deleted file stays recoverable as a noncurrent version in the suggested rule. */
  static final int NONCURRENT_DAYS = 30;

  private VersioningNote() {}

  /**
   * A lifecycle configuration (for {@code aws s3api put-bucket-lifecycle-configuration}) that expires noncurrent
   * versions under {@code prefix} {@value #NONCURRENT_DAYS} days after they became noncurrent, and removes the
   * delete markers left with no version behind them.
   */
  public static String lifecycleRule(String prefix) {
    requireNonNull(prefix, "prefix is null");
    return "{\"Rules\":[{\"ID\":\"expire-noncurrent-versions\",\"Filter\":{\"Prefix\":\"" + jsonString(prefix)
        + "\"},\"Status\":\"Enabled\",\"NoncurrentVersionExpiration\":{\"NoncurrentDays\":" + NONCURRENT_DAYS
        + "},\"Expiration\":{\"ExpiredObjectDeleteMarker\":true}}]}";
  }

  /**
   * The plain statement for the plan's log and the runs table, or null when the bucket is not versioned.
   *
   * @param status Enabled, Suspended, Off or unknown
   * @param unknownBecause why the status is unknown, or null
   */
  public static String of(String bucket, String prefix, String status, String unknownBecause, long bytes) {
    return of(bucket, prefix, status, unknownBecause, bytes, null);
  }

  /**
   * {@link #of(String, String, String, String, long)}, and on a versioned bucket what the listing says of the
   * noncurrent versions already under the prefix: how many and their bytes, or that they are not counted and why
   * (pipeline/README.md, "The cost of a run").
   *
   * @param noncurrent the listing's count, or null to say nothing of them
   */
  public static String of(String bucket, String prefix, String status, String unknownBecause, long bytes,
      NoncurrentVersions noncurrent) {
    requireNonNull(bucket, "bucket is null");
    requireNonNull(status, "status is null");
    if (status.equals("Enabled") || status.equals("Suspended")) {
      return "bucket " + bucket + " has versioning " + status + ": a delete keeps each object as a noncurrent"
          + " version behind a delete marker, so the " + bytes + " bytes this plan deletes are freed, and stop"
          + " costing, only when noncurrent versions expire. "
          + (noncurrent == null ? "" : capitalized(noncurrent.text(prefix)) + ". ")
          + "Add a lifecycle rule that expires noncurrent versions, such as " + lifecycleRule(prefix);
    }
    if (status.equals("unknown")) {
      return "the versioning of bucket " + bucket + " is unknown (" + unknownBecause + "): on a versioned bucket"
          + " the " + bytes + " bytes this plan deletes are freed only when noncurrent versions expire, with a"
          + " lifecycle rule such as " + lifecycleRule(prefix);
    }
    return null;
  }

  private static String capitalized(String sentence) {
    return sentence.isEmpty() ? sentence : Character.toUpperCase(sentence.charAt(0)) + sentence.substring(1);
  }

  private static String jsonString(String text) {
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
