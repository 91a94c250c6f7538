package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bucket root is never the export by accident: every command that lists or deletes refuses an
 * empty prefix, however it is given, unless {@code --allow-bucket-root} says so, and it refuses before
 * any request (the endpoint here has no server: a request would fail the run with exit 1, not 2).
 * The settings rule itself is {@code RunOptionsTest.refusesTheBucketRootUnlessAllowed}.
 */
class BucketRootCommandTest {
  private static final String REFUSAL = "statesweep: Refusing the bucket root as the export prefix: give --prefix"
      + " (such as cogram/), or --allow-bucket-root if the export really fills the whole bucket\n";
  private static final String NO_SERVER = "http://127.0.0.1:9";

  @ParameterizedTest(name = "{0} with the prefix from {1}")
  @CsvSource(textBlock = """
      plan,    nowhere
      plan,    empty flag
      plan,    blank flag
      plan,    environment
      plan,    config file
      run,     nowhere
      run,     environment
      execute, nowhere
      execute, config file
      """)
  void commandsThatListOrDeleteRefuseTheBucketRootUnlessAllowed(String command, String prefixFrom,
      @TempDir Path dir) throws IOException {
    List<String> args = new ArrayList<>(List.of(command, "--bucket", "b", "--endpoint", NO_SERVER,
        "--warehouse", dir.resolve("warehouse").toString()));
    if (command.equals("run")) {
      args.add("--execute");
    }
    if (command.equals("execute")) {
      args.addAll(List.of("--run-id", "20261129T204415Z-3f9a1c", "--skip-approval"));
    }
    Map<String, String> environment = Map.of();
    switch (prefixFrom) {
      case "empty flag" -> args.addAll(List.of("--prefix", ""));
      case "blank flag" -> args.addAll(List.of("--prefix", "  "));
      case "environment" -> environment = Map.of("COGRAM_CLEANUP_PREFIX", "");
      case "config file" -> {
        Path conf = Files.writeString(dir.resolve("sweep.properties"), "prefix=\n");
        args.addAll(List.of("--config-file", conf.toString()));
      }
      default -> { }
    }

    CommandOutput output = CommandOutput.run(environment, args);

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).isEqualTo(REFUSAL);
    assertThat(output.text()).isEqualTo(stoppedByBadSettings(command.equals("plan")));
    assertThat(dir.resolve("warehouse")).doesNotExist();
  }

  @ParameterizedTest(name = "--prefix ''{0}''")
  @CsvSource(delimiter = '|', textBlock = """
      /   | it is empty
      //  | it has an empty segment
      """)
  void aPrefixOfOnlySlashesIsRefusedEvenWithAllowBucketRoot(String prefix, String problem, @TempDir Path dir) {
    CommandOutput output = CommandOutput.run(Map.of(), List.of("plan", "--bucket", "b", "--prefix", prefix,
        "--allow-bucket-root", "--endpoint", NO_SERVER, "--warehouse", dir.resolve("warehouse").toString()));

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).isEqualTo("statesweep: Invalid prefix '" + prefix + "': " + problem + " (from --prefix)\n");
    assertThat(output.text()).isEqualTo(stoppedByBadSettings(true));
    assertThat(dir.resolve("warehouse")).doesNotExist();
  }

  /** Every run ends with its summary line, a refused one too (pipeline/README.md, "The summary line"). */
  private static String stoppedByBadSettings(boolean dryRun) {
    return "summary: dry_run=" + dryRun + " complete=false state_files_scanned=0 records_deleted=0 child_keys_deleted=0"
        + " records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0 stopped=bad_settings\n";
  }
}
