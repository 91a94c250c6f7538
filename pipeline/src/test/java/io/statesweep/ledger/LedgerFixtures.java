package io.statesweep.ledger;

import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A record of a meeting, its intent and its outcomes, as the ledger's tests share them. */
public final class LedgerFixtures {
  public static final Instant VERIFIED = Instant.parse("2026-12-01T06:00:00Z");
  public static final Instant INTENDED = Instant.parse("2026-12-01T06:00:01Z");
  public static final Instant ANSWERED = Instant.parse("2026-12-01T06:00:02Z");
  public static final String STATE = "cogram/projects/p1/meetings/m1/state.json";
  public static final String MINUTES = "cogram/projects/p1/meetings/m1/minutes.pdf";
  public static final String AUDIO = "cogram/projects/p1/meetings/m1/audio.m4a";
  public static final String ROOT = LedgerKeys.root("cogram/");
  public static final String ATTEMPT = LedgerKeys.attempt(ROOT, "20261201T060000Z-aaaaaa", "20261201T060500Z-bbbbbb");

  private LedgerFixtures() {}

  public static LedgerEntry.Header header(long taskAttempt, int window, Instant at) {
    return new LedgerEntry.Header("20261201T060000Z-aaaaaa", "2026-12-01", "20261201T060500Z-bbbbbb",
        "s3a://reports/statesweep", 3, taskAttempt, window, at);
  }

  /** The meeting's intent: its two files, then its state file. */
  public static DeleteJournal.IntendedRecord meetingIntent(int keysAlreadyGone) {
    return new DeleteJournal.IntendedRecord(STATE, Action.DELETE_RECORD, "state-etag", List.of(
        new DeleteJournal.IntendedKey(MINUTES, DeleteRole.FILE, "minutes-etag"),
        new DeleteJournal.IntendedKey(AUDIO, DeleteRole.FILE, "audio-etag"),
        new DeleteJournal.IntendedKey(STATE, DeleteRole.STATE_FILE, "state-etag")), keysAlreadyGone, VERIFIED);
  }

  /** An outcome of the meeting that deleted {@code files} (and its state file, for {@code DELETED}). */
  public static ExecutionOutcome meetingOutcome(Outcome outcome, int keysAlreadyGone, Instant endedAt, String... files) {
    List<DeletedKey> deleted = new ArrayList<>();
    for (String file : files) {
      deleted.add(new DeletedKey(file, DeleteRole.FILE, file.equals(MINUTES) ? "minutes-etag" : "audio-etag",
          ANSWERED));
    }
    boolean state = outcome == Outcome.DELETED;
    if (state) {
      deleted.add(new DeletedKey(STATE, DeleteRole.STATE_FILE, "state-etag", ANSWERED));
    }
    return new ExecutionOutcome(STATE, Action.DELETE_RECORD, outcome, outcome.label() + " as the test says",
        files.length, state, keysAlreadyGone, List.of(), VERIFIED, endedAt, deleted, null);
  }
}
