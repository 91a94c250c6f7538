package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.s3.ListingDepth;
import java.io.Serializable;

/** One independent piece of the bucket listing: a prefix and how deep to go under it. */
public record ListingTask(String prefix, ListingDepth depth) implements Serializable {
  public ListingTask {
    requireNonNull(prefix, "prefix is null");
    requireNonNull(depth, "depth is null");
  }
}
