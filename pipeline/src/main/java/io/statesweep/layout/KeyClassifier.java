package io.statesweep.layout;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Classifies keys of one export prefix against a {@link Layout}: which keys are state files (and of
 * which record), which are skipped with a reason, and which state files could own a key.
 */
public final class KeyClassifier implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Layout layout;
  private final ExportPrefix prefix;

  KeyClassifier(Layout layout, ExportPrefix prefix) {
    this.layout = requireNonNull(layout, "layout is null");
    this.prefix = requireNonNull(prefix, "prefix is null");
  }

  public Layout layout() {
    return layout;
  }

  public ExportPrefix prefix() {
    return prefix;
  }

  /** The exporter's own folder under the prefix, such as {@code cogram/_cogram/}: never read, never deleted. */
  public String exporterFolderKey() {
    return prefix.value() + layout.exporterFolder() + "/";
  }

  public boolean isInExporterFolder(String key) {
    return key.startsWith(exporterFolderKey());
  }

  public Classification classify(String key) {
    requireNonNull(key, "key is null");
    if (!prefix.contains(key)) {
      return new Classification.Skipped(key, "outside the export prefix " + prefix, false);
    }
    if (isInExporterFolder(key)) {
      return new Classification.Skipped(
          key, "inside the exporter's own folder " + layout.exporterFolder() + "/, which is never read", false);
    }
    if (!Keys.isStateFileName(key)) {
      return new Classification.PlainFile(key);
    }
    String[] segments = prefix.relative(key).split("/", -1);
    StatePlace best = null;
    Map<String, String> bestIds = null;
    String bestKind = null;
    for (StatePlace place : layout.places()) {
      if (segments.length != place.folder().size() + 1) {
        continue;
      }
      Map<String, String> ids = new LinkedHashMap<>();
      String kind = place.matchFolder(segments, ids);
      if (kind == null || !matchesName(place, segments[segments.length - 1], ids)) {
        continue;
      }
      if (best == null || place.literalCount() > best.literalCount()) {
        best = place;
        bestIds = ids;
        bestKind = kind;
      }
    }
    if (best == null) {
      return new Classification.Skipped(
          key, "a file named like a state file where layout " + layout.name() + " has no state file", false);
    }
    if (best.folder().stream().anyMatch(StatePlace.Segment::isKind) && !layout.kinds().contains(bestKind)) {
      return new Classification.Skipped(key, "unknown kind folder '" + bestKind + "': layout " + layout.name()
          + " does not list it (add it to the layout's kinds to clean it)", true);
    }
    String folder = Keys.folder(key);
    String scope = best.shape() == RecordShape.FOLDER
        ? folder
        : folder + bestIds.get(best.idName()) + ".json";
    return new Classification.StateFile(key, best.recordType(), bestKind, bestIds, best.shape(), scope);
  }

  private static boolean matchesName(StatePlace place, String name, Map<String, String> ids) {
    if (place.shape() == RecordShape.FOLDER) {
      return name.equals(StatePlace.STATE_FILE_NAME);
    }
    if (!name.endsWith(StatePlace.STATE_FILE_SUFFIX)) {
      return false;
    }
    String id = name.substring(0, name.length() - StatePlace.STATE_FILE_SUFFIX.length());
    if (!Keys.isPlainSegment(id)) {
      return false;
    }
    ids.put(place.idName(), id);
    return true;
  }

  /**
   * Why a state file may not list {@code key}, or null when the key's own shape and place allow it
   * (README, "Actions (one per record)"): no empty, {@code .} or {@code ..} segments; inside the prefix; not in the
   * exporter's folder; not a state file itself; a {@code <id>.state.json} lists only its sibling
   * {@code <id>.json}, a {@code state.json} only keys inside its folder. Whether another record owns
   * the key needs the listing, and is the caller's to check.
   */
  public String listingRefusal(Classification.StateFile stateFile, String key) {
    String shape = Keys.shapeProblem(key);
    if (shape != null) {
      return shape;
    }
    if (!prefix.contains(key)) {
      return "it is outside the export prefix " + prefix;
    }
    if (isInExporterFolder(key)) {
      return "it is inside the exporter's own folder " + exporterFolderKey();
    }
    if (isRecordBoundary(key)) {
      return "it is the state file of another record";
    }
    if (stateFile.shape() == RecordShape.SINGLE_FILE && !key.equals(stateFile.scope())) {
      return Keys.name(stateFile.key()) + " may list only its sibling " + stateFile.scope();
    }
    if (stateFile.shape() == RecordShape.FOLDER && !key.startsWith(stateFile.scope())) {
      return "it is outside the record's folder " + stateFile.scope();
    }
    return null;
  }

  /**
   * True when the key stands at a state-file place, known kind or not: a record's own state file,
   * which no other record may list and whose folder no other record may reach into.
   */
  public boolean isRecordBoundary(String key) {
    Classification classification = classify(key);
    return classification instanceof Classification.StateFile
        || classification instanceof Classification.Skipped skipped && skipped.recordBoundary();
  }

  /**
   * The state files that would own {@code key} if they exist, from the layout's places: the
   * {@code state.json} of every enclosing record folder and, for {@code <id>.json}, the
   * {@code <id>.state.json} beside it. The closest owner has the highest depth. The key itself is
   * never its own candidate.
   */
  public List<OwnerCandidate> ownerCandidates(String key) {
    requireNonNull(key, "key is null");
    List<OwnerCandidate> candidates = new ArrayList<>();
    if (!prefix.contains(key) || isInExporterFolder(key)) {
      return candidates;
    }
    String[] segments = prefix.relative(key).split("/", -1);
    for (StatePlace place : layout.places()) {
      int folderSize = place.folder().size();
      if (place.matchFolder(segments, null) == null) {
        continue;
      }
      String folder = prefix.value() + joinFirst(segments, folderSize);
      if (place.shape() == RecordShape.FOLDER) {
        if (segments.length >= folderSize + 1) {
          addCandidate(candidates, key, folder + StatePlace.STATE_FILE_NAME, 2 * folderSize);
        }
      } else if (segments.length == folderSize + 1) {
        String name = segments[folderSize];
        if (name.endsWith(".json") && !Keys.isStateFileName(name)) {
          String id = name.substring(0, name.length() - ".json".length());
          if (Keys.isPlainSegment(id)) {
            addCandidate(candidates, key, folder + id + StatePlace.STATE_FILE_SUFFIX, 2 * folderSize + 1);
          }
        }
      }
    }
    return candidates;
  }

  private static void addCandidate(List<OwnerCandidate> candidates, String key, String stateFileKey, int depth) {
    if (stateFileKey.equals(key)) {
      return;
    }
    for (OwnerCandidate existing : candidates) {
      if (existing.stateFileKey().equals(stateFileKey)) {
        return;
      }
    }
    candidates.add(new OwnerCandidate(stateFileKey, depth));
  }

  private static String joinFirst(String[] segments, int count) {
    StringBuilder folder = new StringBuilder();
    for (int i = 0; i < count; i++) {
      folder.append(segments[i]).append('/');
    }
    return folder.toString();
  }
}
