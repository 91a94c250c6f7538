package io.statesweep.store;

import java.util.List;

/** One level of a folder: its sub-folders (with trailing slashes) and the objects directly in it. */
public record FolderListing(List<String> folders, List<StoredObject> objects) {
  public FolderListing {
    folders = List.copyOf(folders);
    objects = List.copyOf(objects);
  }
}
