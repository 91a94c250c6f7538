package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.StoredObject;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * One line of an S3 Inventory report, as its data file gives it: text in a CSV report, typed values
 * in ORC and Parquet. {@link #object()} turns it into the object a listing would have returned, or
 * refuses it with a message naming the data file, the key and the field.
 */
public record InventoryEntry(String file, InventoryManifest.Format format, Object key, Object size,
    Object lastModified, Object etag, Object isLatest, Object isDeleteMarker) {

  public InventoryEntry {
    requireNonNull(file, "file is null");
    requireNonNull(format, "format is null");
  }

  /** Whether the line is a key a listing would show: the latest version, not a delete marker. */
  public boolean isLive() {
    return (isLatest == null || isTrue(isLatest)) && (isDeleteMarker == null || !isTrue(isDeleteMarker));
  }

  /**
   * Whether the line is a noncurrent version: a report of all versions says it is not the latest, and it is not a
   * delete marker. A report of current versions has none.
   */
  public boolean isNoncurrentVersion() {
    return isLatest != null && !isTrue(isLatest) && (isDeleteMarker == null || !isTrue(isDeleteMarker));
  }

  /** The key, decoded if the report is CSV. */
  public String decodedKey() {
    if (key == null || key.toString().isEmpty()) {
      throw new IllegalArgumentException("Inventory file " + file + ": a line has no key");
    }
    if (format != InventoryManifest.Format.CSV) {
      return key.toString();
    }
    try {
      return InventoryManifest.decodeCsvKey(key.toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Inventory file " + file + ": key '" + key + "' " + e.getMessage(), e);
    }
  }

  /** The object as a listing would have shown it. */
  public StoredObject object() {
    String decoded = decodedKey();
    return new StoredObject(decoded, etag(decoded), lastModified(decoded), size(decoded));
  }

  private long size(String decoded) {
    if (size instanceof Number number) {
      return checkSize(number.longValue(), decoded);
    }
    if (size == null || size.toString().isBlank()) {
      throw refused(decoded, "size", "is missing");
    }
    try {
      return checkSize(Long.parseLong(size.toString().trim()), decoded);
    } catch (NumberFormatException e) {
      throw refused(decoded, "size", "'" + size + "' is not a whole number");
    }
  }

  private long checkSize(long value, String decoded) {
    if (value < 0) {
      throw refused(decoded, "size", value + " is negative");
    }
    return value;
  }

  private Instant lastModified(String decoded) {
    if (lastModified instanceof Timestamp timestamp) {
      return timestamp.toInstant();
    }
    if (lastModified instanceof Instant instant) {
      return instant;
    }
    if (lastModified == null || lastModified.toString().isBlank()) {
      throw refused(decoded, "last_modified_date", "is missing");
    }
    try {
      return OffsetDateTime.parse(lastModified.toString().trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw refused(decoded, "last_modified_date", "'" + lastModified + "' is not an ISO-8601 time with a zone");
    }
  }

  private String etag(String decoded) {
    if (etag == null || etag.toString().isBlank()) {
      throw refused(decoded, "e_tag", "is missing");
    }
    String text = etag.toString().trim();
    // Listings quote ETags; inventories do not. Both are held unquoted.
    return text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"") ? text.substring(1, text.length() - 1)
        : text;
  }

  private IllegalArgumentException refused(String decoded, String field, String problem) {
    return new IllegalArgumentException("Inventory file " + file + ": key '" + decoded + "': " + field + " " + problem);
  }

  private static boolean isTrue(Object value) {
    return value instanceof Boolean bool ? bool : "true".equalsIgnoreCase(value.toString().trim());
  }
}
