package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;

/** The identity and clock of one run: every row it writes carries its id and date; "now" is fixed at its start. */
public record RunContext(String runId, String runDate, Instant now, int graceDays) implements Serializable {
  private static final DateTimeFormatter ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  public RunContext {
    requireNonNull(runId, "runId is null");
    requireNonNull(runDate, "runDate is null");
    requireNonNull(now, "now is null");
  }

  /** A new run at {@code now}: its id sorts by time, such as {@code 20261129T204415Z-3f9a1c}. */
  public static RunContext start(Instant now, int graceDays) {
    String suffix = String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    return new RunContext(ID_TIME.format(now) + "-" + suffix, now.atZone(ZoneOffset.UTC).toLocalDate().toString(),
        now, graceDays);
  }
}
