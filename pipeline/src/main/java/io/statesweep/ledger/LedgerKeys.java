package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an execute's ledger lives: statesweep's own folder beside the export prefix, as the run lock's
 * ({@code cogram.statesweep/journal/<run>/<attempt>/p<partition>/}; {@code .statesweep/journal/} at the bucket
 * root), never inside the export or the exporter's {@code _cogram/}. Each task attempt writes, per window, an
 * intent before each group of its deletes ({@code t<task>-w<window>-intent-g<group>-p<part>.json}) and its outcomes
 * after ({@code t<task>-w<window>-outcomes-p<part>.json}), each in as many parts as its size needs
 * ({@link LedgerCodec#PART_BYTES}); every object of a window shares the prefix {@code t<task>-w<window>-}, so sorted
 * by key a window's objects come together, its intents before its outcomes. A ledger of an earlier statesweep has one
 * object of each, without group or part ({@code t<task>-w<window>-intent.json}): read as group 1, part 1 of 1.
 */
public final class LedgerKeys {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern ENTRY =
      Pattern.compile("t(\\d{1,18})-w(\\d{1,9})-(?:intent(?:-g(\\d{1,9})-p(\\d{1,9}))?|outcomes(?:-p(\\d{1,9}))?)\\.json");

  private LedgerKeys() {}

  /** The kinds of ledger objects. */
  public enum Kind {
    INTENT,
    OUTCOMES
  }

  /**
   * The name of one ledger object in its partition's folder.
   *
   * @param group for an intent, which of its window's groups of deletes it is of (from 1); 1 for outcomes
   * @param part which part of its intent or outcomes it holds (from 1)
   */
  public record EntryName(long taskAttempt, int window, Kind kind, int group, int part) {}

  /** The ledger's folder of an export prefix ({@code cogram/} gives {@code cogram.statesweep/journal/}). */
  public static String root(String prefix) {
    requireNonNull(prefix, "prefix is null");
    return (prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1)) + ".statesweep/journal/";
  }

  /** The folder of one run's attempts. */
  public static String run(String root, String runId) {
    return root + id("run id", runId) + "/";
  }

  /** The folder of one attempt of a run. */
  public static String attempt(String root, String runId, String attemptId) {
    return run(root, runId) + id("attempt id", attemptId) + "/";
  }

  /** The folder of one partition of an attempt's delete stage. */
  public static String partition(String attemptFolder, int partition) {
    if (partition < 0) {
      throw new IllegalArgumentException("partition is negative: " + partition);
    }
    return attemptFolder + String.format("p%05d/", partition);
  }

  /** One part of a window's outcomes. */
  public static String outcomes(String partitionFolder, long taskAttempt, int window, int part) {
    return partitionFolder + String.format("t%d-w%06d-outcomes-p%05d.json", taskAttempt, window, part);
  }

  /** One part of the intent of a window's {@code group}-th group of deletes. */
  public static String intent(String partitionFolder, long taskAttempt, int window, int group, int part) {
    return partitionFolder + String.format("t%d-w%06d-intent-g%04d-p%05d.json", taskAttempt, window, group, part);
  }

  /** The name of a ledger object, or null when {@code key} is not one. */
  public static EntryName parse(String key) {
    Matcher matcher = ENTRY.matcher(key.substring(key.lastIndexOf('/') + 1));
    if (!matcher.matches()) {
      return null;
    }
    boolean outcomes = matcher.group(0).contains("-outcomes");
    String part = outcomes ? matcher.group(5) : matcher.group(4);
    return new EntryName(Long.parseLong(matcher.group(1)), Integer.parseInt(matcher.group(2)),
        outcomes ? Kind.OUTCOMES : Kind.INTENT, matcher.group(3) == null ? 1 : Integer.parseInt(matcher.group(3)),
        part == null ? 1 : Integer.parseInt(part));
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
