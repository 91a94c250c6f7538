package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Classification;
import io.statesweep.plan.StoredObject;
import io.statesweep.state.ParsedState;

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
}
