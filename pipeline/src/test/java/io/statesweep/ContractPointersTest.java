package io.statesweep;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.testing.ProjectSources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The contract is in the repository: pipeline/README.md's "What a run does" and the sections under it. A comment of the
 * product or its tests that points at a section of a README names one that exists in that README ({@code
 * pipeline/README.md, "Deleting"}; a bare {@code README} is the top-level one), and none points at a document outside
 * the repository.
 */
class ContractPointersTest {
  private static final Path ROOT = ProjectSources.ROOT;
  private static final Path SELF = Path.of("io", "statesweep", "ContractPointersTest.java");
  /** {@code README "X"}, {@code README, "X"}, {@code pipeline/README.md, "X"}, {@code jobs/README.md's "X"}. */
  private static final Pattern README_SECTION = Pattern.compile(
      "(?<![\\w/.])((?:[\\w.-]+/)*)README(?:\\.md)?(?:,|'s)?\\s+\"([^\"]+)\"");
  /** A document that is not in the repository: the behaviour contract the project began from, a style guide. */
  private static final Pattern OUTSIDE = Pattern.compile(
      "(?i)\\bspec(?:s)? sections?\\b|\\bthe spec\\b|\\bspec's\\b|\\(spec\\b|STYLE\\.md|\\.\\./shared/|archive-cleanup\\.md");

  @Test
  void everyReadmeSectionThatACommentNamesExists() {
    java.util.Map<String, List<String>> headings = new java.util.TreeMap<>();
    List<String> pointers = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (Path file : javaFiles()) {
      if (file.endsWith(SELF)) {
        continue; // its own examples
      }
      Matcher section = README_SECTION.matcher(ProjectSources.read(file));
      while (section.find()) {
        String readme = section.group(1) + "README.md";
        String name = sectionName(section.group(2));
        pointers.add(readme + " " + name);
        List<String> its = headings.computeIfAbsent(readme, path ->
            java.nio.file.Files.isRegularFile(ROOT.resolve(path)) ? headings(ProjectSources.read(ROOT.resolve(path)))
                : List.of());
        if (its.stream().noneMatch(heading -> heading.startsWith(name))) {
          missing.add(ROOT.relativize(file) + ": " + readme + " \"" + name + "\"");
        }
      }
    }
    // The scan sees the comments it checks, in the top-level README and the folders'.
    assertThat(pointers).contains("pipeline/README.md Deleting", "pipeline/README.md The summary line",
        "README.md Actions (one per record)", "pipeline/README.md The layout");

    assertThat(missing).as("README sections named in comments that their README has no heading for (a heading"
        + " starts with the name); the headings: %s", headings).isEmpty();
  }

  @Test
  void noCommentPointsAtADocumentOutsideTheRepository() {
    List<String> outside = new ArrayList<>();
    for (Path file : javaFiles()) {
      if (file.endsWith(SELF)) {
        continue; // its own examples
      }
      String[] lines = ProjectSources.read(file).split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        if (OUTSIDE.matcher(lines[i]).find()) {
          outside.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines[i].strip());
        }
      }
    }

    assertThat(outside).as("lines that point at a document outside the repository; name the README section"
        + " instead (README, \"What a run does\" and the sections under it)").isEmpty();
  }

  @Test
  void headingsAreReadOutsideCodeBlocksWithoutTheirMarks() {
    String readme = "# statesweep\n```bash\n# 1. a comment in a command block\n```\n#### Deleting (`run --execute`)\n";

    assertThat(headings(readme)).containsExactly("statesweep", "Deleting (run --execute)");
    assertThat(sectionName("Every delete on the\n   * record")).isEqualTo("Every delete on the record");
    assertThat(sectionName("Keys in printed\n    // lines")).isEqualTo("Keys in printed lines");
    assertThat(OUTSIDE.matcher("// the rules of spec sections 2 and 3").find()).isTrue();
    assertThat(OUTSIDE.matcher("(spec section 4)").find()).isTrue();
    assertThat(OUTSIDE.matcher("a speculative copy; the expected action; specific keys").find()).isFalse();
    Matcher folders = README_SECTION.matcher("(jobs/README.md, \"Settings\"; README, \"Exit codes\")");
    assertThat(folders.find()).isTrue();
    assertThat(folders.group(1) + "README.md " + folders.group(2)).isEqualTo("jobs/README.md Settings");
    assertThat(folders.find()).isTrue();
    assertThat(folders.group(1) + "README.md " + folders.group(2)).isEqualTo("README.md Exit codes");
  }

  /** A section's name as a comment gives it, across its lines: without comment marks, backticks or line breaks. */
  static String sectionName(String quoted) {
    return quoted.replaceAll("\\s*\\R\\s*(?:\\*|//)?\\s*", " ").replace("`", "").strip();
  }

  /** Markdown headings, outside fenced code blocks, without their {@code #} marks and backticks. */
  static List<String> headings(String markdown) {
    List<String> headings = new ArrayList<>();
    boolean inCode = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.startsWith("```")) {
        inCode = !inCode;
      } else if (!inCode && line.startsWith("#")) {
        headings.add(line.replaceFirst("^#+\\s*", "").replace("`", "").strip());
      }
    }
    return headings;
  }

  private static List<Path> javaFiles() {
    List<Path> files = ProjectSources.javaFiles(ProjectSources.ALL);
    assertThat(files).as("the sources of both modules").hasSizeGreaterThan(100);
    return files;
  }
}
