package io.statesweep.layout;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One row of the layout's table of state-file places, such as
 * {@code projects/{project}/{kind}/{record}/state.json}.
 *
 * <p>Segments are literals, {@code {name}} (one segment, any id) or {@code {kind}} (one segment that
 * must be one of the layout's kinds). The last segment is either {@code state.json} (a folder record)
 * or {@code {name}.state.json} (a single-file record that owns its sibling {@code <name>.json}).
 */
record StatePlace(String path, String recordType, List<Segment> folder, RecordShape shape, String idName) {

  static final String KIND = "kind";
  static final String STATE_FILE_NAME = "state.json";
  static final String STATE_FILE_SUFFIX = ".state.json";

  StatePlace {
    requireNonNull(path, "path is null");
    requireNonNull(recordType, "recordType is null");
    folder = List.copyOf(folder);
    requireNonNull(shape, "shape is null");
  }

  /** One directory segment of a place pattern. */
  record Segment(String literal, String variable) {
    boolean isVariable() {
      return variable != null;
    }

    boolean isKind() {
      return KIND.equals(variable);
    }
  }

  static StatePlace parse(String path, String recordType) {
    if (path == null || path.isBlank()) {
      throw new BadSettingsException("place path is empty");
    }
    if (recordType == null || recordType.isBlank()) {
      throw new BadSettingsException("place " + path + " has no record_type");
    }
    String[] parts = path.split("/", -1);
    List<Segment> folder = new ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < parts.length - 1; i++) {
      String part = parts[i];
      if (part.isEmpty()) {
        throw new BadSettingsException("place " + path + " has an empty segment");
      }
      if (part.startsWith("{") && part.endsWith("}")) {
        String name = part.substring(1, part.length() - 1);
        if (name.isEmpty() || !seen.add(name)) {
          throw new BadSettingsException("place " + path + " has an empty or repeated variable " + part);
        }
        folder.add(new Segment(null, name));
      } else if (part.contains("{") || part.contains("}")) {
        throw new BadSettingsException("place " + path + ": a variable must be a whole segment: " + part);
      } else {
        folder.add(new Segment(part, null));
      }
    }
    String last = parts[parts.length - 1];
    if (last.equals(STATE_FILE_NAME)) {
      return new StatePlace(path, recordType, folder, RecordShape.FOLDER, null);
    }
    if (last.startsWith("{") && last.endsWith("}" + STATE_FILE_SUFFIX)) {
      String name = last.substring(1, last.length() - ("}" + STATE_FILE_SUFFIX).length());
      if (name.isEmpty() || !seen.add(name) || name.equals(KIND)) {
        throw new BadSettingsException("place " + path + " has a bad id variable in " + last);
      }
      return new StatePlace(path, recordType, folder, RecordShape.SINGLE_FILE, name);
    }
    throw new BadSettingsException(
        "place " + path + " must end with state.json or {id}.state.json, not " + last);
  }

  int literalCount() {
    int count = 0;
    for (Segment segment : folder) {
      if (!segment.isVariable()) {
        count++;
      }
    }
    return count;
  }

  /**
   * Matches the directory segments {@code segments[0..folder.size())} and fills {@code ids}; returns
   * the kind segment's value ("" when the place has none), or null when they do not match.
   */
  String matchFolder(String[] segments, Map<String, String> ids) {
    if (segments.length < folder.size()) {
      return null;
    }
    String kind = "";
    for (int i = 0; i < folder.size(); i++) {
      Segment segment = folder.get(i);
      String value = segments[i];
      if (segment.isVariable()) {
        if (!Keys.isPlainSegment(value)) {
          return null;
        }
        if (segment.isKind()) {
          kind = value;
        }
        if (ids != null) {
          ids.put(segment.variable(), value);
        }
      } else if (!segment.literal().equals(value)) {
        return null;
      }
    }
    return kind;
  }
}
