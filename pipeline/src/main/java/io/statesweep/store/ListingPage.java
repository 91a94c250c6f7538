package io.statesweep.store;

import java.util.List;

/**
 * One page of a listing: its objects in key order, whether more follow, and the continuation token
 * that lists them ({@code nextToken}, null on a last page). A truncated page may hold no object at all
 * (S3 answers such pages over runs of delete markers): only the token says where the listing goes on.
 */
public record ListingPage(List<StoredObject> objects, boolean truncated, String nextToken) {
  public ListingPage {
    objects = List.copyOf(objects);
  }
}
