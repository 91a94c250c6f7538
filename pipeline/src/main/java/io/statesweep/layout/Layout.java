package io.statesweep.layout;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.store.FileSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where an exporter writes state files: the table of places and the list of kind folders, loaded
 * from a layout file in {@code conf/layouts/} (pipeline/README.md, "The layout"). Nothing about the bucket's layout is
 * in code, so a new kind is a configuration change.
 *
 * <p>A layout is immutable and serializable (it travels to Spark executors as JSON text).
 */
public final class Layout implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String DEFAULT_NAME = "cogram";

  /** The largest layout file read. */
  public static final int MAX_FILE_BYTES = 1024 * 1024;

  /** The name of a built-in layout, as opposed to a file's location. */
  private static final java.util.regex.Pattern BUILT_IN_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");

  private final String name;
  private final String origin;
  private final String json;
  private final String exporterFolder;
  private final Set<String> kinds;
  private final List<String> markedAtFields;
  private transient List<StatePlace> places;

  private Layout(String name, String origin, String json, String exporterFolder, Set<String> kinds,
      List<String> markedAtFields, List<StatePlace> places) {
    this.name = name;
    this.origin = origin;
    this.json = json;
    this.exporterFolder = exporterFolder;
    this.kinds = kinds;
    this.markedAtFields = markedAtFields;
    this.places = places;
  }

  /** The layout shipped in the jar under {@code layouts/<name>.json} (copied from conf/layouts). */
  public static Layout builtIn(String name) {
    String resource = "layouts/" + name + ".json";
    try (InputStream in = Layout.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new BadSettingsException("Unknown layout '" + name + "': no resource " + resource);
      }
      return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), resource);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read layout resource " + resource, e);
    }
  }

  /** A local layout file, or the name of a built-in layout such as {@code cogram}. */
  public static Layout load(String pathOrName) {
    return load(pathOrName, FileSource.LOCAL);
  }

  /**
   * A layout file read by {@code files} ({@code s3a://bucket/layout.json}, {@code dbfs:/...}, a local path),
   * or the name of a built-in layout such as {@code cogram}: a bare name (no {@code /}, {@code :} or
   * {@code .json}) that is not a local file.
   */
  public static Layout load(String pathOrName, FileSource files) {
    requireNonNull(pathOrName, "pathOrName is null");
    requireNonNull(files, "files is null");
    if (BUILT_IN_NAME.matcher(pathOrName).matches() && !Files.isRegularFile(Path.of(pathOrName))) {
      return builtIn(pathOrName);
    }
    byte[] bytes;
    try {
      bytes = files.read(pathOrName, MAX_FILE_BYTES);
    } catch (IOException e) {
      if (FileSource.isMissing(e)) {
        throw new BadSettingsException("Layout file " + pathOrName + " does not exist", e);
      }
      throw new BadSettingsException("Cannot read layout file " + pathOrName + ": " + FileSource.reason(e), e);
    }
    return parse(new String(bytes, StandardCharsets.UTF_8), pathOrName);
  }

  /** Parses and validates a layout document; every message names the source and the field. */
  public static Layout parse(String json, String source) {
    requireNonNull(json, "json is null");
    requireNonNull(source, "source is null");
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new BadSettingsException("Invalid layout " + source + ": not JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new BadSettingsException("Invalid layout " + source + ": not a JSON object");
    }
    String name = text(root, "name", source);
    String exporterFolder = text(root, "exporter_folder", source);
    if (exporterFolder.contains("/") || !Keys.isPlainSegment(exporterFolder)) {
      throw new BadSettingsException(
          "Invalid layout " + source + ": field exporter_folder must be one folder name, not " + exporterFolder);
    }
    Set<String> kinds = new LinkedHashSet<>();
    for (JsonNode kind : array(root, "kinds", source)) {
      if (!kind.isTextual() || kind.asText().contains("/") || !Keys.isPlainSegment(kind.asText())) {
        throw new BadSettingsException("Invalid layout " + source + ": field kinds has a bad entry " + kind);
      }
      kinds.add(kind.asText());
    }
    List<String> markedAtFields = new ArrayList<>();
    if (root.has("marked_at_fields")) {
      for (JsonNode field : array(root, "marked_at_fields", source)) {
        if (!field.isTextual() || field.asText().isBlank()) {
          throw new BadSettingsException(
              "Invalid layout " + source + ": field marked_at_fields has a bad entry " + field);
        }
        markedAtFields.add(field.asText());
      }
    }
    List<StatePlace> places = new ArrayList<>();
    Set<String> paths = new LinkedHashSet<>();
    int index = 0;
    for (JsonNode place : array(root, "places", source)) {
      String where = "places[" + index++ + "]";
      if (!place.isObject()) {
        throw new BadSettingsException("Invalid layout " + source + ": field " + where + " is not an object");
      }
      String path = text(place, "path", source + " " + where);
      String recordType = text(place, "record_type", source + " " + where);
      if (!paths.add(path)) {
        throw new BadSettingsException("Invalid layout " + source + ": place " + path + " is listed twice");
      }
      try {
        StatePlace parsed = StatePlace.parse(path, recordType);
        if (parsed.folder().isEmpty() && parsed.shape() == RecordShape.FOLDER) {
          throw new BadSettingsException("a state.json at the prefix itself would own the whole export");
        }
        if (!parsed.folder().isEmpty() && exporterFolder.equals(parsed.folder().get(0).literal())) {
          throw new BadSettingsException("it is inside the exporter's folder " + exporterFolder + "/");
        }
        places.add(parsed);
      } catch (IllegalArgumentException e) {
        throw new BadSettingsException("Invalid layout " + source + ": " + where + ": " + e.getMessage(), e);
      }
    }
    if (places.isEmpty()) {
      throw new BadSettingsException("Invalid layout " + source + ": field places is empty");
    }
    return new Layout(name, source, json, exporterFolder, Set.copyOf(kinds), List.copyOf(markedAtFields),
        List.copyOf(places));
  }

  private static String text(JsonNode node, String field, String source) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new BadSettingsException("Invalid layout " + source + ": field " + field + " must be a non-empty string");
    }
    return value.asText();
  }

  private static Iterable<JsonNode> array(JsonNode node, String field, String source) {
    JsonNode value = node.get(field);
    if (value == null || !value.isArray()) {
      throw new BadSettingsException("Invalid layout " + source + ": field " + field + " must be an array");
    }
    return () -> {
      Iterator<JsonNode> elements = value.elements();
      return elements;
    };
  }

  public String name() {
    return name;
  }

  /** The layout document itself, so that a run can record exactly which layout it used. */
  public String json() {
    return json;
  }

  /** A SHA-256 of the layout document: a plan and its execution must use the same layout. */
  public String fingerprint() {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(digest);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Where the layout was read from: a file path or a jar resource. */
  public String origin() {
    return origin;
  }

  public String exporterFolder() {
    return exporterFolder;
  }

  public Set<String> kinds() {
    return kinds;
  }

  /** Fields of a state file that may carry the time a record was marked {@code delete: true}. */
  public List<String> markedAtFields() {
    return markedAtFields;
  }

  List<StatePlace> places() {
    return places;
  }

  /** The first folder of every place, such as {@code projects}: where listing fans out. */
  public Set<String> topFolders() {
    Set<String> top = new LinkedHashSet<>();
    for (StatePlace place : places) {
      if (!place.folder().isEmpty() && !place.folder().get(0).isVariable()) {
        top.add(place.folder().get(0).literal());
      }
    }
    return top;
  }

  public KeyClassifier classifier(ExportPrefix prefix) {
    return new KeyClassifier(this, prefix);
  }

  private Object readResolve() {
    return parse(json, origin);
  }
}
