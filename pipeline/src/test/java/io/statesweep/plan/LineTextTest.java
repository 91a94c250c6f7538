package io.statesweep.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.layout.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A key is data in a printed line: {@link LineText#escape} keeps one line one line and gives every text back.
 *
 * <p>Hostile strings: U+0000, DEL, C1 controls, U+2028, U+FEFF, bidirectional controls, lone surrogates, backslashes, a
 * key that is exactly {@code \nsummary: ...}. And over 5,000 random strings of all of Unicode: nothing escaped breaks
 * a line, and every text comes back.
 */
class LineTextTest {
  /** What readers of a log take for the end of a line: Java's, Python's, JavaScript's and Unicode's line breaks. */
  private static final String LINE_BREAKS = "\n\r\u000b\f\u001c\u001d\u001e\u0085\u2028\u2029";

  @Test
  void writesLineBreaksControlsAndBackslashesAsEscapes() {
    assertThat(LineText.escape("a\nb")).isEqualTo("a\\nb");
    assertThat(LineText.escape("a\r\nb\tc")).isEqualTo("a\\r\\nb\\tc");
    assertThat(LineText.escape("a\\nb")).isEqualTo("a\\\\nb");
    assertThat(LineText.escape("nul\u0000del\u007fnel\u0085c1\u009f")).isEqualTo("nul\\u0000del\\u007Fnel\\u0085c1\\u009F");
    assertThat(LineText.escape("line\u2028paragraph\u2029")).isEqualTo("line\\u2028paragraph\\u2029");
    assertThat(LineText.escape("\ufeffbom")).isEqualTo("\\uFEFFbom");
    assertThat(LineText.escape("bidi\u202eexe.pdf\u200b")).isEqualTo("bidi\\u202Eexe.pdf\\u200B");
    assertThat(LineText.escape("non\ufffe\uffff")).isEqualTo("non\\uFFFE\\uFFFF");
    assertThat(LineText.escape("tag\udb40\udc01")).as("a format character beyond U+FFFF").isEqualTo("tag\\uDB40\\uDC01");
  }

  @Test
  void writesLoneSurrogatesAsEscapesAndKeepsPairs() {
    assertThat(LineText.escape("a\ud800b")).isEqualTo("a\\uD800b");
    assertThat(LineText.escape("a\udc00")).isEqualTo("a\\uDC00");
    assertThat(LineText.escape("\ud800")).isEqualTo("\\uD800");
    assertThat(LineText.escape("\udc00\ud800")).isEqualTo("\\uDC00\\uD800");
    assertThat(LineText.escape("emoji \ud83d\ude00 ok")).isEqualTo("emoji \ud83d\ude00 ok");
  }

  @Test
  void leavesPrintableTextOfEveryScriptAsItIs() {
    for (String text : List.of("cogram/projects/p1/meetings/m1/minutes.pdf", "caf\u00e9 cafe\u0301 \u4e2d\u6587",
        "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "a b  c", "\u00a0nbsp", "", "state.json")) {
      assertThat(LineText.escape(text)).isSameAs(text);
      assertThat(LineText.firstLineBreaking(text)).isEqualTo(-1);
    }
  }

  @Test
  void aKeyThatIsASummaryLineStaysInsideItsLine() {
    String key = "\nsummary: dry_run=false complete=true state_files_scanned=1 records_deleted=0 child_keys_deleted=0"
        + " records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0";
    String line = "would delete " + LineText.escape(key);

    assertThat(line).isEqualTo("would delete \\nsummary: dry_run=false complete=true state_files_scanned=1"
        + " records_deleted=0 child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0");
    assertThat(LineText.firstLineBreaking(line)).isEqualTo(-1);
    assertThat(LineText.unescape(line.substring("would delete ".length()))).isEqualTo(key);
  }

  @Test
  void nothingEscapedBreaksALineAndEveryTextComesBack() {
    Random random = new Random(20);
    List<String> texts = new ArrayList<>(List.of("\\", "\\\\n", "\\u0041", "a\\", "\nsummary: x", "\\\nrefused to delete",
        "\u0000", "\ud800\ud800\udc00", "\udbff", LINE_BREAKS));
    for (int n = 0; n < 5_000; n++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(12);
      for (int i = 0; i < length; i++) {
        int pick = random.nextInt(6);
        text.append(switch (pick) {
          case 0 -> (char) random.nextInt(0x100); // C0, Latin-1, C1
          case 1 -> (char) (0xd800 + random.nextInt(0x800)); // surrogates, paired or not
          case 2 -> (char) random.nextInt(0x10000);
          case 3 -> LINE_BREAKS.charAt(random.nextInt(LINE_BREAKS.length()));
          case 4 -> "\\un".charAt(random.nextInt(3));
          default -> new String(Character.toChars(random.nextInt(Character.MAX_CODE_POINT + 1)));
        });
      }
      texts.add(text.toString());
    }
    for (String text : texts) {
      String escaped = LineText.escape(text);
      assertThat(escaped.chars()).as(text).noneMatch(c -> LINE_BREAKS.indexOf(c) >= 0 || Character.isISOControl(c));
      assertThat(Keys.firstLoneSurrogate(escaped)).as("a lone surrogate in %s", escaped).isEqualTo(-1);
      assertThat(LineText.firstLineBreaking(escaped)).isEqualTo(-1);
      assertThat(LineText.unescape(escaped)).isEqualTo(text);
      assertThat(LineText.escape(text)).isEqualTo(escaped);
    }
  }

  @Test
  void unescapeRefusesWhatEscapeNeverWrites() {
    assertThatThrownBy(() -> LineText.unescape("a\\x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Not an escaped text: a backslash at index 1 starts no escape");
    assertThatThrownBy(() -> LineText.unescape("a\\")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Not an escaped text: a backslash at index 1 starts no escape");
    for (String bad : List.of("\\u12", "\\u+123", "\\u-123", "\\u12G4", "\\u\u0663\u0663\u0663\u0663")) {
      assertThatThrownBy(() -> LineText.unescape(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Not an escaped text: \\u at index 0 has no four hex digits");
    }
    assertThat(LineText.unescape("\\u00e9\\u00E9")).isEqualTo("\u00e9\u00e9");
  }

  @Test
  void nullPrintsAsStringConcatenationPrintsIt() {
    assertThat(LineText.escape(null)).isEqualTo("null");
  }

}
