package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The schema that statesweep's Delta tables are registered in ({@code --catalog-schema}): {@code main.statesweep}
 * (a catalog and a schema, as on Unity Catalog) or {@code statesweep} (a schema of a two-level metastore: Hive,
 * Glue). Each name is letters, digits and underscores; SQL gets them backquoted.
 */
public record CatalogSchema(List<String> names) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{1,255}");

  public CatalogSchema {
    names = List.copyOf(names);
    if (names.isEmpty() || names.size() > 2 || !names.stream().allMatch(name -> NAME.matcher(name).matches())) {
      throw new IllegalArgumentException("not one or two names");
    }
  }

  /**
   * The schema {@code value} names; null for null or blank (no registration). {@code source} says where the
   * value came from ({@code --catalog-schema}) for the message of a bad one, or is null.
   */
  public static CatalogSchema parse(String value, String source) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return new CatalogSchema(List.of(value.strip().split("\\.", -1)));
    } catch (IllegalArgumentException e) {
      throw new BadSettingsException("Invalid " + Settings.CATALOG_SCHEMA.key() + " '" + value + "'"
          + (source == null ? "" : " (from " + source + ")") + ": give catalog.schema (main.statesweep) or a"
          + " schema (statesweep), each name of letters, digits and underscores only");
    }
  }

  /** {@code table} in this schema, as SQL names it: {@code `main`.`statesweep`.`runs`}. */
  public String sql(String table) {
    requireNonNull(table, "table is null");
    StringBuilder sql = new StringBuilder();
    for (String name : names) {
      sql.append('`').append(name).append("`.");
    }
    return sql.append('`').append(table.replace("`", "``")).append('`').toString();
  }

  /** The schema itself in SQL: {@code `main`.`statesweep`}. */
  public String sql() {
    return String.join(".", names.stream().map(name -> "`" + name + "`").toList());
  }

  /** As given: {@code main.statesweep}. */
  @Override
  public String toString() {
    return String.join(".", names);
  }
}
