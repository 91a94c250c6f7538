package io.statesweep.spark.rows;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.state.ParsedState;
import io.statesweep.state.StateParser;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A state_files row of an earlier plan stands in for a GET only when it is what a parse writes, by the parser's
 * own rules (pipeline/README.md "What a run does").
 */
class StateFileRowsTest {
  private static final String FOLDER = "cogram/projects/p1/documents/d1/";
  private static final String KEY = FOLDER + "state.json";
  private static final String JSON = "{\"delete\": true, \"expires_at\": \"2026-01-01T00:00:00Z\", \"deleted_at\":"
      + " \"2026-02-01T00:00:00Z\", \"files\": [\"" + FOLDER + "doc.pdf\", \"" + FOLDER + "page.png\"],"
      + " \"delete_files\": [\"" + FOLDER + "old.pdf\"]}";
  private static final String PREFIX = "Invalid state file " + KEY + ": ";

  @Test
  void aRowAsAParseWritesItIsReusedAsThatParse() {
    ParsedState parse = new StateParser(List.of("deleted_at")).parse(KEY, JSON.getBytes(StandardCharsets.UTF_8));

    assertThat(StateFileRows.notReusable(readRow())).isNull();
    assertThat(StateFileRows.parsed(readRow())).isEqualTo(parse);
    assertThat(parse.isValid()).isTrue();
  }

  @Test
  void aBadStateRowWithItsMessageIsReusedAsThatMessage() {
    StateFileRow row = badRow("Invalid state file " + KEY + ": not JSON: Unexpected end-of-input");

    assertThat(StateFileRows.notReusable(row)).isNull();
    assertThat(StateFileRows.parsed(row)).isEqualTo(new ParsedState(null,
        "Invalid state file " + KEY + ": not JSON: Unexpected end-of-input"));
  }

  static Stream<Arguments> rowsNoParseWrites() {
    return Stream.of(
        changed(row -> row.setKey(null), "field key is null"),
        changed(row -> row.setEtag(null), "field etag is null"),
        changed(row -> row.setStatus(null), "field status is not read or bad_state: null"),
        changed(row -> row.setStatus("listed"), "field status is not read or bad_state: listed"),
        changed(row -> row.setDelete(null), PREFIX + "field delete is null"),
        changed(row -> row.setFiles(null), PREFIX + "field files is null"),
        changed(row -> row.setFiles(Arrays.asList(FOLDER + "doc.pdf", null)), PREFIX + "field files[1] is null"),
        changed(row -> row.setFiles(Arrays.asList((String) null)), PREFIX + "field files[0] is null"),
        changed(row -> row.setFiles(List.of(FOLDER + "a\ud800b.pdf")),
            PREFIX + "field files[0] is not valid Unicode: a lone surrogate \\ud800 at character 33"),
        changed(row -> row.setDeleteFiles(null), PREFIX + "field delete_files is null"),
        changed(row -> row.setDeleteFiles(Arrays.asList(FOLDER + "old.pdf", null)),
            PREFIX + "field delete_files[1] is null"),
        changed(row -> row.setDeleteFiles(List.of("\udfff")),
            PREFIX + "field delete_files[0] is not valid Unicode: a lone surrogate \\udfff at character 0"),
        changed(row -> row.setExpiresAt(timestamp("+10000-01-01T00:00:00Z")), PREFIX + "field expires_at is outside"
            + " 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"+10000-01-01T00:00:00Z\""),
        changed(row -> row.setExpiresAt(timestamp("0001-01-01T00:00:00Z")), PREFIX + "field expires_at is outside"
            + " 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"0001-01-01T00:00:00Z\""),
        changed(row -> row.setMarkedAt(timestamp("1899-12-31T23:59:59Z")), PREFIX + "field marked_at is outside"
            + " 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"1899-12-31T23:59:59Z\""),
        changed(row -> {
          row.setStatus("bad_state");
          row.setMessage(null);
        }, "field message is null"),
        changed(row -> {
          row.setStatus("bad_state");
          row.setMessage("Invalid state file \ud800");
        }, "field message is not valid Unicode: a lone surrogate at character 19"));
  }

  private static Arguments changed(Consumer<StateFileRow> change, String why) {
    return Arguments.of(why, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rowsNoParseWrites")
  void aRowNoParseWritesIsNotReused(String why, Consumer<StateFileRow> change) {
    StateFileRow row = readRow();
    change.accept(row);

    assertThat(StateFileRows.notReusable(row)).isEqualTo(why);
  }

  /** Planning never throws on such a row either: a read row that breaks a rule plans as a bad document. */
  @Test
  void aReadRowThatBreaksARuleParsesAsABadDocument() {
    StateFileRow row = readRow();
    row.setFiles(new ArrayList<>(Arrays.asList(FOLDER + "doc.pdf", null)));

    assertThat(StateFileRows.parsed(row)).isEqualTo(new ParsedState(null, PREFIX + "field files[1] is null"));
    assertThat(StateFileRows.parsed(badRow(null)))
        .isEqualTo(new ParsedState(null, "Invalid state file " + KEY + ": its row has no message"));
  }

  /** The row that {@code plan} writes for {@link #JSON}. */
  private static StateFileRow readRow() {
    StateFileRow row = new StateFileRow();
    row.setRunId("20260602T000000Z-abcdef");
    row.setRunDate("2026-06-02");
    row.setKey(KEY);
    row.setStatus("read");
    row.setEtag("\"e-state\"");
    row.setLastModified(timestamp("2026-03-01T00:00:00Z"));
    row.setSize((long) JSON.length());
    row.setDelete(true);
    row.setExpiresAt(timestamp("2026-01-01T00:00:00Z"));
    row.setMarkedAt(timestamp("2026-02-01T00:00:00Z"));
    row.setFiles(List.of(FOLDER + "doc.pdf", FOLDER + "page.png"));
    row.setDeleteFiles(List.of(FOLDER + "old.pdf"));
    row.setRawJson(JSON);
    return row;
  }

  private static StateFileRow badRow(String message) {
    StateFileRow row = readRow();
    row.setStatus("bad_state");
    row.setMessage(message);
    row.setDelete(null);
    row.setExpiresAt(null);
    row.setMarkedAt(null);
    row.setFiles(null);
    row.setDeleteFiles(null);
    return row;
  }

  private static Timestamp timestamp(String instant) {
    return Timestamp.from(Instant.parse(instant));
  }
}
