package io.statesweep.spark;

import static org.apache.spark.sql.functions.col;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Table {@code plan_summary}: a plan summed by record type, kind, project, action, reason pattern and
 * grace rule (records, keys, bytes), written with each plan, so that a review starts from a page, not
 * from millions of rows. Reasons name keys and times; their pattern masks them so that alike reasons
 * group together.
 */
final class PlanSummary {
  /** Keys (anything with a slash), ISO times, and numbers, masked in that order. */
  static final String REASON_PATTERN = "regexp_replace(regexp_replace(regexp_replace(reason,"
      + " '[^\\\\s(),:]*/[^\\\\s(),:]*', '<key>'),"
      + " '\\\\d{4}-\\\\d{2}-\\\\d{2}T[0-9:.]+Z', '<time>'),"
      + " '\\\\b\\\\d+\\\\b', 'N')";

  private PlanSummary() {}

  static Dataset<Row> of(SparkSession spark, Tables tables, String runId, String runDate) {
    return spark.read().format("delta").load(tables.deletionPlan())
        .filter(col("run_date").equalTo(runDate).and(col("run_id").equalTo(runId)))
        .selectExpr("run_id", "run_date", "planned_at", "record_type", "kind", "ids['project'] as project",
            "action", REASON_PATTERN + " as reason_pattern", "grace_rule", "child_keys_to_delete",
            "keys_to_delete", "bytes_to_delete", "missing_keys", "kept_keys")
        .groupBy("run_id", "run_date", "planned_at", "record_type", "kind", "project", "action", "reason_pattern",
            "grace_rule")
        .agg(org.apache.spark.sql.functions.count("*").as("records"),
            org.apache.spark.sql.functions.sum("keys_to_delete").as("keys_to_delete"),
            org.apache.spark.sql.functions.sum("child_keys_to_delete").as("child_keys_to_delete"),
            org.apache.spark.sql.functions.sum("bytes_to_delete").as("bytes_to_delete"),
            org.apache.spark.sql.functions.sum("missing_keys").cast("long").as("missing_keys"),
            org.apache.spark.sql.functions.sum("kept_keys").cast("long").as("kept_keys"))
        .select("run_id", "run_date", "planned_at", "record_type", "kind", "project", "action", "reason_pattern",
            "grace_rule", "records", "keys_to_delete", "child_keys_to_delete", "bytes_to_delete", "missing_keys",
            "kept_keys");
  }
}
