package io.statesweep.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.spark.run.LineStream;
import io.statesweep.api.LogLine;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** An action's lines go to its sink one by one; its result keeps a bounded sample and the counts. */
class LineStreamTest {

  @Test
  void passesEveryLineOnAndKeepsOnlyTheFirstOnesAndTheCounts() {
    AtomicLong printed = new AtomicLong();
    LineStream lines = new LineStream(line -> printed.incrementAndGet());
    int missing = LogLine.RESULT_SAMPLE * 3;
    for (int i = 0; i < missing; i++) {
      lines.accept(LogLine.missing("cogram/p/d/lost" + i + ".bin", "cogram/p/d/state.json"));
    }
    lines.accept(LogLine.skipped("cogram/p/d/attachments/a.state.json", "a file named like a state file"));

    assertThat(printed).hasValue(missing + 1L);
    assertThat(lines.sample()).hasSize(LogLine.RESULT_SAMPLE)
        .allMatch(line -> line.kind() == LogLine.Kind.MISSING);
    assertThat(lines.sample().get(0).text())
        .isEqualTo("missing cogram/p/d/lost0.bin: listed by live record cogram/p/d/state.json");
    assertThat(lines.counts()).isEqualTo(Map.of(LogLine.Kind.MISSING, (long) missing, LogLine.Kind.SKIPPED, 1L));
  }

  @Test
  void aLineIsOneLineItsKeyAsItIs() {
    LogLine line = LogLine.kept("cogram/p/d\u2028x/state.json", "refused to delete cogram/p/d/a\nsummary: x: why");

    assertThat(line.key()).isEqualTo("cogram/p/d\u2028x/state.json");
    assertThat(line.text()).isEqualTo("kept cogram/p/d\\u2028x/state.json: refused to delete cogram/p/d/a\\nsummary: x:"
        + " why");
    assertThatThrownBy(() -> new LogLine(LogLine.Kind.KEPT, "k", "kept k: a\nsummary: x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A log line is one line of printable text, but the KEPT line about k has U+000A at index 9:"
            + " escape it with LineText.escape");
  }
}
