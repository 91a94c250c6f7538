package io.statesweep.api;

import static java.util.Objects.requireNonNull;

import io.statesweep.config.CatalogSchema;
import java.io.Serializable;
import java.util.List;

/**
 * Where a warehouse keeps statesweep's Delta tables. Schemas are documented in pipeline/README.md, "Tables".
 *
 * <ul>
 *   <li>{@code state_files}: one row per state-named key per run, partitioned by {@code run_date}.
 *   <li>{@code deletion_plan}: one row per record per run, partitioned by {@code run_date}; its
 *       {@code deletes} array is what execution deletes, in order, state file last.
 *   <li>{@code executions}: one row per record per execute attempt, partitioned by {@code run_date}.
 *   <li>{@code runs}: one row per command of a run (its plan, each execute attempt).
 *   <li>{@code restorations}: one row per key a restore looked at, partitioned by the restored run's {@code run_date}.
 * </ul>
 *
 * <p>The path is the tables' source of truth. With a {@code catalogSchema} ({@code --catalog-schema}), each
 * table is also registered by name in that schema the first time it is written ({@link CatalogTables}).
 *
 * @param catalogSchema the schema the tables are registered in, such as {@code main.statesweep}; null for none
 */
public record Tables(String warehouse, String catalogSchema) implements Serializable {
  public static final String STATE_FILES = "state_files";
  public static final String DELETION_PLAN = "deletion_plan";
  public static final String RUNS = "runs";
  public static final String EXECUTIONS = "executions";
  public static final String APPROVALS = "approvals";
  public static final String PLAN_SUMMARY = "plan_summary";
  public static final String RESTORATIONS = "restorations";

  /** Every table a warehouse holds, in the order a review reads them. */
  public static final List<String> ALL = List.of(RUNS, DELETION_PLAN, STATE_FILES, PLAN_SUMMARY, EXECUTIONS,
      APPROVALS, RESTORATIONS);

  /** The tables of {@code warehouse}, by path only. */
  public Tables(String warehouse) {
    this(warehouse, null);
  }

  public Tables {
    requireNonNull(warehouse, "warehouse is null");
    CatalogSchema schema = CatalogSchema.parse(catalogSchema, null);
    catalogSchema = schema == null ? null : schema.toString();
    // A relative local path is made absolute: Delta's table builder takes "target/wh/runs" for a name.
    if (!warehouse.contains(":") && !warehouse.startsWith("/")) {
      warehouse = java.nio.file.Path.of(warehouse).toAbsolutePath().normalize().toString();
    }
    while (warehouse.endsWith("/") && warehouse.length() > 1) {
      warehouse = warehouse.substring(0, warehouse.length() - 1);
    }
  }

  public String path(String table) {
    return warehouse + "/" + table;
  }

  /** {@code table}'s name in the catalog schema, as SQL names it ({@code `main`.`statesweep`.`runs`}); null without one. */
  public String catalogName(String table) {
    return catalogSchema == null ? null : CatalogSchema.parse(catalogSchema, null).sql(table);
  }

  public String stateFiles() {
    return path(STATE_FILES);
  }

  public String deletionPlan() {
    return path(DELETION_PLAN);
  }

  public String runs() {
    return path(RUNS);
  }

  public String executions() {
    return path(EXECUTIONS);
  }

  public String approvals() {
    return path(APPROVALS);
  }

  public String planSummary() {
    return path(PLAN_SUMMARY);
  }

  public String restorations() {
    return path(RESTORATIONS);
  }

}
