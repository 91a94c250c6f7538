package io.statesweep;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.testing.ProjectSources;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No two packages of the product use each other, directly or through others: the layers read from the bottom
 * ({@code layout}, {@code state}, {@code plan}) up to the Spark wiring and the command line. A package uses another
 * when its code (not its comments or strings) names one of that package's types, by import or fully qualified.
 */
class PackageCyclesTest {
  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
  /** A type of the product named in code: {@code io.statesweep.execute.RecordExecutor}, lower-case segments first. */
  private static final Pattern PRODUCT_TYPE = Pattern.compile("\\bio\\.statesweep\\.((?:[a-z]\\w*\\.)*[a-z]\\w*)\\.[A-Z]");
  private static final Pattern COMMENTS_AND_STRINGS =
      Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])'", Pattern.DOTALL);

  @Test
  void noPackageOfTheProductUsesItselfThroughAnother() {
    Map<String, Map<String, Set<String>>> uses = new TreeMap<>();
    for (Path file : ProjectSources.javaFiles(ProjectSources.PRODUCT)) {
      addUses(uses, ProjectSources.read(file), ProjectSources.ROOT.relativize(file).toString());
    }
    // The scan sees the product's layers.
    assertThat(uses).containsKeys("io.statesweep.spark", "io.statesweep.jobs", "io.statesweep.plan");
    assertThat(uses.get("io.statesweep.spark")).containsKeys("io.statesweep.plan", "io.statesweep.execute");

    assertThat(cycles(uses)).as("packages that use each other, with the files that make each use").isEmpty();
  }

  /**
   * The storage seam (pipeline/README.md, "Layout of the code"): the core speaks to {@code
   * io.statesweep.store.ObjectStore}, never to its AWS implementation in {@code s3/}, and {@code store/} uses no other
   * package of the product.
   */
  @Test
  void theCoreUsesTheStoreSeamAndTheStoreUsesNothing() {
    Map<String, Map<String, Set<String>>> uses = new TreeMap<>();
    for (Path file : ProjectSources.javaFiles(ProjectSources.PRODUCT)) {
      addUses(uses, ProjectSources.read(file), ProjectSources.ROOT.relativize(file).toString());
    }
    // The scan sees the seam: the AWS side and the core both use it.
    assertThat(uses.get("io.statesweep.s3")).containsKey("io.statesweep.store");
    assertThat(uses.get("io.statesweep.execute")).containsKey("io.statesweep.store");

    for (String core : List.of("layout", "state", "plan", "execute", "ledger", "scan", "cost", "store")) {
      assertThat(uses.getOrDefault("io.statesweep." + core, Map.of()))
          .as("io.statesweep.%s uses the AWS side (io.statesweep.s3) in these files; use io.statesweep.store", core)
          .doesNotContainKey("io.statesweep.s3");
    }
    assertThat(uses.get("io.statesweep.store")).as("packages io.statesweep.store uses, with the files").isEmpty();
  }

  @Test
  void aCycleIsNamedWithTheFilesThatMakeItAndCommentsDoNotCount() {
    Map<String, Map<String, Set<String>>> uses = new TreeMap<>();
    addUses(uses, "package io.statesweep.a;\nimport io.statesweep.b.B;\nclass A {}", "A.java");
    addUses(uses, "package io.statesweep.b;\nclass B { io.statesweep.c.C c; }", "B.java");
    addUses(uses, "package io.statesweep.c;\n/** Not a use: {@link io.statesweep.d.D}. */\nclass C {\n"
        + "  String s = \"io.statesweep.d.D\"; // io.statesweep.d.D\n  io.statesweep.a.A a;\n}", "C.java");
    addUses(uses, "package io.statesweep.d;\nimport io.statesweep.a.A;\nclass D {}", "D.java");

    assertThat(uses.get("io.statesweep.c")).containsOnlyKeys("io.statesweep.a");
    assertThat(cycles(uses)).containsExactly("io.statesweep.a -> io.statesweep.b (A.java), io.statesweep.b ->"
        + " io.statesweep.c (B.java), io.statesweep.c -> io.statesweep.a (C.java)");
  }

  /** Adds what {@code source}'s package uses of the product's other packages, and where. */
  static void addUses(Map<String, Map<String, Set<String>>> uses, String source, String file) {
    Matcher declared = PACKAGE.matcher(source);
    assertThat(declared.find()).as("package of %s", file).isTrue();
    String from = declared.group(1);
    Map<String, Set<String>> targets = uses.computeIfAbsent(from, p -> new TreeMap<>());
    Matcher type = PRODUCT_TYPE.matcher(COMMENTS_AND_STRINGS.matcher(source).replaceAll(" "));
    while (type.find()) {
      String to = "io.statesweep." + type.group(1);
      if (!to.equals(from)) {
        targets.computeIfAbsent(to, p -> new TreeSet<>()).add(file);
      }
    }
  }

  /**
   * Each group of packages that use each other (Tarjan's strongly connected components), as the uses around it:
   * {@code a -> b (files), b -> a (files)}.
   */
  static List<String> cycles(Map<String, Map<String, Set<String>>> uses) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<String> cycles = new ArrayList<>();
    for (String start : uses.keySet()) {
      if (!index.containsKey(start)) {
        connect(start, uses, index, low, stack, onStack, cycles);
      }
    }
    return cycles;
  }

  private static void connect(String from, Map<String, Map<String, Set<String>>> uses, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<String> cycles) {
    index.put(from, index.size());
    low.put(from, index.get(from));
    stack.push(from);
    onStack.add(from);
    for (String to : uses.getOrDefault(from, Map.of()).keySet()) {
      if (!index.containsKey(to)) {
        connect(to, uses, index, low, stack, onStack, cycles);
        low.put(from, Math.min(low.get(from), low.get(to)));
      } else if (onStack.contains(to)) {
        low.put(from, Math.min(low.get(from), index.get(to)));
      }
    }
    if (low.get(from).equals(index.get(from))) {
      Set<String> group = new TreeSet<>();
      String member;
      do {
        member = stack.pop();
        onStack.remove(member);
        group.add(member);
      } while (!member.equals(from));
      if (group.size() > 1) {
        List<String> edges = new ArrayList<>();
        for (String a : group) {
          uses.getOrDefault(a, Map.of()).forEach((b, files) -> {
            if (group.contains(b)) {
              edges.add(a + " -> " + b + " (" + String.join(", ", files) + ")");
            }
          });
        }
        cycles.add(String.join(", ", edges));
      }
    }
  }
}
