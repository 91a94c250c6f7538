package io.statesweep.spark.rows;

import io.statesweep.layout.Keys;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateParser;
import java.sql.Timestamp;
import java.time.Instant;

/**
 * What a {@code state_files} row says of its document. A plan takes a row of an earlier plan instead of a GET
 * when the state file's ETag is unchanged (pipeline/README.md "What a run does"); that table is data anyone who can
 * write it could change, so such a row is taken only when it is what a parse writes, checked by the parser's rules.
 */
public final class StateFileRows {
  /** The status of a row whose document was read and is valid. */
  public static final String READ = "read";
  /** The status of a row whose document was read and is not valid. */
  public static final String BAD_STATE = "bad_state";

  private StateFileRows() {}

  /**
   * The parse a row of status {@code read} or {@code bad_state} records. Never throws: a read row whose fields
   * break a rule of {@link StateParser} is a bad document, naming the field.
   */
  public static ParsedState parsed(StateFileRow row) {
    if (BAD_STATE.equals(row.getStatus())) {
      return new ParsedState(null, row.getMessage() != null ? row.getMessage()
          : "Invalid state file " + row.getKey() + ": its row has no message");
    }
    return StateParser.fromFields(row.getKey(), row.getDelete(), instant(row.getExpiresAt()),
        instant(row.getMarkedAt()), row.getFiles(), row.getDeleteFiles());
  }

  /**
   * Why a row of an earlier plan cannot stand in for reading its state file again, or null when it can: it
   * must be of status {@code read} with fields that pass the parser's rules, or {@code bad_state} with the
   * parser's message. A row that cannot is read again with GET.
   */
  public static String notReusable(StateFileRow row) {
    if (row.getKey() == null || row.getEtag() == null) {
      return "field " + (row.getKey() == null ? "key" : "etag") + " is null";
    }
    if (READ.equals(row.getStatus())) {
      return parsed(row).error();
    }
    if (!BAD_STATE.equals(row.getStatus())) {
      return "field status is not " + READ + " or " + BAD_STATE + ": " + row.getStatus();
    }
    if (row.getMessage() == null) {
      return "field message is null";
    }
    int lone = Keys.firstLoneSurrogate(row.getMessage());
    return lone < 0 ? null : "field message is not valid Unicode: a lone surrogate at character " + lone;
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
