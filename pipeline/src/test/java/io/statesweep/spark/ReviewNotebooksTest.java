package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaTable;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review path on tables a real run wrote (plan, approve, execute, plan again on the generated
 * sample archive): every SQL statement of both review notebooks runs and finds rows, so the notebooks
 * cannot rot; every table and column carries its comment; {@code plan_summary} adds up to the plan.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReviewNotebooksTest {
  private static final Path NOTEBOOKS = Path.of("..", "notebooks");
  private static final Pattern SPARK_SQL = Pattern.compile("spark\\.sql\\(\\s*(?:\"\"\"(.*?)\"\"\"|\"([^\"]*)\")",
      Pattern.DOTALL);
  private static final List<String> TABLES = List.of(Tables.RUNS, Tables.DELETION_PLAN, Tables.STATE_FILES,
      Tables.PLAN_SUMMARY, Tables.EXECUTIONS, Tables.APPROVALS);

  @TempDir
  static Path warehouse;
  private String reviewed;
  private Tables tables;

  @BeforeAll
  void runPlanApproveExecuteAndPlanAgain(LocalS3Server server) {
    server.createBucket("review");
    ObjectStore store = new ObjectStore(S3Clients.shared(server.s3Settings()), "review");
    SampleArchive.generate(store, "cogram/", 150, 7L, Instant.now());
    Map<String, String> flags = new HashMap<>();
    flags.put("--bucket", "review");
    flags.put("--prefix", "cogram/");
    flags.put("--endpoint", server.endpoint());
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    flags.put("--kind-grace-days", "drawings=90");
    SparkSession spark = SharedSpark.session();
    PlanResult plan = new SparkPlanAction(spark, RunOptions.from(Settings.resolve(flags, Map.of(), null))).execute();
    assertThat(plan.failure()).isNull();
    reviewed = plan.runId();
    tables = plan.tables();
    new SparkApproveAction(spark, tables).approve(reviewed, "ana@example.com", "sample archive");
    flags.put("--dry-run", "false");
    ExecuteResult executed = new SparkExecuteAction(spark, RunOptions.from(Settings.resolve(flags, Map.of(), null)),
        reviewed).execute();
    assertThat(executed.failure()).isNull();
    flags.put("--dry-run", "true");
    assertThat(new SparkPlanAction(spark, RunOptions.from(Settings.resolve(flags, Map.of(), null))).execute()
        .failure()).isNull();
  }

  @Test
  void everyStatementOfTheDatabricksNotebookRunsAndFindsRows() throws IOException {
    List<String> statements = databricksStatements(Files.readString(NOTEBOOKS.resolve("review_databricks.py")));

    assertThat(statements).hasSizeGreaterThanOrEqualTo(15);
    assertRunAndFindRows(statements);
  }

  @Test
  void everyStatementOfTheJupyterNotebookRunsAndFindsRows() throws IOException {
    List<String> statements = jupyterStatements(Files.readString(NOTEBOOKS.resolve("review_jupyter.ipynb")));

    assertThat(statements).hasSizeGreaterThanOrEqualTo(15);
    assertRunAndFindRows(statements);
  }

  @Test
  void everyTableAndColumnHasItsCommentAndIsInTheReadme() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    SparkSession spark = SharedSpark.session();
    for (String table : TABLES) {
      String path = tables.path(table);
      Row detail = DeltaTable.forPath(spark, path).detail().select("description", "partitionColumns").first();
      assertThat(detail.getString(0)).as(table).isEqualTo(TableDocs.TABLES.get(table));
      assertThat(detail.<String>getList(1)).as(table).containsExactly("run_date");
      assertThat(readme).as("README names table " + table).contains("**`" + table + "`**");
      for (StructField field : spark.read().format("delta").load(path).schema().fields()) {
        assertThat(field.getComment().isDefined()).as(table + "." + field.name() + " has a comment").isTrue();
        assertThat(readme).as("README names column " + table + "." + field.name()).contains("`" + field.name() + "`");
      }
    }
  }

  @Test
  void thePlanSummaryAddsUpToThePlanAndMasksKeys() {
    SparkSession spark = SharedSpark.session();
    Row plan = spark.read().format("delta").load(tables.deletionPlan()).filter("run_id = '" + reviewed + "'")
        .selectExpr("count(*)", "sum(keys_to_delete)", "sum(bytes_to_delete)").first();
    Row summary = spark.read().format("delta").load(tables.planSummary()).filter("run_id = '" + reviewed + "'")
        .selectExpr("sum(records)", "sum(keys_to_delete)", "sum(bytes_to_delete)", "count(*)",
            "count_if(reason_pattern like '%cogram/%')", "count_if(grace_rule = 'kind drawings')",
            "count(distinct reason_pattern)")
        .first();
    long reasons = spark.read().format("delta").load(tables.deletionPlan()).filter("run_id = '" + reviewed + "'")
        .selectExpr("count(distinct reason)").first().getLong(0);

    assertThat(summary.getLong(0)).isEqualTo(plan.getLong(0));
    assertThat(summary.getLong(1)).isEqualTo(plan.getLong(1));
    assertThat(summary.getLong(2)).isEqualTo(plan.getLong(2));
    assertThat(summary.getLong(3)).as("groups, fewer than records").isLessThan(plan.getLong(0));
    assertThat(summary.getLong(6)).as("reason patterns, far fewer than reasons").isLessThan(reasons / 2);
    assertThat(summary.getLong(4)).as("no key left in a reason pattern").isZero();
    assertThat(summary.getLong(5)).as("drawings took their own grace").isPositive();
  }

  private void assertRunAndFindRows(List<String> statements) {
    SparkSession spark = SharedSpark.session();
    for (String table : TABLES) {
      spark.read().format("delta").load(tables.path(table)).createOrReplaceTempView(table);
    }
    spark.sql("SELECT '" + reviewed + "' AS run_id").createOrReplaceTempView("review_run");
    Map<String, String> failures = new LinkedHashMap<>();
    for (String statement : statements) {
      try {
        if (spark.sql(statement).limit(1).collectAsList().isEmpty()) {
          failures.put(statement, "no rows");
        }
      } catch (Exception e) {
        failures.put(statement, SparkPlanAction.rootMessage(e));
      }
    }
    assertThat(failures).isEmpty();
  }

  /** The {@code %sql} cells and the {@code spark.sql(...)} strings of a Databricks source notebook. */
  static List<String> databricksStatements(String source) {
    assertThat(source).startsWith("# Databricks notebook source\n");
    List<String> statements = new ArrayList<>();
    for (String cell : source.split("\n# COMMAND ----------\n")) {
      String text = cell.strip();
      if (text.startsWith("# MAGIC %sql")) {
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n")) {
          String stripped = line.replaceFirst("^# MAGIC ?", "");
          if (!stripped.startsWith("%sql")) {
            sql.append(stripped).append('\n');
          }
        }
        statements.addAll(split(sql.toString()));
      } else if (!text.startsWith("# MAGIC")) {
        statements.addAll(pythonStatements(text));
      }
    }
    return statements;
  }

  /** The {@code %%sql} cells and the {@code spark.sql(...)} strings of a Jupyter notebook. */
  static List<String> jupyterStatements(String json) throws IOException {
    JsonNode notebook = new ObjectMapper().readTree(json);
    List<String> statements = new ArrayList<>();
    for (JsonNode cell : notebook.get("cells")) {
      if (!cell.get("cell_type").asText().equals("code")) {
        continue;
      }
      StringBuilder source = new StringBuilder();
      cell.get("source").forEach(line -> source.append(line.asText()));
      String text = source.toString().strip();
      if (text.startsWith("%%sql")) {
        statements.addAll(split(text.substring(text.indexOf('\n') + 1)));
      } else {
        statements.addAll(pythonStatements(text));
      }
    }
    return statements;
  }

  private static List<String> pythonStatements(String code) {
    List<String> statements = new ArrayList<>();
    Matcher matcher = SPARK_SQL.matcher(code);
    while (matcher.find()) {
      statements.add((matcher.group(1) != null ? matcher.group(1) : matcher.group(2)).strip());
    }
    return statements;
  }

  private static List<String> split(String sql) {
    List<String> statements = new ArrayList<>();
    for (String statement : sql.split(";\\s*(\n|$)")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
  }
}
