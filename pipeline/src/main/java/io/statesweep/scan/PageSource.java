package io.statesweep.scan;

import io.statesweep.s3.ListingPage;

/** Lists one page (up to 1,000 keys) under a prefix after a key: the seam that tests fake. */
public interface PageSource {
  ListingPage page(String prefix, String startAfter);
}
