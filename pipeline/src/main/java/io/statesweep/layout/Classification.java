package io.statesweep.layout;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.TreeMap;

/** What a listed key is, according to a layout: a state file, a skipped key, or a plain file. */
public sealed interface Classification {

  String key();

  /** A state file at one of the layout's places: the record it describes. */
  record StateFile(
      String key, String recordType, String kind, Map<String, String> ids, RecordShape shape, String scope)
      implements Classification {
    public StateFile {
      requireNonNull(key, "key is null");
      requireNonNull(recordType, "recordType is null");
      requireNonNull(kind, "kind is null");
      ids = java.util.Collections.unmodifiableMap(new TreeMap<>(ids));
      requireNonNull(shape, "shape is null");
      requireNonNull(scope, "scope is null");
    }

    /**
     * For a folder record, its folder with the trailing slash; for a single-file record, the one key
     * it may list (its sibling {@code <id>.json}).
     */
    @Override
    public String scope() {
      return scope;
    }
  }

  /**
   * A key named like a state file that is not read as one, with the reason. {@code recordBoundary}
   * is true when it stands at a state-file place whose kind folder the layout does not know: it is
   * most likely a record of a new kind, so its folder is not given to any other record.
   */
  record Skipped(String key, String reason, boolean recordBoundary) implements Classification {
    public Skipped {
      requireNonNull(key, "key is null");
      requireNonNull(reason, "reason is null");
    }
  }

  /** Any other key: a file that a record may own. */
  record PlainFile(String key) implements Classification {
    public PlainFile {
      requireNonNull(key, "key is null");
    }
  }
}
