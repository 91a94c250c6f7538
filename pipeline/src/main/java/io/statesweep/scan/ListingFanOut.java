package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.store.ListingDepth;
import io.statesweep.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Splits the listing of an export prefix into independent tasks that together cover every key under
 * it exactly once, except the exporter's own folder, which is never listed.
 *
 * <p>The split follows the layout: the prefix's own objects are one task; each top folder of the
 * layout ({@code projects/}, {@code workflows/}, ...) is listed one level down with a delimiter, so
 * that each of its sub-folders (one per project, workflow, kind ...) is a task of its own; any other
 * folder is one task. Only folder names reach the driver, never the keys: each level is listed a page
 * at a time, its objects counted and dropped, so the driver's memory does not grow with the objects directly
 * under the prefix or under a top folder.
 */
public final class ListingFanOut {
  private final ObjectStore store;
  private final KeyClassifier classifier;

  public ListingFanOut(ObjectStore store, KeyClassifier classifier) {
    this.store = requireNonNull(store, "store is null");
    this.classifier = requireNonNull(classifier, "classifier is null");
  }

  public List<ListingTask> tasks() {
    String prefix = classifier.prefix().value();
    Set<String> topFolders = classifier.layout().topFolders();
    List<ListingTask> tasks = new ArrayList<>();
    List<String> folders = new ArrayList<>();
    if (store.listLevel(prefix, folders::add) > 0) {
      tasks.add(new ListingTask(prefix, ListingDepth.DIRECT));
    }
    for (String folder : folders) {
      if (folder.equals(classifier.exporterFolderKey())) {
        continue;
      }
      String name = Keys.name(folder.substring(0, folder.length() - 1));
      if (!topFolders.contains(name)) {
        tasks.add(new ListingTask(folder, ListingDepth.RECURSIVE));
        continue;
      }
      // The level's own objects are one task, listed before its sub-folders' tasks (the order of the tasks).
      List<ListingTask> subFolders = new ArrayList<>();
      if (store.listLevel(folder, subFolder -> subFolders.add(new ListingTask(subFolder, ListingDepth.RECURSIVE))) > 0) {
        tasks.add(new ListingTask(folder, ListingDepth.DIRECT));
      }
      tasks.addAll(subFolders);
    }
    return tasks;
  }
}
