package io.statesweep.jobs;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line for a JVM that a test launches beside its own: this JVM's Java, a heap of its
 * own, and the flags this JVM was started with that a Spark driver needs too (Spark 3.5's flags for Java 17) or
 * that the build chose for every test JVM (its compiler and collector, the short-run flags, and the size of Spark's
 * cache of compiled query code).
 */
final class ChildJvm {
  private ChildJvm() {}

  static List<String> command(String maxHeap) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + maxHeap));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (flag.startsWith("--add-opens") || flag.startsWith("--add-exports") || flag.startsWith("-Djdk.reflect.")
          || flag.startsWith("-Dspark.sql.codegen.")
          || (flag.startsWith("-XX:") && !flag.startsWith("-XX:MaxHeapSize"))) {
        command.add(flag);
      }
    }
    return command;
  }
}
