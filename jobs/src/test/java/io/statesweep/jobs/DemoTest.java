package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README command one, in process: the embedded default ({@link Demo}, test scope) runs the product's plan on
 * a generated archive and exits 0.
 */
class DemoTest {

  @Test
  void demoRunsPlanOnAGeneratedArchiveAndPrintsTheSummary(@TempDir Path warehouse) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = Demo.run(new String[] {"--records", "300", "--warehouse", warehouse.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err);

    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(printed).isZero();
    assertThat(printed)
        .contains("sample archive: 300 records")
        .contains("would delete cogram/")
        .contains("tables: state_files=" + warehouse + "/state_files");
    String[] lines = printed.split("\n");
    String summary = java.util.Arrays.stream(lines).filter(line -> line.startsWith("summary: ")).findFirst()
        .orElseThrow();
    assertThat(summary).matches("summary: dry_run=true complete=true state_files_scanned=300 records_deleted=[1-9]\\d*"
        + " child_keys_deleted=[1-9]\\d* records_kept=\\d+ kept_newer_files=[1-9]\\d* kept_refused=[1-9]\\d*"
        + " skipped=[1-9]\\d* errors=0 bad_state=[1-9]\\d* missing_files=[1-9]\\d* .*");
    // pipeline/README.md, "What a run does": the generated archive has live records that list files never written.
    assertThat(printed).containsPattern("\nmissing cogram/.+: listed by live record cogram/.+\n");
  }
}
