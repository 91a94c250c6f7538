package io.statesweep.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The project's Java sources, for the tests that read them (which package may use which, where comments point):
 * both modules' product sources, and their tests.
 */
public final class ProjectSources {
  /** The pipeline module, where its tests run. */
  public static final Path PIPELINE = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
  /** The repository's root. */
  public static final Path ROOT = PIPELINE.getParent();
  /** The product's sources: the pipeline's and the jobs' {@code src/main/java}. */
  public static final List<Path> PRODUCT = List.of(PIPELINE.resolve("src/main/java"),
      ROOT.resolve("jobs/src/main/java"));
  /** The product's sources and both modules' tests. */
  public static final List<Path> ALL = List.of(PRODUCT.get(0), PIPELINE.resolve("src/test/java"), PRODUCT.get(1),
      ROOT.resolve("jobs/src/test/java"));

  private ProjectSources() {}

  /** Every {@code .java} file under {@code roots}. */
  public static List<Path> javaFiles(List<Path> roots) {
    return roots.stream().flatMap(ProjectSources::javaFiles).toList();
  }

  private static Stream<Path> javaFiles(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(path -> path.toString().endsWith(".java")).toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the sources under " + root, e);
    }
  }

  public static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }
}
