package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The grace periods of a run: one for every record, and overrides by kind folder (drawings 90 days,
 * emails 7). A record without a kind (an organization, an agent, a project itself) takes the global one.
 */
public record Grace(int globalDays, Map<String, Integer> daysByKind) implements Serializable {
  public static final int MAX_DAYS = 36_500;

  /** The grace that applied to a record, and which rule gave it: {@code global} or {@code kind <name>}. */
  public record Applied(int days, String rule) implements Serializable {
    public Duration period() {
      return Duration.ofDays(days);
    }
  }

  public Grace {
    requireNonNull(daysByKind, "daysByKind is null");
    daysByKind = Map.copyOf(new TreeMap<>(daysByKind));
    check(globalDays, "the global grace");
    daysByKind.forEach((kind, days) -> {
      requireNonNull(kind, "kind is null");
      check(days, "the grace of kind " + kind);
    });
  }

  public static Grace of(int globalDays) {
    return new Grace(globalDays, Map.of());
  }

  public Applied forKind(String kind) {
    Integer days = kind == null ? null : daysByKind.get(kind);
    return days == null ? new Applied(globalDays, "global") : new Applied(days, "kind " + kind);
  }

  private static void check(Integer days, String what) {
    requireNonNull(days, what + " is null");
    if (days < 0 || days > MAX_DAYS) {
      throw new IllegalArgumentException(what + " must be from 0 to " + MAX_DAYS + " days: " + days);
    }
  }
}
