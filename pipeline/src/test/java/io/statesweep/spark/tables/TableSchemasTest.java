package io.statesweep.spark.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.api.Tables;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The tables' declarations (no Spark session): each bean table's columns are its row bean's properties, no more and
 * no fewer, so a field cannot reach a table without its declaration and its comment; every table and column has its
 * comment, and a column has the same one in every table that has it.
 */
class TableSchemasTest {
  @Test
  void everyTableIsDeclaredOnceInTheOrderAReviewReadsThem() {
    assertThat(TableSchemas.ALL.stream().map(TableSchema::name).toList()).isEqualTo(Tables.ALL);
    for (String table : Tables.ALL) {
      assertThat(TableSchemas.of(table).name()).isEqualTo(table);
    }
    assertThatThrownBy(() -> TableSchemas.of("deletion_plans"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("statesweep has no table deletion_plans; its tables: " + Tables.ALL);
  }

  @Test
  void aBeanTablesColumnsAreItsRowBeansPropertiesNoMoreNoFewer() {
    List<TableSchema<?>> beanTables = TableSchemas.ALL.stream().filter(table -> table.rowClass() != null).toList();
    assertThat(beanTables).containsExactlyInAnyOrder(TableSchemas.STATE_FILES, TableSchemas.DELETION_PLAN,
        TableSchemas.EXECUTIONS);
    for (TableSchema<?> table : beanTables) {
      StructType bean = table.encoder().schema();
      assertThat(Arrays.stream(bean.fieldNames()).map(TableColumn::ofProperty).toList())
          .as("the properties of %s, as %s's columns", table.rowClass().getSimpleName(), table.name())
          .containsExactlyInAnyOrderElementsOf(table.columnNames());
      for (TableColumn column : table.columns()) {
        StructField property = bean.apply(TableColumn.property(column.name()));
        // The bean gives the type; a type the declaration states must be the bean's.
        if (column.type() != null) {
          assertThat(column.type()).as(table.name() + "." + column.name()).isEqualTo(property.dataType());
        }
      }
    }
  }

  @Test
  void aTableWrittenFromRowsStatesItsTypesUnlessAQueryGivesThem() {
    assertThat(TableSchemas.RUNS.structType().fieldNames()).containsExactlyElementsOf(TableSchemas.RUNS.columnNames());
    assertThat(TableSchemas.RUNS.structType().apply("missing_files").dataType()).isEqualTo(DataTypes.LongType);
    assertThat(TableSchemas.APPROVALS.structType().apply("plan_digest").nullable()).isFalse();
    assertThat(TableSchemas.APPROVALS.structType().apply("note").nullable()).isTrue();
    assertThatThrownBy(TableSchemas.PLAN_SUMMARY::structType)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("column run_id of table plan_summary declares no type: its type comes from the query that writes"
            + " the table");
    assertThatThrownBy(TableSchemas.RUNS::encoder)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("table runs has no row bean: its rows are Rows of its structType()");
  }

  @Test
  void everyTableAndColumnHasACommentAndAColumnHasTheSameOneInEveryTable() {
    Map<String, String> comments = new HashMap<>();
    for (TableSchema<?> table : TableSchemas.ALL) {
      assertThat(table.comment()).as(table.name()).startsWith("statesweep: ").endsWith(".");
      for (TableColumn column : table.columns()) {
        assertThat(column.comment()).as(table.name() + "." + column.name()).isNotBlank();
        String other = comments.putIfAbsent(column.name(), column.comment());
        assertThat(other == null ? column.comment() : other)
            .as("the comment of %s in %s and in the tables declared before", column.name(), table.name())
            .isEqualTo(column.comment());
      }
    }
    assertThat(new TreeSet<>(comments.keySet())).contains("run_id", "run_date", "planned_at", "missing_files");
  }

  @Test
  void aNewTableGetsEachColumnsCommentAndOnlyDeclaredColumns() {
    StructType rows = new StructType()
        .add("run_id", DataTypes.StringType, false)
        .add("approved_by", DataTypes.StringType, false);

    StructType commented = TableSchemas.APPROVALS.withComments(rows);

    assertThat(commented.fieldNames()).containsExactly("run_id", "approved_by");
    assertThat(commented.apply("approved_by").getComment().get()).isEqualTo("who approved the plan (--by)");
    assertThat(Arrays.stream(commented.fields()).allMatch(StructField::nullable)).isTrue();
    assertThatThrownBy(() -> TableSchemas.APPROVALS.withComments(rows.add("approved_when", DataTypes.StringType)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("column approved_when of table approvals has no comment: it is not declared in TableSchemas");
  }

  @Test
  void aColumnNamesItsBeanPropertyAndBack() {
    assertThat(TableColumn.property("child_keys_to_delete")).isEqualTo("childKeysToDelete");
    assertThat(TableColumn.ofProperty("childKeysToDelete")).isEqualTo("child_keys_to_delete");
    assertThat(TableColumn.ofProperty("stateEtag")).isEqualTo("state_etag");
    assertThatThrownBy(() -> TableSchemas.DELETION_PLAN.column("state_file"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("table deletion_plan has no column state_file; its columns: [run_id, run_date,");
  }
}
