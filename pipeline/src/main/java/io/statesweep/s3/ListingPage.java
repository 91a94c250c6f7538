package io.statesweep.s3;

import io.statesweep.plan.StoredObject;
import java.util.List;

/** One page of a listing: its objects in key order, and whether more follow. */
public record ListingPage(List<StoredObject> objects, boolean truncated) {
  public ListingPage {
    objects = List.copyOf(objects);
  }
}
