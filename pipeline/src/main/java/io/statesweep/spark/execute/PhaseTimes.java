package io.statesweep.spark.execute;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** How long each phase of an attempt took, in seconds, in the order they ran: a phase ends as the next begins. */
public final class PhaseTimes {
  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private long start = System.nanoTime();

  /** Ends {@code phase} now; the next one begins. */
  public void end(String phase) {
    seconds.put(phase, (System.nanoTime() - start) / 1e9);
    start = System.nanoTime();
  }

  /** The phases ended so far, in order. */
  public Map<String, Double> seconds() {
    return Collections.unmodifiableMap(seconds);
  }
}
