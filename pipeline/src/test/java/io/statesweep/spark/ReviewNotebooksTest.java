package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

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
 * cannot rot; every table and column carries its comment; {@code plan_summary} adds up to the plan.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReviewNotebooksTest {
  private static final List<String> TABLES = List.of(Tables.RUNS, Tables.DELETION_PLAN, Tables.STATE_FILES,
      Tables.PLAN_SUMMARY, Tables.EXECUTIONS, Tables.APPROVALS);

  @TempDir
  static Path warehouse;
  private String reviewed;
  private Tables tables;
  private final Map<String, String> flags = new HashMap<>();

  @BeforeAll
  void runPlanApproveExecuteAndPlanAgain(LocalS3Server server) {
    server.createBucket("review");
    ObjectStore store = new ObjectStore(S3Clients.shared(server.s3Settings()), "review");
    SampleArchive.generate(store, "cogram/", 150, 7L, Instant.now());
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
  void byPathTheNotebooksReadEachTableThroughTheDeltaPath() {
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      assertThat(notebook.table("runs", null, "s3://reports/statesweep")).as(notebook.file())
          .isEqualTo("delta.`s3://reports/statesweep/runs`");
    }
  }

  @Test
  void bothApprovalCellsApproveByPathAsApproveDoesAndTheExecuteAcceptsIt() throws Exception {
    SparkSession spark = SharedSpark.session();
    String user = spark.sql("SELECT current_user()").first().getString(0);
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      SparkApproveAction.Approval byTheCommand = new SparkApproveAction(spark, tables).approve(reviewed, "reference",
          null);
      Map<String, Object> variables = new HashMap<>();
      variables.put("run_id", reviewed);
      variables.put("warehouse", tables.warehouse());
      variables.put("schema", null);
      variables.put("note", "reviewed in " + notebook.file());

      String line = notebook.approve(spark, variables);

      assertThat(line).as(notebook.file()).startsWith("approved run " + reviewed + " by " + user + " at ")
          .endsWith(" plan_rows=" + byTheCommand.planRows() + " plan_digest=" + byTheCommand.planDigest());
      Row newest = spark.read().format("delta").load(tables.approvals()).where("run_id = '" + reviewed + "'")
          .orderBy(org.apache.spark.sql.functions.col("approved_at").desc()).first();
      assertThat((String) newest.getAs("approved_by")).isEqualTo(user);
      assertThat((String) newest.getAs("note")).isEqualTo("reviewed in " + notebook.file());
      assertThat((String) newest.getAs("plan_digest")).isEqualTo(byTheCommand.planDigest());
      flags.put("--dry-run", "false");
      ExecuteResult executed = new SparkExecuteAction(spark, RunOptions.from(Settings.resolve(flags, Map.of(), null)),
          reviewed).execute();
      assertThat(executed.failure()).as(notebook.file()).isNull();
    }
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
}
