package io.statesweep.state;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.layout.Keys;
import java.io.IOException;
import java.io.Serializable;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses state files tolerantly: unknown fields are fine, but a document that is not a JSON object,
 * or whose used fields have the wrong type, is a bad state file with a message that names the key and
 * the field (for example {@code Invalid state file p/state.json: field expires_at is not an ISO-8601
 * timestamp with a zone: "soon"}). It never throws on bad input.
 *
 * <p>Used fields: {@code delete} (boolean; absent or null means false), {@code expires_at} (ISO-8601
 * timestamp with a zone offset, or null), {@code files} and {@code delete_files} (arrays of strings;
 * absent or null means empty) and the layout's marked-at fields (timestamps, or null).
 *
 * <p>Every used value is validated here, once, before it can reach a row, a table or a request, and
 * never repaired (pipeline/README.md, "Hostile input"): a timestamp outside {@link #EARLIEST} .. {@link #LATEST} (what
 * every table can hold: Spark's timestamps overflow past year 294247, Parquet refuses dates before 1900 by default) and
 * a string that is not valid Unicode (a lone UTF-16 surrogate, which any encoder would turn into {@code ?} or U+FFFD:
 * another key) make the document bad, naming the field.
 */
public final class StateParser implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * What a parse yields, as a version: bump it whenever the same document may parse differently.
   * Incremental plans reuse parsed state files only from plans of this version (version 2 refuses
   * timestamps outside the tables' range and strings that are not valid Unicode, which version 1 let
   * through, and which its tables stored altered: a lone surrogate as {@code ?}).
   */
  public static final String VERSION = "2";

  /** Documents larger than this are bad state files rather than memory pressure. */
  public static final int DEFAULT_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

  private static final int MAX_NESTING_DEPTH = 200;

  /** The earliest timestamp a state document may hold. */
  public static final Instant EARLIEST = Instant.parse("1900-01-01T00:00:00Z");

  /** The latest timestamp a state document may hold. */
  public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

  private final List<String> markedAtFields;
  private transient ObjectMapper mapper;

  public StateParser(List<String> markedAtFields) {
    this.markedAtFields = List.copyOf(requireNonNull(markedAtFields, "markedAtFields is null"));
  }

  private ObjectMapper mapper() {
    if (mapper == null) {
      JsonFactory factory = JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
          .build();
      mapper = new ObjectMapper(factory)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }
    return mapper;
  }

  public ParsedState parse(String key, byte[] content) {
    requireNonNull(key, "key is null");
    String prefix = "Invalid state file " + key + ": ";
    if (content == null || content.length == 0) {
      return ParsedState.bad(prefix + "the document is empty");
    }
    JsonNode root;
    try {
      root = mapper().readTree(content);
    } catch (JsonProcessingException e) {
      return ParsedState.bad(prefix + "not JSON: " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      return ParsedState.bad(prefix + "cannot be read: " + firstLine(e.getMessage()));
    }
    if (root == null || root.isMissingNode()) {
      return ParsedState.bad(prefix + "the document is empty");
    }
    if (!root.isObject()) {
      return ParsedState.bad(prefix + "the document is not a JSON object but " + describe(root));
    }
    try {
      boolean delete = readDelete(root);
      Instant expiresAt = readTimestamp(root, "expires_at");
      Instant markedAt = null;
      for (String field : markedAtFields) {
        Instant value = readTimestamp(root, field);
        if (markedAt == null) {
          markedAt = value;
        }
      }
      List<String> files = readKeys(root, "files");
      List<String> deleteFiles = readKeys(root, "delete_files");
      return ParsedState.ok(new StateDocument(delete, expiresAt, markedAt, files, deleteFiles));
    } catch (FieldException e) {
      return ParsedState.bad(prefix + e.getMessage());
    }
  }

  private static boolean readDelete(JsonNode root) throws FieldException {
    JsonNode value = root.get("delete");
    if (value == null || value.isNull()) {
      return false;
    }
    if (!value.isBoolean()) {
      throw new FieldException("field delete is not a boolean but " + describe(value));
    }
    return value.booleanValue();
  }

  private static Instant readTimestamp(JsonNode root, String field) throws FieldException {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw new FieldException("field " + field + " is not a timestamp string but " + describe(value));
    }
    requireUnicode(field, value.textValue());
    Instant instant;
    try {
      instant = OffsetDateTime.parse(value.textValue(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new FieldException("field " + field + " is not an ISO-8601 timestamp with a zone: " + quote(value.textValue()));
    }
    requireInRange(field, instant, value.textValue());
    return instant;
  }

  private static void requireInRange(String field, Instant instant, String text) throws FieldException {
    if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
      throw new FieldException("field " + field + " is outside " + EARLIEST + " .. " + LATEST + ": " + quote(text));
    }
  }

  /**
   * The document that fields already taken apart say (a {@code state_files} row of an earlier plan, reused
   * for an unchanged ETag: pipeline/README.md "What a run does"), checked by the rules of {@link #parse}: timestamps in
   * range, strings valid Unicode, and nothing null that a parse never leaves null ({@code delete}, the lists, their
   * keys). Never throws on bad values: the error names the field, as a parse's does.
   */
  public static ParsedState fromFields(String key, Boolean delete, Instant expiresAt, Instant markedAt,
      List<String> files, List<String> deleteFiles) {
    requireNonNull(key, "key is null");
    try {
      if (delete == null) {
        throw new FieldException("field delete is null");
      }
      if (expiresAt != null) {
        requireInRange("expires_at", expiresAt, expiresAt.toString());
      }
      if (markedAt != null) {
        requireInRange("marked_at", markedAt, markedAt.toString());
      }
      requireKeys("files", files);
      requireKeys("delete_files", deleteFiles);
      return ParsedState.ok(new StateDocument(delete, expiresAt, markedAt, files, deleteFiles));
    } catch (FieldException e) {
      return ParsedState.bad("Invalid state file " + key + ": " + e.getMessage());
    }
  }

  private static void requireKeys(String field, List<String> keys) throws FieldException {
    if (keys == null) {
      throw new FieldException("field " + field + " is null");
    }
    for (int i = 0; i < keys.size(); i++) {
      if (keys.get(i) == null) {
        throw new FieldException("field " + field + "[" + i + "] is null");
      }
      requireUnicode(field + "[" + i + "]", keys.get(i));
    }
  }

  /**
   * Refuses a string that is not valid Unicode: a high surrogate not followed by a low one, or a low
   * surrogate not preceded by a high one. JSON's {@code \ud800} escapes produce them.
   */
  private static void requireUnicode(String field, String text) throws FieldException {
    int lone = Keys.firstLoneSurrogate(text);
    if (lone >= 0) {
      throw new FieldException("field " + field + " is not valid Unicode: a lone surrogate "
          + String.format("\\u%04x", (int) text.charAt(lone)) + " at character " + lone);
    }
  }

  private static List<String> readKeys(JsonNode root, String field) throws FieldException {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw new FieldException("field " + field + " is not an array but " + describe(value));
    }
    List<String> keys = new ArrayList<>(value.size());
    for (int i = 0; i < value.size(); i++) {
      JsonNode entry = value.get(i);
      if (!entry.isTextual()) {
        throw new FieldException("field " + field + "[" + i + "] is not a string but " + describe(entry));
      }
      requireUnicode(field + "[" + i + "]", entry.textValue());
      keys.add(entry.textValue());
    }
    return keys;
  }

  private static String describe(JsonNode node) {
    String type = switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case BOOLEAN -> "a boolean";
      case NUMBER -> "a number";
      case STRING -> "a string";
      case NULL -> "null";
      default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
    if (node.isNull()) {
      return "null";
    }
    if (node.isValueNode()) {
      String text = node.toString();
      return type + " (" + (text.length() > 60 ? text.substring(0, 60) + "..." : text) + ")";
    }
    return type;
  }

  private static String quote(String text) {
    if (text.length() <= 60) {
      return "\"" + text + "\"";
    }
    int end = Character.isHighSurrogate(text.charAt(59)) ? 59 : 60; // never cut a surrogate pair in two
    return "\"" + text.substring(0, end) + "...\"";
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static final class FieldException extends Exception {
    private static final long serialVersionUID = 1L;

    FieldException(String message) {
      super(message, null, false, false);
    }
  }
}
