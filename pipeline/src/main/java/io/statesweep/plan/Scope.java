package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which records a plan covers ({@code --scope-prefix}, {@code --projects}, {@code --kinds}; pipeline/README.md,
 * "Bounded runs"): a record is in scope when its state file is under one of the prefixes, its project is one of the
 * projects, and its kind one of the kinds, each only when given. A plan reads and plans only the state files in scope;
 * every other record is left as it is, and counted nowhere. Which record owns which key is still decided from the whole
 * listing, so a scope never lets a record in it claim a file of a record outside it.
 *
 * @param prefixes full key prefixes (the export prefix included); empty for any
 * @param projects project ids (the layout's {@code {project}}); empty for any
 * @param kinds kind folders (the layout's {@code {kind}}); empty for any: a record without a kind folder (a
 *     project's own state file, a chat message, a workflow) is outside a scope of kinds
 */
public record Scope(List<String> prefixes, Set<String> projects, Set<String> kinds) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The layout's name of a record's project id. */
  public static final String PROJECT_ID = "project";

  public static final Scope ALL = new Scope(List.of(), Set.of(), Set.of());

  public Scope {
    prefixes = List.copyOf(requireNonNull(prefixes, "prefixes is null"));
    projects = Set.copyOf(new TreeSet<>(requireNonNull(projects, "projects is null")));
    kinds = Set.copyOf(new TreeSet<>(requireNonNull(kinds, "kinds is null")));
  }

  /** Whether the scope covers every record. */
  public boolean all() {
    return prefixes.isEmpty() && projects.isEmpty() && kinds.isEmpty();
  }

  /**
   * Whether the state-named key {@code key}, classified as of {@code kind} with {@code ids} (null for a key that
   * is no record's state file), is in scope.
   */
  public boolean includes(String key, String kind, Map<String, String> ids) {
    requireNonNull(key, "key is null");
    if (!prefixes.isEmpty() && prefixes.stream().noneMatch(key::startsWith)) {
      return false;
    }
    if (!projects.isEmpty() && (ids == null || !projects.contains(ids.get(PROJECT_ID)))) {
      return false;
    }
    return kinds.isEmpty() || (kind != null && kinds.contains(kind));
  }

  /** The scope as the summary's {@code scope=} pair: {@code prefixes:a/|b/;projects:p1;kinds:emails}. */
  public String describe() {
    List<String> parts = new java.util.ArrayList<>();
    if (!prefixes.isEmpty()) {
      parts.add("prefixes:" + String.join("|", prefixes));
    }
    if (!projects.isEmpty()) {
      parts.add("projects:" + String.join("|", new TreeSet<>(projects)));
    }
    if (!kinds.isEmpty()) {
      parts.add("kinds:" + String.join("|", new TreeSet<>(kinds)));
    }
    return parts.isEmpty() ? "all" : String.join(";", parts);
  }
}
