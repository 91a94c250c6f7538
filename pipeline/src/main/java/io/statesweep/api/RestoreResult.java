package io.statesweep.api;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.LineText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a restore did ({@link RestoreAction}; pipeline/README.md, "Undoing a run"): its counts, its summary line, the
 * first of its per-key lines, its metrics and what became of the run lock. Immutable; keys left alone are counts, not
 * failures.
 *
 * @param restoreId the restore's own id (a run id: {@code yyyyMMddTHHmmssZ-<6 hex>}), the {@code restore_id} of its
 *     rows of {@code restorations}
 * @param runId the run undone
 * @param record the one state file restored ({@code --record}), or null for every record of the run
 * @param complete whether every record of the run was looked at
 * @param log the first {@link LogLine#RESULT_SAMPLE} per-key lines ({@code would restore}, {@code restored},
 *     {@code left})
 * @param failure why the restore did not complete, or null
 */
public record RestoreResult(String restoreId, String runId, String record, boolean dryRun, boolean complete,
    Counts counts, Tables tables, List<LogLine> log, Map<LogLine.Kind, Long> lineCounts, String failure,
    LockOutcome runLock, Metrics metrics) {

  /** The command's name, in its metrics and its summary's stopped runs. */
  public static final String COMMAND = "restore";

  /**
   * The keys a restore looked at, by what became of each (in a dry run: what would).
   *
   * @param keys every deleted key of the run (of the record) looked at, each once
   * @param restored its delete marker was the latest version and is removed: the version it hid is current again
   * @param writtenSince something was written above the marker since: that newer version stays current
   * @param alreadyRestored an earlier restore of the run restored it, and that version is still current
   * @param notRestored left deleted: deleted again since, no marker recorded, or a failure (named in its line)
   * @param errors requests to the store that failed (counted in {@code notRestored} too)
   */
  public record Counts(long keys, long restored, long writtenSince, long alreadyRestored, long notRestored,
      long errors) {
    public static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0);

    /** The counts by name, as the summary line and the metrics name them. */
    public Map<String, Long> byName() {
      Map<String, Long> byName = new LinkedHashMap<>();
      byName.put("restored", restored);
      byName.put("written_since", writtenSince);
      byName.put("already_restored", alreadyRestored);
      byName.put("not_restored", notRestored);
      byName.put("keys", keys);
      byName.put("errors", errors);
      return byName;
    }
  }

  public RestoreResult {
    requireNonNull(restoreId, "restoreId is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(counts, "counts is null");
    requireNonNull(tables, "tables is null");
    requireNonNull(runLock, "runLock is null");
    requireNonNull(metrics, "metrics is null");
    log = List.copyOf(log);
    lineCounts = Map.copyOf(lineCounts);
  }

  /**
   * The summary line (pipeline/README.md, "Undoing a run"): {@code summary: dry_run=... complete=... restored=N
   * written_since=N already_restored=N not_restored=N keys=N errors=N run_id=R restore_id=X}, then {@code record=K} for
   * one record and the run lock's pairs ({@link LockOutcome#appliedTo}).
   */
  public String summaryLine() {
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("run_id", runId);
    extra.put("restore_id", restoreId);
    if (record != null) {
      extra.put("record", record);
    }
    if (runLock.conditionalWrites() != io.statesweep.store.ConditionProbe.Verdict.HONOURED) {
      extra.put("conditional_writes", runLock.conditionalWrites().label());
    }
    switch (runLock.status()) {
      case NONE -> extra.put("run_lock", "none");
      case UNSAFE -> extra.put("run_lock", "unsafe");
      case LOST -> extra.put("run_lock", "lost");
      case HELD -> { }
    }
    return line(dryRun, complete, counts, extra);
  }

  /** The summary line of a restore stopped before it looked at any key: {@code stopped=<reason>} after the counts. */
  public static String stoppedLine(boolean dryRun, String reason, long errors) {
    requireNonNull(reason, "reason is null");
    Counts none = new Counts(0, 0, 0, 0, 0, errors);
    return line(dryRun, false, none, Map.of("stopped", reason));
  }

  private static String line(boolean dryRun, boolean complete, Counts counts, Map<String, String> extra) {
    StringBuilder line = new StringBuilder("summary: dry_run=").append(dryRun).append(" complete=").append(complete);
    counts.byName().forEach((name, count) -> line.append(' ').append(name).append('=').append(count));
    extra.forEach((name, value) -> line.append(' ').append(name).append('=').append(LineText.escape(value)));
    return line.toString();
  }

  /** 0 for a complete restore without errors that kept its run lock to the end; else 1. */
  public int exitCode() {
    return runLock.lost() || !complete || counts.errors() > 0 ? 1 : 0;
  }

  /** The kept log lines as printed. */
  public List<String> logLines() {
    return log.stream().map(LogLine::text).toList();
  }

  /** How many lines of {@code kind} went to the sink. */
  public long lineCount(LogLine.Kind kind) {
    return lineCounts.getOrDefault(kind, 0L);
  }
}
