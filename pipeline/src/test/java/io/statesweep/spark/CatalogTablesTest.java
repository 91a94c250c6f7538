package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.spark.tables.CatalogTables;
import io.statesweep.spark.tables.TableSchemas;
import io.statesweep.api.Approval;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --catalog-schema} on Spark's embedded Hive metastore (the build's {@code catalog} execution, a JVM of
 * its own): a plan (a dry run), an approval and an execute register every table by name at its warehouse path,
 * with its comments; both review notebooks then run every statement by table name and find rows; a name that
 * the catalog holds at another location stops the run, naming both locations.
 */
@Tag("slow")
@EnabledIfSystemProperty(named = "statesweep.test.metastore", matches = ".+",
    disabledReason = "runs in the catalog execution of the build, whose Spark session has a Hive metastore")
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CatalogTablesTest {
  private static final String SCHEMA = "statesweep";

  @TempDir
  static Path warehouse;
  @TempDir
  static Path elsewhere;
  private final SparkSession spark = SharedSpark.session();
  private LocalS3Server server;
  private String reviewed;
  private Tables tables;
  private List<String> registeredByThePlan;

  @BeforeAll
  void planApproveAndExecuteWithACatalogSchema(LocalS3Server server) {
    this.server = server;
    spark.sql("CREATE SCHEMA " + SCHEMA);
    server.createBucket("catalog");
    SampleArchive.generate(S3ObjectStore.open(server.s3Settings(), "catalog"), "cogram/",
        SampleArchive.minimumRecordCount(), 7L, Instant.now());
    PlanResult plan = new SparkPlanAction(spark, options(true, SCHEMA).plan()).execute();
    assertThat(plan.failure()).isNull();
    registeredByThePlan = tableNames(SCHEMA);
    reviewed = plan.runId();
    tables = plan.tables();
    new SparkApproveAction(spark, tables).approve(reviewed, "ana@example.com", "by name");
    ExecuteResult executed = new SparkExecuteAction(spark, options(false, SCHEMA).execute(), reviewed).execute();
    assertThat(executed.failure()).isNull();
  }

  /** A plan writes its tables and makes, empty, the two the review reads before anything is approved or executed, and restorations. */
  @Test
  void aDryRunRegistersTheTablesItWritesAndThoseTheReviewReads() {
    assertThat(registeredByThePlan).containsExactly(Tables.APPROVALS, Tables.DELETION_PLAN, Tables.EXECUTIONS,
        Tables.PLAN_SUMMARY, Tables.RESTORATIONS, Tables.RUNS, Tables.STATE_FILES);
  }

  @Test
  void everyTableIsRegisteredAtItsWarehousePathWithItsComments() {
    assertThat(tableNames(SCHEMA)).containsExactlyInAnyOrderElementsOf(Tables.ALL);
    for (String table : Tables.ALL) {
      String name = SCHEMA + "." + table;
      assertThat(CatalogTables.registeredLocation(spark, name)).as(name).isEqualTo("file:" + warehouse + "/" + table);
      assertThat(detail(name, "Comment")).as(name).isEqualTo(TableSchemas.of(table).comment());
      for (StructField field : spark.table(name).schema().fields()) {
        assertThat(field.getComment().isDefined()).as(name + "." + field.name() + " has its comment").isTrue();
        assertThat(field.getComment().get()).isEqualTo(TableSchemas.of(table).column(field.name()).comment());
        // A type the declaration states is the table's.
        java.util.Optional.ofNullable(TableSchemas.of(table).column(field.name()).type())
            .ifPresent(type -> assertThat(field.dataType()).as(name + "." + field.name()).isEqualTo(type));
      }
      // The columns of its declaration, in order.
      assertThat(spark.table(name).schema().fieldNames()).as(name)
          .containsExactlyElementsOf(TableSchemas.of(table).columnNames());
      // The same table: by name, the rows written by path.
      assertThat(spark.table(name).count()).as(name)
          .isEqualTo(TableReader.of(spark, tables).table(table).count());
    }
  }

  @Test
  void everyStatementOfBothNotebooksRunsByTableNameAndFindsRows() {
    for (ReviewNotebooks.Notebook notebook : List.of(ReviewNotebooks.Notebook.databricks(),
        ReviewNotebooks.Notebook.jupyter())) {
      assertThat(notebook.table(Tables.RUNS, SCHEMA, null)).as(notebook.file()).isEqualTo("statesweep.runs");
      assertThat(notebook.runReview(spark, SCHEMA, null, reviewed)).as(notebook.file()).isEmpty();
    }
  }

  @Test
  void theDatabricksApprovalCellApprovesByNameAsApproveDoesAndTheExecuteAcceptsIt() throws Exception {
    approvesThroughTheCell(ReviewNotebooks.Notebook.databricks(), SCHEMA);
  }

  @Test
  void theJupyterApprovalCellApprovesByNameAsApproveDoesAndTheExecuteAcceptsIt() throws Exception {
    spark.sql("CREATE SCHEMA reviewed_in_jupyter");

    approvesThroughTheCell(ReviewNotebooks.Notebook.jupyter(), "reviewed_in_jupyter");

    // The cell's schema reached the action: its first approval there registered every table of the warehouse.
    assertThat(tableNames("reviewed_in_jupyter")).containsExactlyInAnyOrderElementsOf(Tables.ALL);
    assertThat(CatalogTables.registeredLocation(spark, "reviewed_in_jupyter.approvals"))
        .isEqualTo("file:" + warehouse + "/approvals");
  }

  /**
   * The cell in schema mode: {@code schema} set, {@code warehouse} from the runs table's location (as the
   * notebook's first cell finds it), {@code approve} the digest its preview shows; the approval it records is the
   * {@code approve} command's, by the user.
   */
  private void approvesThroughTheCell(ReviewNotebooks.Notebook notebook, String schema) throws Exception {
    String location = spark.sql("DESCRIBE DETAIL " + SCHEMA + "." + Tables.RUNS).first().getAs("location");
    String foundWarehouse = location.replaceAll("/+$", "").replaceFirst("/[^/]*$", "");
    Approval byTheCommand = new SparkApproveAction(spark, tables).approve(reviewed, "reference",
        null);
    String user = spark.sql("SELECT current_user()").first().getString(0);

    ReviewNotebooks.Approval approval = notebook.approve(spark, Map.of("run_id", reviewed, "warehouse",
        foundWarehouse, "schema", schema, "note", "reviewed by name in " + notebook.file(), "approve",
        byTheCommand.planDigest()));

    assertThat(user).isNotBlank();
    assertThat(approval.previewDigest()).isEqualTo(byTheCommand.planDigest());
    assertThat(approval.line()).startsWith("approved run " + reviewed + " by " + user + " at ")
        .endsWith(" plan_rows=" + byTheCommand.planRows() + " plan_digest=" + byTheCommand.planDigest());
    Row newest = spark.table(schema + "." + Tables.APPROVALS).where("run_id = '" + reviewed + "'")
        .orderBy(org.apache.spark.sql.functions.col("approved_at").desc()).first();
    assertThat((String) newest.getAs("approved_by")).isEqualTo(user);
    assertThat((String) newest.getAs("note")).isEqualTo("reviewed by name in " + notebook.file());
    assertThat((String) newest.getAs("plan_digest")).isEqualTo(byTheCommand.planDigest());
    assertThat((Long) newest.getAs("plan_rows")).isEqualTo(byTheCommand.planRows());
    ExecuteResult executed = new SparkExecuteAction(spark, options(false, SCHEMA).execute(), reviewed).execute();
    assertThat(executed.failure()).isNull();
  }

  @Test
  void aNameTheCatalogHoldsAtAnotherLocationStopsThePlanBeforeItListsNamingBoth() {
    assertThatThrownBy(() -> new SparkPlanAction(spark, options(true, SCHEMA, elsewhere).plan()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot register table statesweep.approvals at " + elsewhere + "/approvals: the catalog already"
            + " has statesweep.approvals at file:" + warehouse + "/approvals. statesweep never re-points a table: give"
            + " another --catalog-schema, or the --warehouse of that table");
    assertThat(elsewhere.resolve(Tables.RUNS)).as("nothing written there").doesNotExist();
    for (String table : Tables.ALL) {
      assertThat(CatalogTables.registeredLocation(spark, SCHEMA + "." + table)).as("never re-pointed")
          .isEqualTo("file:" + warehouse + "/" + table);
    }
  }

  @Test
  void aNameTheCatalogHoldsAtAnotherLocationStopsTheExecuteBeforeItReadsThePlan() {
    spark.sql("CREATE SCHEMA other");
    spark.sql("CREATE TABLE other.executions (run_id STRING) USING DELTA LOCATION '" + elsewhere + "/executions'");
    long attempts = spark.table(SCHEMA + "." + Tables.RUNS).where("command = 'execute'").count();

    assertThatThrownBy(() -> new SparkExecuteAction(spark, options(false, "other").execute(), reviewed).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot register table other.executions at " + warehouse + "/executions: the catalog already has"
            + " other.executions at file:" + elsewhere + "/executions. statesweep never re-points a table: give"
            + " another --catalog-schema, or the --warehouse of that table");
    assertThat(tableNames("other")).as("a conflict registers nothing").containsExactly(Tables.EXECUTIONS);
    assertThat(spark.table(SCHEMA + "." + Tables.RUNS).where("command = 'execute'").count()).isEqualTo(attempts);
  }

  @Test
  void aSchemaTheCatalogLacksIsNamedWithWhatToDo() {
    long plans = spark.table(SCHEMA + "." + Tables.RUNS).count();

    assertThatThrownBy(() -> new SparkPlanAction(spark, options(true, "missing_schema").plan()).execute())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.catalog-schema 'missing_schema': the catalog has no schema missing_schema. Create"
            + " it (CREATE SCHEMA `missing_schema`), or give the schema the tables go in");
    assertThat(spark.table(SCHEMA + "." + Tables.RUNS).count()).as("no run recorded").isEqualTo(plans);
  }

  private RunOptions options(boolean dryRun, String schema) {
    return options(dryRun, schema, warehouse);
  }

  private RunOptions options(boolean dryRun, String schema, Path into) {
    return TestOptions.of(server.endpoint(), "catalog", "cogram/", into).with("--kind-grace-days", "drawings=90")
        .with("--catalog-schema", schema).with("--dry-run", Boolean.toString(dryRun)).options();
  }

  private List<String> tableNames(String schema) {
    return List.copyOf(new TreeSet<>(spark.sql("SHOW TABLES IN " + schema).select("tableName").as(
        org.apache.spark.sql.Encoders.STRING()).collectAsList()));
  }

  private String detail(String name, String field) {
    for (Row row : spark.sql("DESCRIBE TABLE EXTENDED " + name).collectAsList()) {
      if (field.equals(row.getString(0).strip())) {
        return row.getString(1);
      }
    }
    return null;
  }
}
