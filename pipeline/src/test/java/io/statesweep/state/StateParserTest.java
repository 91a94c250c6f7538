package io.statesweep.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The state-file parser's rules (pipeline/README.md, "What a run does" and "Hostile input"), case by case, and a
 * property over 5,000 random documents: a valid parse holds only keys that survive UTF-8 unchanged and timestamps
 * within the tables' range.
 */
class StateParserTest {

  private static final String KEY = "cogram/projects/p1/meetings/m1/state.json";
  private static final String BAD = "Invalid state file " + KEY + ": ";

  private final StateParser parser = new StateParser(List.of("deleted_at"));

  private ParsedState parse(String json) {
    return parser.parse(KEY, json.getBytes(StandardCharsets.UTF_8));
  }

  private StateDocument document(String json) {
    ParsedState parsed = parse(json);
    assertThat(parsed.error()).isNull();
    assertThat(parsed.isValid()).isTrue();
    return parsed.document();
  }

  private String error(String json) {
    ParsedState parsed = parse(json);
    assertThat(parsed.isValid()).isFalse();
    assertThat(parsed.document()).isNull();
    return parsed.error();
  }

  @Test
  void readsTheUsedFieldsAndToleratesUnknownOnes() {
    StateDocument document = document("""
        {"status": "deleted", "delete": true, "expires_at": "2025-03-01T10:00:00Z",
         "deleted_at": "2025-02-01T08:30:00Z", "updated": {"by": ["x", 1, null]}, "version": 3,
         "files": ["cogram/projects/p1/meetings/m1/meeting.json", "cogram/projects/p1/meetings/m1/audio.m4a"],
         "delete_files": ["cogram/projects/p1/meetings/m1/old.pdf"]}""");

    assertThat(document).isEqualTo(new StateDocument(true, Instant.parse("2025-03-01T10:00:00Z"),
        Instant.parse("2025-02-01T08:30:00Z"),
        List.of("cogram/projects/p1/meetings/m1/meeting.json", "cogram/projects/p1/meetings/m1/audio.m4a"),
        List.of("cogram/projects/p1/meetings/m1/old.pdf")));
  }

  @Test
  void absentFieldsMeanALiveRecordThatListsNothing() {
    assertThat(document("{}")).isEqualTo(new StateDocument(false, null, null, List.of(), List.of()));
  }

  @Test
  void nullFieldsAreReadAsAbsent() {
    assertThat(document("{\"delete\": null, \"expires_at\": null, \"deleted_at\": null, \"files\": null,"
        + " \"delete_files\": null}")).isEqualTo(new StateDocument(false, null, null, List.of(), List.of()));
  }

  @Test
  void listsKeepTheDocumentsOrderAndDuplicates() {
    assertThat(document("{\"files\": [\"b\", \"a\", \"b\"]}").files()).containsExactly("b", "a", "b");
  }

  @Test
  void expiresAtWithAnOffsetIsReadAsTheSameInstant() {
    assertThat(document("{\"expires_at\": \"2025-03-01T12:00:00+02:00\"}").expiresAt())
        .isEqualTo(Instant.parse("2025-03-01T10:00:00Z"));
  }

  @Test
  void expiresAtWithFractionalSecondsIsRead() {
    assertThat(document("{\"expires_at\": \"2025-03-01T10:00:00.123456+00:00\"}").expiresAt())
        .isEqualTo(Instant.parse("2025-03-01T10:00:00.123456Z"));
  }

  @Test
  void firstMarkedAtFieldOfTheLayoutThatHasAValueWins() {
    StateParser twoFields = new StateParser(List.of("deleted_at", "removed_at"));
    byte[] onlySecond = "{\"deleted_at\": null, \"removed_at\": \"2025-01-02T00:00:00Z\"}".getBytes(StandardCharsets.UTF_8);
    byte[] both = "{\"deleted_at\": \"2025-01-01T00:00:00Z\", \"removed_at\": \"2025-01-02T00:00:00Z\"}"
        .getBytes(StandardCharsets.UTF_8);

    assertThat(twoFields.parse(KEY, onlySecond).document().markedAt()).isEqualTo(Instant.parse("2025-01-02T00:00:00Z"));
    assertThat(twoFields.parse(KEY, both).document().markedAt()).isEqualTo(Instant.parse("2025-01-01T00:00:00Z"));
  }

  @Test
  void markedAtFieldThatTheLayoutDoesNotNameIsAnUnknownField() {
    ParsedState parsed = new StateParser(List.of()).parse(KEY, "{\"deleted_at\": 5}".getBytes(StandardCharsets.UTF_8));

    assertThat(parsed.isValid()).isTrue();
    assertThat(parsed.document().markedAt()).isNull();
  }

  // Bad documents: a message that names the key and the field, never an exception.

  @Test
  void notJsonIsABadStateFile() {
    assertThat(error("hello")).isEqualTo(BAD + "not JSON: Unrecognized token 'hello': was expecting"
        + " (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
  }

  @Test
  void truncatedJsonIsABadStateFile() {
    assertThat(error("{\"delete\": true,")).startsWith(BAD + "not JSON: ");
  }

  @Test
  void invalidUtf8IsABadStateFile() {
    ParsedState parsed = parser.parse(KEY, new byte[] {'{', '"', (byte) 0xff, '"', ':', '1', '}'});

    assertThat(parsed.error()).startsWith(BAD + "not JSON: ");
  }

  @Test
  void emptyDocumentIsABadStateFile() {
    assertThat(parser.parse(KEY, new byte[0]).error()).isEqualTo(BAD + "the document is empty");
    assertThat(parser.parse(KEY, null).error()).isEqualTo(BAD + "the document is empty");
  }

  @Test
  void whitespaceOnlyDocumentIsEmpty() {
    assertThat(error(" \n\t ")).isEqualTo(BAD + "the document is empty");
  }

  @Test
  void topLevelArrayIsNotAStateFile() {
    assertThat(error("[{\"delete\": true}]")).isEqualTo(BAD + "the document is not a JSON object but an array");
  }

  @Test
  void topLevelStringIsNotAStateFile() {
    assertThat(error("\"active\"")).isEqualTo(BAD + "the document is not a JSON object but a string (\"active\")");
  }

  @Test
  void deleteAsAStringIsABadStateFile() {
    assertThat(error("{\"delete\": \"true\"}")).isEqualTo(BAD + "field delete is not a boolean but a string (\"true\")");
  }

  @Test
  void deleteAsANumberIsABadStateFile() {
    assertThat(error("{\"delete\": 1}")).isEqualTo(BAD + "field delete is not a boolean but a number (1)");
  }

  @Test
  void expiresAtAsANumberIsABadStateFile() {
    assertThat(error("{\"expires_at\": 1735689600}"))
        .isEqualTo(BAD + "field expires_at is not a timestamp string but a number (1735689600)");
  }

  @Test
  void unparseableExpiresAtIsABadStateFile() {
    assertThat(error("{\"expires_at\": \"soon\"}"))
        .isEqualTo(BAD + "field expires_at is not an ISO-8601 timestamp with a zone: \"soon\"");
  }

  @Test
  void expiresAtWithoutAZoneIsABadStateFile() {
    assertThat(error("{\"expires_at\": \"2025-03-01T10:00:00\"}"))
        .isEqualTo(BAD + "field expires_at is not an ISO-8601 timestamp with a zone: \"2025-03-01T10:00:00\"");
  }

  @Test
  void expiresAtAsADateOnlyIsABadStateFile() {
    assertThat(error("{\"expires_at\": \"2025-03-01\"}"))
        .isEqualTo(BAD + "field expires_at is not an ISO-8601 timestamp with a zone: \"2025-03-01\"");
  }

  @Test
  void longBadValuesAreShortenedInTheMessage() {
    String longText = "x".repeat(100);

    assertThat(error("{\"expires_at\": \"" + longText + "\"}")).isEqualTo(
        BAD + "field expires_at is not an ISO-8601 timestamp with a zone: \"" + "x".repeat(60) + "...\"");
  }

  @Test
  void aTimestampBeyondWhatATableCanHoldIsABadStateFile() {
    assertThat(error("{\"expires_at\": \"+999999999-12-31T23:59:59Z\"}")).isEqualTo(BAD
        + "field expires_at is outside 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"+999999999-12-31T23:59:59Z\"");
    assertThat(error("{\"expires_at\": \"+10000-01-01T00:00:00Z\"}")).startsWith(BAD + "field expires_at is outside ");
    assertThat(error("{\"expires_at\": \"9999-12-31T23:59:59.9991Z\"}")).startsWith(BAD + "field expires_at is outside ");
    assertThat(error("{\"expires_at\": \"9999-12-31T23:00:00-01:00\"}")).startsWith(BAD + "field expires_at is outside ");
  }

  @Test
  void aZeroTimeOrANegativeYearIsABadStateFile() {
    assertThat(error("{\"expires_at\": \"0001-01-01T00:00:00Z\"}")).isEqualTo(BAD
        + "field expires_at is outside 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"0001-01-01T00:00:00Z\"");
    assertThat(error("{\"expires_at\": \"-000001-01-01T00:00:00Z\"}")).startsWith(BAD + "field expires_at is outside ");
    assertThat(error("{\"expires_at\": \"1899-12-31T23:59:59.999Z\"}")).startsWith(BAD + "field expires_at is outside ");
    assertThat(error("{\"delete\": true, \"deleted_at\": \"0001-01-01T00:00:00Z\"}"))
        .startsWith(BAD + "field deleted_at is outside ");
  }

  @Test
  void theEdgesOfTheTimestampRangeAreRead() {
    assertThat(document("{\"expires_at\": \"1900-01-01T00:00:00Z\"}").expiresAt())
        .isEqualTo(Instant.parse("1900-01-01T00:00:00Z"));
    assertThat(document("{\"expires_at\": \"9999-12-31T23:59:59.999Z\"}").expiresAt())
        .isEqualTo(Instant.parse("9999-12-31T23:59:59.999Z"));
    assertThat(document("{\"expires_at\": \"1900-01-01T02:00:00+02:00\"}").expiresAt())
        .isEqualTo(Instant.parse("1900-01-01T00:00:00Z"));
  }

  @Test
  void aLoneSurrogateInAKeyIsABadStateFileNamingTheEntry() {
    assertThat(error("{\"delete_files\": [\"cogram/a.pdf\", \"cogram/projects/p1/meetings/m1/a\\ud800b.pdf\"]}"))
        .isEqualTo(BAD + "field delete_files[1] is not valid Unicode: a lone surrogate \\ud800 at character 32");
    assertThat(error("{\"files\": [\"x\\udc00\"]}"))
        .isEqualTo(BAD + "field files[0] is not valid Unicode: a lone surrogate \\udc00 at character 1");
    assertThat(error("{\"files\": [\"\\udc00\\ud800\"]}"))
        .isEqualTo(BAD + "field files[0] is not valid Unicode: a lone surrogate \\udc00 at character 0");
    assertThat(error("{\"files\": [\"x\\ud800\"]}"))
        .isEqualTo(BAD + "field files[0] is not valid Unicode: a lone surrogate \\ud800 at character 1");
  }

  @Test
  void aLoneSurrogateInATimestampIsABadStateFileNamingTheField() {
    assertThat(error("{\"expires_at\": \"2025-03-01T10:00:00Z\\ud800\"}"))
        .isEqualTo(BAD + "field expires_at is not valid Unicode: a lone surrogate \\ud800 at character 20");
  }

  @Test
  void surrogatePairsAndEveryOtherCharacterAreKeptExactly() {
    String key = "cogram/projects/p1/meetings/m1/\ud83d\ude00 \u0001\r\n\uffff\ufffd\u00e9e\u0301.pdf";
    String escaped = "cogram/projects/p1/meetings/m1/\\ud83d\\ude00 \\u0001\\r\\n\\uffff\\ufffd\\u00e9e\\u0301.pdf";

    assertThat(document("{\"files\": [\"" + escaped + "\"]}").files()).containsExactly(key);
    assertThat(document("{\"files\": [\"" + escaped + "\"]}").files().get(0)).isEqualTo(key);
  }

  @Test
  void aSurrogateWrittenAsRawUtf8BytesIsABadStateFile() {
    // ED A0 80 would be U+D800 in UTF-8, which UTF-8 does not allow.
    byte[] content = {'{', '"', 'f', 'i', 'l', 'e', 's', '"', ':', '[', '"', 'a', (byte) 0xed, (byte) 0xa0,
        (byte) 0x80, '"', ']', '}'};

    ParsedState parsed = parser.parse(KEY, content);

    assertThat(parsed.isValid()).as("%s", parsed).isFalse();
  }

  @Test
  void aLongBadValueIsNeverCutInsideASurrogatePair() {
    String value = "x".repeat(59) + "\ud83d\ude00" + "y".repeat(10);

    assertThat(error("{\"expires_at\": \"" + value + "\"}")).isEqualTo(
        BAD + "field expires_at is not an ISO-8601 timestamp with a zone: \"" + "x".repeat(59) + "...\"");
  }

  /**
   * Property: whatever the document holds (random strings from all of Unicode, escaped or raw, lone
   * surrogates included, and timestamps of any year), a valid parse holds only values every table and
   * request can carry unchanged: keys that survive UTF-8 exactly, timestamps within the range.
   */
  @Test
  void everyValidDocumentHoldsOnlyValuesThatSurviveUtf8AndFitTheTables() {
    java.util.Random random = new java.util.Random(12);
    String[] pieces = {"a", "/", "\\ud800", "\\udfff", "\\ud83d\\ude00", "\ud83d\ude00", "\\u0001", "\\r", "\\n",
        "\u00e9", "e\u0301", "\\uffff", "\ufffd", "?", "\\\\", "\\\"", " ", "\u4e2d", "\\u0000"};
    String[] times = {"2025-01-01T00:00:00Z", "+999999999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
        "1899-12-31T23:59:59Z", "1900-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "+10000-01-01T00:00:00Z",
        "-000001-01-01T00:00:00Z", "2025-01-01T00:00:00\\ud800Z", "1900-01-01T00:59:59+01:00"};
    int valid = 0;
    int bad = 0;
    for (int i = 0; i < 5_000; i++) {
      StringBuilder json = new StringBuilder("{\"delete\": ").append(random.nextBoolean());
      json.append(", \"expires_at\": \"").append(times[random.nextInt(times.length)]).append('"');
      for (String field : List.of("files", "delete_files")) {
        json.append(", \"").append(field).append("\": [");
        int keys = random.nextInt(3);
        for (int k = 0; k < keys; k++) {
          json.append(k == 0 ? "\"" : ", \"");
          int length = 1 + random.nextInt(6);
          for (int p = 0; p < length; p++) {
            json.append(pieces[random.nextInt(pieces.length)]);
          }
          json.append('"');
        }
        json.append(']');
      }
      json.append('}');
      ParsedState parsed = parse(json.toString());
      if (!parsed.isValid()) {
        bad++;
        assertThat(parsed.error()).startsWith(BAD);
        continue;
      }
      valid++;
      StateDocument document = parsed.document();
      assertThat(document.expiresAt()).isBetween(StateParser.EARLIEST, StateParser.LATEST);
      for (String key : concat(document.files(), document.deleteFiles())) {
        assertThat(new String(key.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
            .as("%s survives UTF-8", json).isEqualTo(key);
      }
    }
    assertThat(valid).isGreaterThan(500);
    assertThat(bad).isGreaterThan(500);
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  @Test
  void unparseableMarkedAtFieldIsABadStateFile() {
    assertThat(error("{\"delete\": true, \"deleted_at\": \"yesterday\"}"))
        .isEqualTo(BAD + "field deleted_at is not an ISO-8601 timestamp with a zone: \"yesterday\"");
  }

  @Test
  void filesThatAreNotAnArrayAreABadStateFile() {
    assertThat(error("{\"files\": \"cogram/a.pdf\"}"))
        .isEqualTo(BAD + "field files is not an array but a string (\"cogram/a.pdf\")");
    assertThat(error("{\"files\": {\"a\": 1}}")).isEqualTo(BAD + "field files is not an array but an object");
  }

  @Test
  void aFilesEntryThatIsNotAStringIsNamedByItsIndex() {
    assertThat(error("{\"files\": [\"a\", \"b\", \"c\", 42]}"))
        .isEqualTo(BAD + "field files[3] is not a string but a number (42)");
  }

  @Test
  void aDeleteFilesEntryThatIsAnObjectIsNamedByItsIndex() {
    assertThat(error("{\"delete_files\": [{\"key\": \"a\"}]}"))
        .isEqualTo(BAD + "field delete_files[0] is not a string but an object");
  }

  @Test
  void aNullEntryInFilesIsABadStateFile() {
    assertThat(error("{\"files\": [\"a\", null]}")).startsWith(BAD + "field files[1] is not a string but null");
  }

  @Test
  void duplicatedFieldNamesAreABadStateFile() {
    assertThat(error("{\"delete\": false, \"files\": [], \"delete\": true}"))
        .isEqualTo(BAD + "not JSON: Duplicate field 'delete'");
  }

  @Test
  void nestingDeeperThan200LevelsIsABadStateFile() {
    String deep = "{\"extra\": " + "[".repeat(200) + "]".repeat(200) + "}";

    assertThat(error(deep))
        .isEqualTo(BAD + "not JSON: Depth (201) exceeds the maximum allowed nesting depth (200)");
  }

  @Test
  void nestingOf200LevelsIsFine() {
    String deep = "{\"extra\": " + "[".repeat(199) + "]".repeat(199) + ", \"delete\": true}";

    assertThat(document(deep).delete()).isTrue();
  }

  @Test
  void trailingDocumentAfterTheObjectIsABadStateFile() {
    assertThat(error("{\"delete\": false} {\"delete\": true}")).startsWith(BAD + "not JSON: Trailing token");
  }

  @Test
  void trailingGarbageAfterTheObjectIsABadStateFile() {
    assertThat(error("{\"delete\": false} garbage")).startsWith(BAD + "not JSON: ");
  }

  @Test
  void messagesNameTheKeyTheyWereGiven() {
    ParsedState parsed = parser.parse("cogram/workflows/w1/runs/r1.state.json", "{\"delete\": 0}".getBytes(StandardCharsets.UTF_8));

    assertThat(parsed.error())
        .isEqualTo("Invalid state file cogram/workflows/w1/runs/r1.state.json: field delete is not a boolean but a number (0)");
  }

  @Test
  void parserSurvivesJavaSerialization() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    parser.parse(KEY, "{}".getBytes(StandardCharsets.UTF_8));
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(parser);
    }
    StateParser copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (StateParser) in.readObject();
    }

    ParsedState parsed = copy.parse(KEY, "{\"delete\": true, \"deleted_at\": \"2025-01-01T00:00:00Z\"}"
        .getBytes(StandardCharsets.UTF_8));

    assertThat(parsed.document().markedAt()).isEqualTo(Instant.parse("2025-01-01T00:00:00Z"));
  }

  @Test
  void parsedStateHoldsExactlyOneOfDocumentAndError() {
    StateDocument document = new StateDocument(false, null, null, List.of(), List.of());

    assertThatThrownBy(() -> new ParsedState(document, "bad"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("exactly one of document and error must be set");
    assertThatThrownBy(() -> new ParsedState(null, null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
