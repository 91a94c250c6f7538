package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.s3.FolderListing;
import io.statesweep.s3.ListingDepth;
import io.statesweep.s3.ObjectStore;
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
 * folder is one task. Only folder names reach the driver, never the keys.
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
    FolderListing root = store.listFolder(prefix);
    if (!root.objects().isEmpty()) {
      tasks.add(new ListingTask(prefix, ListingDepth.DIRECT));
    }
    for (String folder : root.folders()) {
      if (folder.equals(classifier.exporterFolderKey())) {
        continue;
      }
      String name = Keys.name(folder.substring(0, folder.length() - 1));
      if (!topFolders.contains(name)) {
        tasks.add(new ListingTask(folder, ListingDepth.RECURSIVE));
        continue;
      }
      FolderListing level = store.listFolder(folder);
      if (!level.objects().isEmpty()) {
        tasks.add(new ListingTask(folder, ListingDepth.DIRECT));
      }
      for (String subFolder : level.folders()) {
        tasks.add(new ListingTask(subFolder, ListingDepth.RECURSIVE));
      }
    }
    return tasks;
  }
}
