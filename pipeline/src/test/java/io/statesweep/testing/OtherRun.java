package io.statesweep.testing;

import io.statesweep.store.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Another statesweep run, as far as the run lock shows it: {@code statesweep execute (pid 2)} on host-b. */
public final class OtherRun {
  private OtherRun() {}

  /**
   * Writes the other run's lock document over {@code key}, as a run that took the lock over would, valid
   * for ten minutes; returns how the lock describes its holder.
   */
  public static String replaceLock(ObjectStore store, String key) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant expiry = now.plus(Duration.ofMinutes(10));
    String document = "{\"owner\":\"statesweep execute (pid 2)\",\"host\":\"host-b\",\"started_at\":\"" + now
        + "\",\"expires_at\":\"" + expiry + "\",\"tool\":\"statesweep\"}";
    store.write(key, document.getBytes(StandardCharsets.UTF_8));
    return "statesweep execute (pid 2) on host-b since " + now + " (lock valid until " + expiry
        + ", renewed while that run lasts)";
  }
}
