package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.spark.tables.TableSchemas;
import io.delta.tables.DeltaTable;
import io.statesweep.api.Approval;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * cannot rot; every table and column carries its comment; {@code plan_summary} adds up to the plan. And on a
 * warehouse that holds one plan and nothing else (the first review of an export), every statement runs.
 *
 * <p>Every SQL statement of both notebooks runs by path here (by table name in {@code CatalogTablesTest}) against tables
 * a real plan, approve, execute and second plan wrote, and must find rows for the executed plan; on the warehouse
 * with one plan none may fail (only the statements over {@code executions}, {@code approvals} and the previous plan
 * may find nothing there).
 *
 * <p>Each approval cell runs too: pyspark is not part of the build, so the cell's calls are evaluated in Java by
 * reflection (the class after {@code spark._jvm.}, each chained method with the cell's values, the guard, the user
 * from the cell's own SQL). With the digest the preview shows, the newest approval must carry that user and that
 * digest, and {@code execute --run-id} must accept the run; with {@code approve} empty, another plan's digest or a
 * wrong one, nothing is recorded. The Jupyter notebook's chart cells must each be followed by a {@code %matplot plt}
 * cell.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReviewNotebooksTest {
  private static final List<String> TABLES = List.of(Tables.RUNS, Tables.DELETION_PLAN, Tables.STATE_FILES,
      Tables.PLAN_SUMMARY, Tables.EXECUTIONS, Tables.APPROVALS);

  @TempDir
  static Path warehouse;
  @TempDir
  static Path onePlanWarehouse;
  private String reviewed;
  private String latest;
  private Tables tables;
  private String onePlan;
  private Tables onePlanTables;
  private TestOptions options;

  @BeforeAll
  void runPlanApproveExecuteAndPlanAgain(LocalS3Server server) {
    server.createBucket("review");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "review");
    SampleArchive.generate(store, "cogram/", 150, 7L, Instant.now());
    options = TestOptions.of(server.endpoint(), "review", "cogram/", warehouse)
        .with("--kind-grace-days", "drawings=90");
    SparkSession spark = SharedSpark.session();
    PlanResult plan = new SparkPlanAction(spark, options.options().plan()).execute();
    assertThat(plan.failure()).isNull();
    reviewed = plan.runId();
    tables = plan.tables();
    new SparkApproveAction(spark, tables).approve(reviewed, "ana@example.com", "sample archive");
    ExecuteResult executed = new SparkExecuteAction(spark, options.with("--dry-run", "false").options().execute(), reviewed)
        .execute();
    assertThat(executed.failure()).isNull();
    PlanResult again = new SparkPlanAction(spark, options.with("--dry-run", "true").options().plan()).execute();
    assertThat(again.failure()).isNull();
    latest = again.runId();

    // The first review of an export: one plan (a dry run) and nothing else in its warehouse.
    server.createBucket("first-review");
    SampleArchive.generate(S3ObjectStore.open(server.s3Settings(), "first-review"), "cogram/",
        SampleArchive.minimumRecordCount(), 11L, Instant.now());
    TestOptions first = TestOptions.of(server.endpoint(), "first-review", "cogram/", onePlanWarehouse)
        .with("--kind-grace-days", "drawings=90").with("--dry-run", "true");
    PlanResult only = new SparkPlanAction(spark, first.options().plan()).execute();
    assertThat(only.failure()).isNull();
    onePlan = only.runId();
    onePlanTables = only.tables();
  }

  @Test
  void everyStatementOfTheDatabricksNotebookRunsAndFindsRows() {
    ReviewNotebooks.Notebook notebook = ReviewNotebooks.Notebook.databricks();

    assertThat(notebook.statements()).hasSizeGreaterThanOrEqualTo(15);
    assertThat(notebook.tables()).containsExactlyElementsOf(TABLES);
    assertThat(notebook.runReview(SharedSpark.session(), null, tables.warehouse(), reviewed)).isEmpty();
  }

  @Test
  void everyStatementOfTheJupyterNotebookRunsAndFindsRows() {
    ReviewNotebooks.Notebook notebook = ReviewNotebooks.Notebook.jupyter();

    assertThat(notebook.statements()).hasSizeGreaterThanOrEqualTo(15);
    assertThat(notebook.tables()).containsExactlyElementsOf(TABLES);
    assertThat(notebook.runReview(SharedSpark.session(), null, tables.warehouse(), reviewed)).isEmpty();
  }

  @Test
  void reviewingTheNewestPlanComparesItWithThePreviousPlanOfTheExport() {
    SparkSession spark = SharedSpark.session();
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      // The newest plan, after the execute: little or nothing left to delete, never executed, but nothing fails.
      assertThat(notebook.runReview(spark, null, tables.warehouse(), latest)).as(notebook.file())
          .allSatisfy((sql, why) -> assertThat(why).as(sql).isEqualTo("no rows"));
      assertThat(spark.sql("SELECT * FROM previous_run").collectAsList()).as(notebook.file() + ": previous_run")
          .extracting(row -> row.getString(0)).containsExactly(reviewed);
      String compared = notebook.statements().stream().map(ReviewNotebooks.Statement::sql)
          .filter(sql -> sql.contains("FROM previous_run") && sql.contains("plan_summary")).findFirst().orElseThrow();
      Row delete = spark.sql(compared).where("action = 'delete_record'").first();
      assertThat((Long) delete.getAs("records_this_plan")).as("nothing left to delete after the execute")
          .isLessThan((Long) delete.getAs("records_previous_plan"));
      assertThat((Long) delete.getAs("records_previous_plan")).isPositive();
    }
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      assertThat(notebook.defineViews(spark, null, tables.warehouse(), reviewed)).isEmpty();
      assertThat(spark.sql("SELECT * FROM previous_run").count()).as("the first plan has none").isZero();
    }
  }

  @Test
  void theLatestPlanIsTheNewestCompletePlanOfTheExportAndEveryExportIsListed() {
    SparkSession spark = SharedSpark.session();
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      assertThat(notebook.defineViews(spark, null, tables.warehouse(), reviewed)).isEmpty();
      List<String> statements = notebook.statements().stream().map(ReviewNotebooks.Statement::sql).toList();
      String latestPlan = statements.stream().filter(sql -> sql.startsWith("SELECT r.run_id\n")
          && sql.contains("ORDER BY r.planned_at DESC")).findFirst().orElseThrow();
      assertThat(spark.sql(latestPlan).first().getString(0)).as(notebook.file()).isEqualTo(latest);
      String exports = statements.stream().filter(sql -> sql.startsWith("SELECT bucket, prefix, count(*) AS plans"))
          .findFirst().orElseThrow();
      assertThat(spark.sql(exports).collectAsList()).as(notebook.file()).extracting(row -> row.getString(0)
          + " " + row.getString(1) + " " + row.getLong(2)).containsExactly("review cogram/ 2");
    }
  }

  @Test
  void onAWarehouseWithOnePlanEveryStatementOfBothNotebooksRunsAndTheApprovalCellShowsItsDigest() throws Exception {
    SparkSession spark = SharedSpark.session();
    Approval expected = new SparkApproveAction(spark, onePlanTables).preview(onePlan);
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      // Nothing may fail; empty are only what needs an approval, an execute or an earlier plan.
      assertThat(notebook.runReview(spark, null, onePlanTables.warehouse(), onePlan)).as(notebook.file())
          .allSatisfy((sql, why) -> {
            assertThat(why).as(sql).isEqualTo("no rows");
            assertThat(sql).as(why).containsAnyOf("FROM executions", "JOIN approvals", "FROM previous_run");
          });
      Map<String, Object> variables = new HashMap<>();
      variables.put("run_id", onePlan);
      variables.put("warehouse", onePlanTables.warehouse());
      variables.put("schema", null);
      variables.put("note", null);
      variables.put("approve", "");

      ReviewNotebooks.Approval shown = notebook.approve(spark, variables);

      assertThat(shown.approved()).as(notebook.file() + ": run all never approves").isFalse();
      assertThat(shown.previewDigest()).isEqualTo(expected.planDigest());
      assertThat(TableReader.of(spark, onePlanTables).approvals().count()).isZero();
    }
  }

  @Test
  void theJupyterNotebookShowsEachChartOnSparkmagicAndThePlainKernelAndDatabricksDisplaysEach() {
    List<String> cells = ReviewNotebooks.Notebook.jupyterCodeCells();
    int charts = 0;
    for (int i = 0; i < cells.size(); i++) {
      if (cells.get(i).contains("plt.subplots(")) {
        charts++;
        assertThat(cells.get(i)).as("a chart cell shows its figure on a plain kernel").endsWith(
            "plt.show()  # EMR Studio / sparkmagic: run the %matplot plt cell below");
        assertThat(cells.get(i + 1)).as("sparkmagic shows the figure of the cell before").isEqualTo("%matplot plt");
      } else if (cells.get(i).startsWith("%matplot")) {
        assertThat(cells.get(i - 1)).as("a %matplot cell follows a chart").contains("plt.subplots(");
      }
    }
    assertThat(charts).isEqualTo(5);
    assertThat(ReviewNotebooks.Notebook.jupyter().python()).as("a plain kernel defines %%sql and %matplot")
        .contains("register_magic_function(lambda line: None, \"line\", \"matplot\")")
        .contains("\"cell\", \"sql\")");
    List<String> databricks = ReviewNotebooks.Notebook.databricks().pythonCells().stream()
        .filter(cell -> cell.contains("plt.subplots(")).toList();
    assertThat(databricks).hasSize(5).allSatisfy(cell -> assertThat(cell).endsWith("display(fig)"));
  }

  @Test
  void byPathTheNotebooksReadEachTableThroughTheDeltaPath() {
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      assertThat(notebook.table("runs", null, "s3://reports/statesweep")).as(notebook.file())
          .isEqualTo("delta.`s3://reports/statesweep/runs`");
    }
  }

  @Test
  void bothApprovalCellsApproveByPathTheDigestTheyShowAsApproveDoesAndTheExecuteAcceptsIt() throws Exception {
    SparkSession spark = SharedSpark.session();
    String user = spark.sql("SELECT current_user()").first().getString(0);
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      Approval byTheCommand = new SparkApproveAction(spark, tables).approve(reviewed, "reference",
          null);
      Map<String, Object> variables = variables(notebook);
      variables.put("approve", byTheCommand.planDigest());

      ReviewNotebooks.Approval approved = notebook.approve(spark, variables);

      assertThat(approved.previewDigest()).isEqualTo(byTheCommand.planDigest());
      assertThat(approved.line()).as(notebook.file()).startsWith("approved run " + reviewed + " by " + user + " at ")
          .endsWith(" plan_rows=" + byTheCommand.planRows() + " plan_digest=" + byTheCommand.planDigest());
      Row newest = newestApproval(spark);
      assertThat((String) newest.getAs("approved_by")).isEqualTo(user);
      assertThat((String) newest.getAs("note")).isEqualTo("reviewed in " + notebook.file());
      assertThat((String) newest.getAs("plan_digest")).isEqualTo(byTheCommand.planDigest());
      ExecuteResult executed = new SparkExecuteAction(spark, options.with("--dry-run", "false").options().execute(), reviewed)
          .execute();
      assertThat(executed.failure()).as(notebook.file()).isNull();
    }
  }

  @Test
  void anApprovalCellApprovesNothingForAStaleOrAnotherPlansDigestOrWhenEmpty() throws Exception {
    SparkSession spark = SharedSpark.session();
    String otherPlans = new SparkApproveAction(spark, tables).preview(latest).planDigest();
    String current = new SparkApproveAction(spark, tables).preview(reviewed).planDigest();
    assertThat(otherPlans).isNotEqualTo(current);
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      for (String typed : List.of("", otherPlans, "0".repeat(current.length()))) {
        long approvals = TableReader.of(spark, tables).approvals().count();
        Map<String, Object> variables = variables(notebook);
        variables.put("approve", typed);

        ReviewNotebooks.Approval shown = notebook.approve(spark, variables);

        assertThat(shown.approved()).as(notebook.file() + " with approve '" + typed + "'").isFalse();
        assertThat(shown.previewDigest()).isEqualTo(current);
        assertThat(TableReader.of(spark, tables).approvals().count()).as("nothing recorded")
            .isEqualTo(approvals);
      }
    }
  }

  private Map<String, Object> variables(ReviewNotebooks.Notebook notebook) {
    Map<String, Object> variables = new HashMap<>();
    variables.put("run_id", reviewed);
    variables.put("warehouse", tables.warehouse());
    variables.put("schema", null);
    variables.put("note", "reviewed in " + notebook.file());
    return variables;
  }

  private Row newestApproval(SparkSession spark) {
    return TableReader.of(spark, tables).approvals(reviewed)
        .orderBy(org.apache.spark.sql.functions.col("approved_at").desc()).first();
  }

  @Test
  void everyTableAndColumnHasItsCommentAndIsInTheReadme() throws IOException {
    String readme = Files.readString(Path.of("..", "pipeline", "README.md"));
    SparkSession spark = SharedSpark.session();
    for (String table : TABLES) {
      String path = tables.path(table);
      Row detail = DeltaTable.forPath(spark, path).detail().select("description", "partitionColumns").first();
      assertThat(detail.getString(0)).as(table).isEqualTo(TableSchemas.of(table).comment());
      assertThat(detail.<String>getList(1)).as(table).containsExactly("run_date");
      assertThat(readme).as("README names table " + table).contains("**`" + table + "`**");
      for (StructField field : TableReader.of(spark, tables).table(table).schema().fields()) {
        assertThat(field.getComment().isDefined()).as(table + "." + field.name() + " has a comment").isTrue();
        assertThat(readme).as("README names column " + table + "." + field.name()).contains("`" + field.name() + "`");
      }
    }
  }

  @Test
  void thePlanSummaryAddsUpToThePlanAndMasksKeys() {
    SparkSession spark = SharedSpark.session();
    Row plan = TableReader.of(spark, tables).deletionPlan(reviewed)
        .selectExpr("count(*)", "sum(keys_to_delete)", "sum(bytes_to_delete)").first();
    Row summary = TableReader.of(spark, tables).planSummary(reviewed)
        .selectExpr("sum(records)", "sum(keys_to_delete)", "sum(bytes_to_delete)", "count(*)",
            "count_if(reason_pattern like '%cogram/%')", "count_if(grace_rule = 'kind drawings')",
            "count(distinct reason_pattern)")
        .first();
    long reasons = TableReader.of(spark, tables).deletionPlan(reviewed)
        .selectExpr("count(distinct reason)").first().getLong(0);

    assertThat(summary.getLong(0)).isEqualTo(plan.getLong(0));
    assertThat(summary.getLong(1)).isEqualTo(plan.getLong(1));
    assertThat(summary.getLong(2)).isEqualTo(plan.getLong(2));
    assertThat(summary.getLong(3)).as("groups, fewer than records").isLessThan(plan.getLong(0));
    assertThat(summary.getLong(6)).as("reason patterns, far fewer than reasons").isLessThan(reasons / 2);
    assertThat(summary.getLong(4)).as("no key left in a reason pattern").isZero();
    assertThat(summary.getLong(5)).as("drawings took their own grace").isPositive();
  }
}
