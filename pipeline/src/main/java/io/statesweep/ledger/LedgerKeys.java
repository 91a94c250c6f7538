package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an execute's ledger lives: statesweep's own folder beside the export prefix, as the run lock's
 * ({@code cogram.statesweep/journal/<run>/<attempt>/p<partition>/}; {@code .statesweep/journal/} at the bucket
 * root), never inside the export or the exporter's {@code _cogram/}. Each task attempt writes, per window, an
 * intent ({@code t<task>-w<window>-intent.json}) before its first delete and its outcomes
 * ({@code t<task>-w<window>-outcomes.json}) after; sorted by key, a window's intent comes right before its outcomes.
 */
public final class LedgerKeys {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern ENTRY = Pattern.compile("t(\\d+)-w(\\d+)-(intent|outcomes)\\.json");

  private LedgerKeys() {}

  /** The kinds of ledger objects. */
  public enum Kind {
    INTENT,
    OUTCOMES;

    String suffix() {
      return this == INTENT ? "intent" : "outcomes";
    }
  }

  /** The name of one ledger object in its partition's folder. */
  public record EntryName(long taskAttempt, int window, Kind kind) {}

  /** The ledger's folder of an export prefix ({@code cogram/} gives {@code cogram.statesweep/journal/}). */
  public static String root(String prefix) {
    requireNonNull(prefix, "prefix is null");
    return (prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1)) + ".statesweep/journal/";
  }

  /** The folder of one attempt of a run. */
  public static String attempt(String root, String runId, String attemptId) {
    return root + id("run id", runId) + "/" + id("attempt id", attemptId) + "/";
  }

  /** The folder of one partition of an attempt's delete stage. */
  public static String partition(String attemptFolder, int partition) {
    if (partition < 0) {
      throw new IllegalArgumentException("partition is negative: " + partition);
    }
    return attemptFolder + String.format("p%05d/", partition);
  }

  /** One ledger object of a task attempt's window. */
  public static String entry(String partitionFolder, long taskAttempt, int window, Kind kind) {
    return partitionFolder + String.format("t%d-w%06d-%s.json", taskAttempt, window, kind.suffix());
  }

  /** The name of a ledger object, or null when {@code key} is not one. */
  public static EntryName parse(String key) {
    Matcher matcher = ENTRY.matcher(key.substring(key.lastIndexOf('/') + 1));
    if (!matcher.matches()) {
      return null;
    }
    return new EntryName(Long.parseLong(matcher.group(1)), Integer.parseInt(matcher.group(2)),
        matcher.group(3).equals("intent") ? Kind.INTENT : Kind.OUTCOMES);
  }

  /** The last segment of a folder ({@code .../journal/R1/} gives {@code R1}). */
  public static String lastSegment(String folder) {
    String trimmed = folder.endsWith("/") ? folder.substring(0, folder.length() - 1) : folder;
    return trimmed.substring(trimmed.lastIndexOf('/') + 1);
  }

  private static String id(String what, String value) {
    requireNonNull(value, what + " is null");
    if (!ID.matcher(value).matches()) {
      throw new IllegalArgumentException("Invalid " + what + " '" + value
          + "': it names a folder of the ledger, so it may hold only letters, digits, '.', '_' and '-'");
    }
    return value;
  }
}
