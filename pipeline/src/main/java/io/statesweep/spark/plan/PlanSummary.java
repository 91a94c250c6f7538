package io.statesweep.spark.plan;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;

import io.statesweep.spark.tables.RunsTable;
import io.statesweep.cost.Costs;
import io.statesweep.cost.PriceTable;
import java.math.BigDecimal;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;

/**
 * Table {@code plan_summary}: a plan summed by record type, kind, project, action, reason pattern and
 * grace rule (records, keys, bytes, bytes by storage class and what they cost a month), written with each
 * plan, so that a review starts from a page, not from millions of rows. Reasons name keys and times; their
 * pattern masks them so that alike reasons group together.
 */
public final class PlanSummary {
  /** Keys (anything with a slash), ISO times, and numbers, masked in that order. */
  static final String REASON_PATTERN = "regexp_replace(regexp_replace(regexp_replace(reason,"
      + " '[^\\\\s(),:]*/[^\\\\s(),:]*', '<key>'),"
      + " '\\\\d{4}-\\\\d{2}-\\\\d{2}T[0-9:.]+Z', '<time>'),"
      + " '\\\\b\\\\d+\\\\b', 'N')";
  private static final List<String> GROUP = List.of("run_id", "run_date", "planned_at", "record_type", "kind",
      "project", "action", "reason_pattern", "grace_rule");

  private PlanSummary() {}

  /**
   * @param planRows a plan's {@code deletion_plan} rows
   * @param storageClasses key and storage class of every listed key ({@link PlanCosts#storageClasses})
   * @param region the region whose storage prices give {@code saves_usd_per_month} (null when the table has none)
   */
  public static Dataset<Row> of(Dataset<Row> planRows, Dataset<Row> storageClasses, PriceTable prices, String region) {
    Dataset<Row> recordsDS = planRows
        .selectExpr("run_id", "run_date", "planned_at", "record_type", "kind", "ids['project'] as project",
            "action", REASON_PATTERN + " as reason_pattern", "grace_rule", "child_keys_to_delete",
            "keys_to_delete", "bytes_to_delete", "missing_keys", "kept_keys", "deletes");
    Dataset<Row> summaryDS = recordsDS
        .groupBy(GROUP.stream().map(org.apache.spark.sql.functions::col).toArray(Column[]::new))
        .agg(org.apache.spark.sql.functions.count("*").as("records"),
            org.apache.spark.sql.functions.sum("keys_to_delete").as("keys_to_delete"),
            org.apache.spark.sql.functions.sum("child_keys_to_delete").as("child_keys_to_delete"),
            org.apache.spark.sql.functions.sum("bytes_to_delete").as("bytes_to_delete"),
            org.apache.spark.sql.functions.sum("missing_keys").cast("long").as("missing_keys"),
            org.apache.spark.sql.functions.sum("kept_keys").cast("long").as("kept_keys"));
    // The bytes each group deletes by the storage class the listing gave each key.
    Dataset<Row> deletesDS = recordsDS
        .select(concat(GROUP, expr("explode(deletes)").as("d")))
        .select(concat(GROUP, col("d.key").as("key"), col("d.size").as("size")));
    Dataset<Row> byClassDS = deletesDS.join(storageClasses, deletesDS.col("key").equalTo(storageClasses.col("key")),
            "left")
        .select(concat(GROUP, coalesce(col("storage_class"), lit(PlanCosts.UNKNOWN_STORAGE_CLASS)).as("storage_class"),
            col("size")))
        .groupBy(concat(GROUP, col("storage_class")))
        .agg(expr("sum(size)").as("bytes"))
        .groupBy(concat(GROUP))
        .agg(expr("map_from_entries(collect_list(struct(storage_class, bytes)))").as("bytes_by_storage_class"));
    Column sameGroup = null;
    for (String column : GROUP) {
      Column same = summaryDS.col(column).eqNullSafe(byClassDS.col(column));
      sameGroup = sameGroup == null ? same : sameGroup.and(same);
    }
    UserDefinedFunction savesPerMonth = org.apache.spark.sql.functions.udf(new SavesPerMonth(prices, region),
        RunsTable.USD);
    return summaryDS.join(byClassDS, sameGroup, "left")
        .select(concat(GROUP.stream().map(summaryDS::col).toList(), col("records"), col("keys_to_delete"),
            col("child_keys_to_delete"), col("bytes_to_delete"), col("missing_keys"), col("kept_keys"),
            // A group that deletes nothing (keep, not_yet_due, ...) frees no bytes of any class.
            coalesce(col("bytes_by_storage_class"), expr("cast(map() as map<string,bigint>)")).as("bytes_by_storage_class"),
            savesPerMonth.apply(coalesce(col("bytes_by_storage_class"), expr("cast(map() as map<string,bigint>)")))
                .as("saves_usd_per_month")));
  }

  private static Column[] concat(List<?> columns, Column... more) {
    List<Column> all = new java.util.ArrayList<>();
    for (Object column : columns) {
      all.add(column instanceof Column c ? c : col((String) column));
    }
    all.addAll(List.of(more));
    return all.toArray(Column[]::new);
  }

  /** What a group's bytes cost a month at the region's storage prices ({@link Costs#storagePerMonth}). */
  static final class SavesPerMonth implements UDF1<scala.collection.Map<String, Long>, BigDecimal> {
    private static final long serialVersionUID = 1L;
    private final PriceTable prices;
    private final String region;

    SavesPerMonth(PriceTable prices, String region) {
      this.prices = prices;
      this.region = region;
    }

    @Override
    public BigDecimal call(scala.collection.Map<String, Long> bytesByStorageClass) {
      if (bytesByStorageClass == null || prices == null || !prices.regions().containsKey(region)) {
        return null;
      }
      java.util.Map<String, Long> bytes = new java.util.TreeMap<>(
          scala.collection.JavaConverters.mapAsJavaMap(bytesByStorageClass));
      return Costs.rounded(Costs.storagePerMonth(prices, prices.region(region), bytes));
    }
  }
}
