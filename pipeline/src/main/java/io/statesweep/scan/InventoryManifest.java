package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code manifest.json} of an S3 Inventory report: which bucket it lists, when the inventory was
 * taken, the format and columns of its data files, and where they are. Validated on parsing, so a
 * report that cannot stand in for the listing is refused before any of it is read; every message
 * names the manifest and the field.
 *
 * <p>Columns are held under their ORC/Parquet names ({@code last_modified_date}); a CSV report's
 * {@code LastModifiedDate} becomes the same name, in the order of the file's columns.
 */
public record InventoryManifest(String location, String sourceBucket, String destinationBucket, Format format,
    List<String> columns, Instant createdAt, List<String> files) implements Serializable {

  /** The columns a report needs to stand in for ListObjectsV2. */
  public static final List<String> REQUIRED_COLUMNS = List.of("key", "size", "last_modified_date", "e_tag");

  /**
   * Where a manifest is: {@code s3://bucket/key}, {@code s3a://bucket/key}, {@code dbfs:/path}, {@code file:/path}
   * or an absolute local path. The manifest is read through Hadoop's FileSystem; the data files it names are
   * objects of the destination bucket, read through S3A for an {@code s3a://} manifest, and through
   * {@code s3://} (the platform's S3 filesystem on EMR and Databricks, S3A elsewhere) otherwise.
   *
   * @param uri the location as given (trimmed)
   */
  public record Location(String uri) implements Serializable {
    public Location {
      requireNonNull(uri, "uri is null");
    }

    public static Location parse(String uri) {
      requireNonNull(uri, "uri is null");
      String trimmed = uri.trim();
      if (!LOCATION.matcher(trimmed).matches() && !FILE_LOCATION.matcher(trimmed).matches()) {
        throw new BadSettingsException("not a manifest location such as s3://inventory-bucket/path/manifest.json"
            + " (s3://, s3a://, dbfs:/, file:/ or an absolute local path)");
      }
      return new Location(trimmed);
    }

    /** {@code s3}, {@code s3a}, {@code dbfs} or {@code file} (an absolute local path). */
    public String scheme() {
      return uri.startsWith("/") ? "file" : uri.substring(0, uri.indexOf(':'));
    }

    /** The scheme of the data files' URIs: {@code s3a} with an {@code s3a://} manifest, else {@code s3}. */
    public String dataFileScheme() {
      return scheme().equals("s3a") ? "s3a" : "s3";
    }

    /** The last segment of the path, such as {@code manifest.json}. */
    public String fileName() {
      return uri.substring(uri.lastIndexOf('/') + 1);
    }

    @Override
    public String toString() {
      return uri;
    }
  }

  /** The data-file formats S3 Inventory writes. */
  public enum Format { CSV, ORC, PARQUET }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ORC_FIELD = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*:");
  private static final Pattern PARQUET_FIELD =
      Pattern.compile("(?:required|optional|repeated)\\s+\\w+\\s+([A-Za-z_][A-Za-z0-9_]*)");
  private static final Pattern LOCATION = Pattern.compile("(s3a?)://([^/]+)/(.*[^/])");
  /** A file in DBFS, a local file as a URI, or an absolute local path (a volume on Databricks). */
  private static final Pattern FILE_LOCATION = Pattern.compile("(dbfs:/|file:/|/)(.*[^/])");
  /** A bucket ARN of any partition: aws, aws-cn, aws-us-gov. */
  private static final Pattern BUCKET_ARN = Pattern.compile("arn:[a-z0-9-]+:s3:::(.*)");

  public InventoryManifest {
    requireNonNull(location, "location is null");
    requireNonNull(sourceBucket, "sourceBucket is null");
    requireNonNull(destinationBucket, "destinationBucket is null");
    requireNonNull(format, "format is null");
    requireNonNull(createdAt, "createdAt is null");
    columns = List.copyOf(columns);
    files = List.copyOf(files);
    List<String> present = columns;
    List<String> missing = REQUIRED_COLUMNS.stream().filter(column -> !present.contains(column)).toList();
    if (!missing.isEmpty()) {
      throw new BadSettingsException("Inventory manifest " + location + ": fileSchema has no "
          + String.join(", ", missing) + " column; configure the inventory with the Size, Last modified and ETag"
          + " fields, or use --listing list");
    }
  }

  /**
   * Parses a manifest.
   *
   * @param location where the manifest was read, for messages
   */
  public static InventoryManifest parse(byte[] json, String location) {
    requireNonNull(json, "json is null");
    requireNonNull(location, "location is null");
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new BadSettingsException("Inventory manifest " + location + " is not JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new BadSettingsException("Inventory manifest " + location + " is not a JSON object");
    }
    String sourceBucket = text(root, "sourceBucket", location);
    String destination = text(root, "destinationBucket", location);
    Matcher arn = BUCKET_ARN.matcher(destination);
    String destinationBucket = arn.matches() ? arn.group(1) : destination;
    // Bucket names hold no ':' or '/': anything else is an ARN or path this does not understand.
    if (destinationBucket.isEmpty() || destinationBucket.contains("/") || destinationBucket.contains(":")) {
      throw new BadSettingsException("Inventory manifest " + location + ": destinationBucket '" + destination
          + "' is not a bucket ARN such as arn:aws:s3:::inventory-bucket");
    }
    String formatText = text(root, "fileFormat", location);
    Format format;
    try {
      format = Format.valueOf(formatText.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new BadSettingsException("Inventory manifest " + location + ": fileFormat '" + formatText
          + "' is not CSV, ORC or Parquet", e);
    }
    List<String> columns = columns(format, text(root, "fileSchema", location), location);
    Instant createdAt = createdAt(text(root, "creationTimestamp", location), location);
    JsonNode filesNode = root.get("files");
    if (filesNode == null || !filesNode.isArray()) {
      throw new BadSettingsException("Inventory manifest " + location + ": files is missing or not a list");
    }
    List<String> files = new ArrayList<>();
    for (int i = 0; i < filesNode.size(); i++) {
      JsonNode key = filesNode.get(i).get("key");
      if (key == null || !key.isTextual() || key.asText().isEmpty()) {
        throw new BadSettingsException("Inventory manifest " + location + ": files[" + i + "].key is missing");
      }
      files.add(key.asText());
    }
    return new InventoryManifest(location, sourceBucket, destinationBucket, format, columns, createdAt, files);
  }

  /** Refuses a report of another bucket: its keys would be planned against the wrong archive. */
  public void checkLists(String bucket) {
    if (!sourceBucket.equals(bucket)) {
      throw new BadSettingsException("Inventory manifest " + location + " lists bucket '" + sourceBucket
          + "', not the export's bucket '" + bucket + "'");
    }
  }

  /** The data files as URIs of {@code scheme} ({@code s3}, {@code s3a}) in the destination bucket. */
  public List<String> fileUris(String scheme) {
    return files.stream().map(key -> scheme + "://" + destinationBucket + "/" + key).toList();
  }

  /** Whether the report lists every version: only the latest, not a delete marker, is a live key. */
  public boolean hasVersions() {
    return columns.contains("is_latest");
  }

  /**
   * A CSV report's key: S3 Inventory URL-encodes keys in CSV (a space as {@code +} or {@code %20}, a
   * literal plus as {@code %2B}).
   */
  public static String decodeCsvKey(String encoded) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%') {
        int high = i + 2 < encoded.length() ? Character.digit(encoded.charAt(i + 1), 16) : -1;
        int low = high < 0 ? -1 : Character.digit(encoded.charAt(i + 2), 16);
        if (low < 0) {
          throw new IllegalArgumentException("is not URL-encoded: '%' at " + i + " is not followed by two hex digits");
        }
        bytes.write(high * 16 + low);
        i += 2;
      } else if (c == '+') {
        bytes.write(' ');
      } else {
        int end = Character.isHighSurrogate(c) && i + 1 < encoded.length() ? i + 2 : i + 1;
        bytes.writeBytes(encoded.substring(i, end).getBytes(StandardCharsets.UTF_8));
        i = end - 1;
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("does not decode to UTF-8 text", e);
    }
  }

  /** The ORC/Parquet name of a CSV field: {@code LastModifiedDate} is {@code last_modified_date}, {@code ETag} {@code e_tag}. */
  static String columnName(String csvField) {
    String field = csvField.trim();
    if (field.equals("ETag")) {
      return "e_tag";
    }
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (Character.isUpperCase(c)) {
        if (i > 0 && !Character.isUpperCase(field.charAt(i - 1))) {
          name.append('_');
        }
        name.append(Character.toLowerCase(c));
      } else {
        name.append(c);
      }
    }
    return name.toString();
  }

  private static List<String> columns(Format format, String schema, String location) {
    List<String> columns = new ArrayList<>();
    switch (format) {
      case CSV -> {
        for (String field : schema.split(",")) {
          if (!field.isBlank()) {
            columns.add(columnName(field));
          }
        }
      }
      case ORC -> {
        Matcher matcher = ORC_FIELD.matcher(schema.startsWith("struct<") ? schema.substring("struct<".length()) : schema);
        while (matcher.find()) {
          columns.add(matcher.group(1).toLowerCase(Locale.ROOT));
        }
      }
      case PARQUET -> {
        Matcher matcher = PARQUET_FIELD.matcher(schema);
        while (matcher.find()) {
          columns.add(matcher.group(1).toLowerCase(Locale.ROOT));
        }
      }
      default -> throw new IllegalStateException("unknown format " + format);
    }
    if (columns.isEmpty()) {
      throw new BadSettingsException("Inventory manifest " + location + ": fileSchema '" + schema
          + "' names no columns");
    }
    return columns;
  }

  private static Instant createdAt(String text, String location) {
    try {
      return Instant.ofEpochMilli(Long.parseLong(text.trim()));
    } catch (NumberFormatException e) {
      try {
        return Instant.parse(text.trim());
      } catch (DateTimeParseException notIso) {
        throw new BadSettingsException("Inventory manifest " + location + ": creationTimestamp '" + text
            + "' is neither epoch milliseconds nor an ISO-8601 instant", notIso);
      }
    }
  }

  private static String text(JsonNode root, String field, String location) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      throw new BadSettingsException("Inventory manifest " + location + ": " + field + " is missing");
    }
    if (!node.isValueNode() || node.asText().isBlank()) {
      throw new BadSettingsException("Inventory manifest " + location + ": " + field + " is not a non-empty string");
    }
    return node.asText();
  }
}
