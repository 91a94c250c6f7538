package io.statesweep.scan;

import io.statesweep.store.ListingPage;

/**
 * Lists one page (up to 1,000 keys) under a prefix: the seam that tests fake, and that
 * {@link io.statesweep.store.ObjectStore#listPage} provides. The first page of a
 * listing starts after {@code startAfter} (null: at the prefix's first key) and has no
 * {@code continuationToken}; every later page passes the token the page before it answered (and S3
 * then ignores {@code startAfter}).
 */
public interface PageSource {
  ListingPage page(String prefix, String startAfter, String continuationToken);
}
