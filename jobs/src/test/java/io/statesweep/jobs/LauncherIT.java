package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code statesweep} command the docs and the messages name (jobs/README.md, "The statesweep command"): the
 * launcher the build writes beside the jar ({@code target/statesweep}) runs the jar's command line with
 * {@code java -cp} and the platform's jars where there is no spark-submit, and passes its exit code on: a help that
 * exits 0, bad settings that exit 2 with the CLI's own message, and a missing jar named.
 */
class LauncherIT {
  private static final Path JAR = Path.of(System.getProperty("statesweep.jar"));
  private static final Path LAUNCHER = JAR.resolveSibling("statesweep");

  private record Ran(int code, String out) {}

  private static Ran run(Map<String, String> environment, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().remove("SPARK_HOME");
    builder.environment().put("STATESWEEP_LOCAL", "1");
    builder.environment().putAll(environment);
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return new Ran(process.exitValue(), out);
  }

  @Test
  void theStatesweepCommandRunsTheJarsCommandLineAndPassesItsExitCodeOn() throws Exception {
    assertThat(Files.isExecutable(LAUNCHER)).as(LAUNCHER + " is executable").isTrue();
    assertThat(Files.readString(LAUNCHER)).as("the JVM flags of pom.xml written in")
        .contains(System.getProperty("spark.java17.flags").trim()).doesNotContain("${spark.java17.flags}");

    Ran help = run(Map.of(), "plan", "--help");
    assertThat(help.code()).as(help.out()).isZero();
    assertThat(help.out()).contains("--bucket").contains("--warehouse");

    Ran bad = run(Map.of(), "plan", "--bucket", "b", "--prefix", "cogram/", "--grace-days", "-3");
    assertThat(bad.code()).as(bad.out()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(bad.out()).contains("grace");

    Ran noJar = run(Map.of("STATESWEEP_JAR", "/nowhere/statesweep.jar"), "plan", "--help");
    assertThat(noJar.code()).isEqualTo(2);
    assertThat(noJar.out()).startsWith("statesweep: no job jar at /nowhere/statesweep.jar: build it");
  }
}
