package io.statesweep.jobs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What a command of the command line, run in this JVM ({@link StatesweepCli#run}), returned and printed: its exit
 * code, its stdout and its stderr. The one runner of the jobs tests: every test that runs a command in-process reads
 * its output through this record.
 */
record CommandOutput(int code, String text, String errors) {
  /** Runs {@code args} with {@code environment}; the Spark session it used stays open for the next command. */
  static CommandOutput run(Map<String, String> environment, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = StatesweepCli.run(args, environment, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new CommandOutput(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs {@code args} with {@code environment}. */
  static CommandOutput run(Map<String, String> environment, List<String> args) {
    return run(environment, args.toArray(String[]::new));
  }

  /** stdout, then stderr. */
  String all() {
    return text + errors;
  }

  /** stdout's lines. */
  List<String> lines() {
    return Arrays.asList(text.split("\n"));
  }

  /** stdout's lines that start with {@code start}. */
  List<String> lines(String start) {
    return lines().stream().filter(line -> line.startsWith(start)).toList();
  }

  /** stdout's last line. */
  String lastLine() {
    List<String> lines = lines();
    return lines.get(lines.size() - 1);
  }

  /** How many lines of stdout contain {@code phrase}. */
  long count(String phrase) {
    return lines().stream().filter(line -> line.contains(phrase)).count();
  }

  /** The summary line: the last line of stdout that starts with {@code summary: } (a run ends with it). */
  String summary() {
    return last("summary: ");
  }

  /** The metrics line: the last line of stdout that starts with {@code metrics: }, its JSON after the prefix. */
  String metrics() {
    return last("metrics: ");
  }

  private String last(String start) {
    List<String> found = lines(start);
    if (found.isEmpty()) {
      throw new AssertionError("no line starting with '" + start + "' in " + text);
    }
    return found.get(found.size() - 1);
  }
}
