package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.state.ParsedState;
import io.statesweep.store.StoredObject;

/**
 * The outcome of reading one state file: read and parsed (valid or bad), gone since it was listed,
 * or failed (an error of the store, counted in the run's errors).
 */
public record StateFileRead(
    Classification.StateFile stateFile, Status status, StoredObject object, String json, ParsedState parsed,
    String error) {

  public enum Status { READ, GONE, FAILED }

  public StateFileRead {
    requireNonNull(stateFile, "stateFile is null");
    requireNonNull(status, "status is null");
    if (status == Status.READ && (object == null || parsed == null)) {
      throw new IllegalArgumentException("a read state file needs its object and its parsed document");
    }
    if (status == Status.FAILED && error == null) {
      throw new IllegalArgumentException("a failed read needs its error");
    }
  }

  /**
   * The state file as the plan compares it with its files, whose times all come from the listing: the
   * {@code listed} object when the GET found the same ETag. One source, one precision: S3 lists
   * LastModified in milliseconds but its Last-Modified header has whole seconds, so a state file of
   * 10:00:00.700 read by GET (10:00:00) would look older than its file of 10:00:00.300, and its record
   * would be kept as coming back on every run.
   *
   * <p>When the ETags differ, the state file was rewritten between the listing and the GET: the read
   * object stays, as the version whose document was parsed (execution checks that ETag). Its header
   * time is the new version's, truncated: never later than when it was written, so it can only make
   * files look newer, and the record is at worst kept one run longer (the next listing sees this
   * version). The listed time, of the older version, would be a time this document never had.
   *
   * @return the object to plan with; null unless the state file was read
   */
  public StoredObject objectOnListingClock(StoredObject listed) {
    if (status != Status.READ) {
      return null;
    }
    return listed != null && listed.key().equals(object.key()) && listed.etag().equals(object.etag())
        ? listed
        : object;
  }
}
