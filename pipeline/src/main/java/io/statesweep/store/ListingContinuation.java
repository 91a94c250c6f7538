package io.statesweep.store;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.Set;

/**
 * Follows one listing's continuation tokens and refuses to stop early or to loop: a truncated page
 * goes on with its token, whether or not it held keys (S3 answers empty truncated pages over runs of
 * delete markers). A truncated page without a token, or a token the listing was already given, is a
 * store error: the listing fails, naming what it listed, rather than end short of the rest of the keys
 * (a plan that missed keys would still say complete) or never end.
 */
public final class ListingContinuation {
  private final String listing;
  private final Set<String> tokens = new HashSet<>();
  private int pages;

  /** {@code listing} names what is listed in messages, e.g. {@code s3://bucket/prefix}. */
  public ListingContinuation(String listing) {
    this.listing = requireNonNull(listing, "listing is null");
  }

  /** The token that lists the page after this one, or null when this page was the last. */
  public String next(boolean truncated, String nextToken) {
    pages++;
    if (!truncated) {
      return null;
    }
    if (nextToken == null || nextToken.isEmpty()) {
      throw new StoreException("Cannot list " + listing + ": page " + pages
          + " is truncated but has no continuation token, so the keys after it cannot be listed",
          "NoContinuationToken", null);
    }
    if (!tokens.add(nextToken)) {
      throw new StoreException("Cannot list " + listing + ": page " + pages + " answered the continuation token "
          + nextToken + " a second time, so the listing would never end", "RepeatedContinuationToken", null);
    }
    return nextToken;
  }

  /** Pages answered so far. */
  public int pages() {
    return pages;
  }
}
