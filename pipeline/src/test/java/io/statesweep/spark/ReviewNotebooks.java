package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.spark.run.RootMessage;
import io.statesweep.api.Approval;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;

/**
 * The review notebooks as the tests run them (pyspark is not available to the build): the SQL of every
 * {@code %sql}/{@code %%sql} cell and every {@code spark.sql(...)} string, the notebook's {@code table(name)}
 * helper (by name in a catalog schema, or by path) applied to its f-strings, and the approval cell's call chain
 * into the JVM, evaluated with reflection.
 */
final class ReviewNotebooks {
  static final Path FOLDER = Path.of("..", "notebooks");
  private static final Pattern SPARK_SQL = Pattern.compile(
      "spark\\.sql\\(\\s*(f?)(?:\"\"\"(.*?)\"\"\"|\"([^\"]*)\")", Pattern.DOTALL);
  private static final Pattern TABLE_HELPER = Pattern.compile(
      "def table\\(name\\):\\n(?:\\s*\"\"\".*?\"\"\"\\n)?\\s*return f\"([^\"]*)\" if schema else f\"([^\"]*)\"\\n",
      Pattern.DOTALL);
  private static final Pattern TABLES_LIST = Pattern.compile("\\nTABLES = \\[([^\\]]*)\\]");
  private static final Pattern TABLE_CALL = Pattern.compile("\\{table\\((?:'([^']*)'|\"([^\"]*)\"|(name))\\)\\}");
  /** {@code name = spark._jvm.<class>.<method>(<arg>).<call>(<arg>)...} or {@code name = <variable>.<call>(<arg>)...}. */
  private static final Pattern JVM_ASSIGNMENT = Pattern.compile("(?m)^[ ]*(\\w+) = (?:spark\\._jvm\\.([\\w.]+)\\.(\\w+)"
      + "\\(([^()]*)\\)|([a-z_]\\w*))((?:\\.\\w+\\([^()]*\\))+)[ ]*$");
  private static final Pattern CHAINED = Pattern.compile("\\.(\\w+)\\(([^()]*)\\)");
  private static final Pattern VIEW = Pattern.compile("(?i)^CREATE OR REPLACE TEMPORARY VIEW (\\w+) AS\\s");
  /** The approval cell's guard: it approves only the digest its own {@code preview()} shows. */
  static final String GUARD = "if not approve or approve != preview.planDigest():\n";

  /** A notebook: its Python code cells and its SQL cells, in order. */
  record Notebook(String file, List<String> pythonCells, List<String> sqlCells) {

    static Notebook databricks() {
      return databricks(read("review_databricks.py"));
    }

    static Notebook jupyter() {
      return jupyter(read("review_jupyter.ipynb"));
    }

    static Notebook databricks(String source) {
      assertThat(source).startsWith("# Databricks notebook source\n");
      List<String> python = new ArrayList<>();
      List<String> sql = new ArrayList<>();
      for (String cell : source.split("\n# COMMAND ----------\n")) {
        String text = cell.strip();
        if (text.startsWith("# MAGIC %sql")) {
          StringBuilder statements = new StringBuilder();
          for (String line : text.split("\n")) {
            String stripped = line.replaceFirst("^# MAGIC ?", "");
            if (!stripped.startsWith("%sql")) {
              statements.append(stripped).append('\n');
            }
          }
          sql.add(statements.toString());
        } else if (!text.startsWith("# MAGIC") && !text.startsWith("# Databricks notebook source")) {
          python.add(text);
        }
      }
      return new Notebook("review_databricks.py", python, sql);
    }

    static Notebook jupyter(String json) {
      JsonNode notebook;
      try {
        notebook = new ObjectMapper().readTree(json);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      List<String> python = new ArrayList<>();
      List<String> sql = new ArrayList<>();
      for (JsonNode cell : notebook.get("cells")) {
        if (!cell.get("cell_type").asText().equals("code")) {
          continue;
        }
        StringBuilder source = new StringBuilder();
        cell.get("source").forEach(line -> source.append(line.asText()));
        String text = source.toString().strip();
        if (text.startsWith("%%sql")) {
          sql.add(text.substring(text.indexOf('\n') + 1));
        } else if (text.startsWith("%matplot")) {
          continue; // sparkmagic's magic that draws the cluster's figure: no Python, no SQL
        } else {
          python.add(text);
        }
      }
      return new Notebook("review_jupyter.ipynb", python, sql);
    }

    /** The text of every code cell of the Jupyter notebook, in order, magics included. */
    static List<String> jupyterCodeCells() {
      List<String> cells = new ArrayList<>();
      try {
        for (JsonNode cell : new ObjectMapper().readTree(read("review_jupyter.ipynb")).get("cells")) {
          if (cell.get("cell_type").asText().equals("code")) {
            StringBuilder source = new StringBuilder();
            cell.get("source").forEach(line -> source.append(line.asText()));
            cells.add(source.toString().strip());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return cells;
    }

    private static String read(String file) {
      try {
        return Files.readString(FOLDER.resolve(file));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    String python() {
      return String.join("\n\n", pythonCells);
    }

    /** Every SQL statement, f-strings as written (their {@code {...}} unevaluated). */
    List<Statement> statements() {
      List<Statement> statements = new ArrayList<>();
      for (String cell : sqlCells) {
        split(cell).forEach(sql -> statements.add(new Statement(sql, false)));
      }
      for (String cell : pythonCells) {
        Matcher matcher = SPARK_SQL.matcher(cell);
        while (matcher.find()) {
          String sql = matcher.group(2) != null ? matcher.group(2) : matcher.group(3);
          statements.add(new Statement(sql.strip(), !matcher.group(1).isEmpty()));
        }
      }
      return statements;
    }

    /** The notebook's {@code TABLES} list: the tables it makes a view of each. */
    List<String> tables() {
      Matcher matcher = TABLES_LIST.matcher(python());
      assertThat(matcher.find()).as(file + " has a TABLES list").isTrue();
      List<String> tables = new ArrayList<>();
      for (String entry : matcher.group(1).split(",")) {
        tables.add(entry.strip().replaceAll("^\"|\"$", ""));
      }
      return tables;
    }

    /**
     * The notebook's {@code table(name)} helper, evaluated: {@code return f"<by name>" if schema else
     * f"<by path>"} with {@code schema}, {@code warehouse} and {@code name} bound.
     */
    String table(String name, String schema, String warehouse) {
      Matcher matcher = TABLE_HELPER.matcher(python());
      assertThat(matcher.find()).as(file + " defines table(name) as one f-string for each mode").isTrue();
      String template = schema != null ? matcher.group(1) : matcher.group(2);
      String reference = template.replace("{schema}", String.valueOf(schema))
          .replace("{warehouse}", String.valueOf(warehouse)).replace("{name}", name);
      assertThat(reference).as("no other placeholder in table(name)").doesNotContain("{");
      return reference;
    }

    /** The code cell that approves (the one that calls into the JVM). */
    String approvalCell() {
      List<String> cells = pythonCells.stream().filter(cell -> cell.contains("spark._jvm.")).toList();
      assertThat(cells).as(file + " has one approval cell").hasSize(1);
      assertThat(pythonCells.get(pythonCells.size() - 1)).as("the approval cell is the last").isEqualTo(cells.get(0));
      return cells.get(0);
    }

    /**
     * Evaluates the approval cell as the reviewer who typed {@code approve} in (empty: as saved): the top of the
     * cell (its {@code spark._jvm} action and {@code preview = action.preview()}), then its guard
     * ({@link #GUARD}) in Java, then, when the guard lets it through, the else branch (the user from the cell's own
     * {@code spark.sql} statement, then the call that approves). {@code spark._jsparkSession} is the Java session;
     * the cell's other variables come from {@code variables}. The cell must approve only in the else branch, with
     * {@code .digest(approve)}, and {@code approve} must be empty until the reviewer sets it.
     */
    Approval approve(SparkSession spark, Map<String, Object> variables) throws ReflectiveOperationException {
      String cell = approvalCell();
      assertThat(cell).as(file + ": the approval is guarded by the digest the preview shows").contains(GUARD);
      String top = cell.substring(0, cell.indexOf(GUARD));
      String rest = cell.substring(cell.indexOf(GUARD) + GUARD.length());
      assertThat(rest).as(file + ": an if/else").contains("\nelse:\n");
      String otherwise = rest.substring(rest.indexOf("\nelse:\n") + "\nelse:\n".length());
      assertThat(top).as(file + ": the preview comes from the action").containsPattern("(?m)^preview = action\\.preview\\(\\)$");
      assertThat(top + rest.substring(0, rest.indexOf("\nelse:\n"))).as(file + ": nothing approves before the guard")
          .doesNotContain(".execute()");
      assertThat(otherwise).as(file + ": the approval repeats the digest check as it records")
          .containsPattern("(?m)^    approval = action\\.by\\(user\\)\\.note\\(note\\)\\.digest\\(approve\\)\\.execute\\(\\)$");
      assertThat(python()).as(file + ": approve is empty until the reviewer sets it")
          .containsPattern("dbutils\\.widgets\\.text\\(\"approve\", \"\",|\\napprove = \"\"  #|^approve = \"\"  #");
      Map<String, Object> bound = new java.util.HashMap<>(variables);
      bound.put("spark._jsparkSession", spark);
      assertThat(bound).as("the reviewer's approve").containsKey("approve");
      evaluateAssignments(top, bound);
      Object preview = bound.get("preview");
      String digest = (String) call(preview, "planDigest");
      String approve = (String) bound.get("approve");
      if (approve == null || approve.isEmpty() || !approve.equals(digest)) {
        return new Approval(preview, null);
      }
      List<Statement> userSql = new Notebook(file, List.of(otherwise), List.of()).statements();
      assertThat(userSql).as(file + ": the approval cell asks Spark who the user is").hasSize(1);
      bound.put("user", spark.sql(userSql.get(0).sql()).first().getString(0));
      evaluateAssignments(otherwise, bound);
      return new Approval(preview, (String) call(bound.get("approval"), "line"));
    }

    /** Runs each JVM assignment of {@code code} in order, binding its name. */
    private static void evaluateAssignments(String code, Map<String, Object> bound) throws ReflectiveOperationException {
      Matcher matcher = JVM_ASSIGNMENT.matcher(code);
      while (matcher.find()) {
        bound.put(matcher.group(1), JvmCall.of(matcher).evaluate(bound));
      }
    }

    /**
     * Runs the notebook's review as it does: a view of each table through its {@code table(name)} helper (by
     * name when {@code schema} is set, else by path), {@code review_run} holding {@code runId}, then every
     * statement. Returns the statements that failed or found no rows, with why.
     */
    Map<String, String> runReview(SparkSession spark, String schema, String warehouse, String runId) {
      Map<String, String> failures = defineViews(spark, schema, warehouse, runId);
      for (Statement statement : statements()) {
        if (statement.perTable() || statement.view()) {
          continue;
        }
        String sql = statement.evaluate(this, schema, warehouse, null);
        try {
          if (spark.sql(sql).limit(1).collectAsList().isEmpty()) {
            failures.put(sql, "no rows");
          }
        } catch (Exception e) {
          failures.put(sql, RootMessage.of(e));
        }
      }
      return failures;
    }

    /**
     * The first part of {@link #runReview}, as the notebook's first cells do it: a view of each table, {@code
     * review_export} and {@code review_run} for {@code runId}, then the notebook's own views; no other statement
     * runs. Returns the view statements that failed, with why.
     */
    Map<String, String> defineViews(SparkSession spark, String schema, String warehouse, String runId) {
      Map<String, String> failures = new LinkedHashMap<>();
      List<Statement> statements = statements();
      List<Statement> views = statements.stream().filter(Statement::perTable).toList();
      assertThat(views).as(file + ": one statement makes the view of each table").hasSize(1);
      // Nothing of an earlier review: each view is this notebook's.
      for (String name : tables()) {
        spark.catalog().dropTempView(name);
      }
      for (String name : tables()) {
        spark.sql(views.get(0).evaluate(this, schema, warehouse, name)).createOrReplaceTempView(name);
      }
      // As the first cell does: the export of the plan under review, the run, then the views it defines.
      spark.sql("SELECT bucket, prefix FROM runs WHERE command = 'plan' AND run_id = '" + runId + "'")
          .createOrReplaceTempView("review_export");
      spark.sql("SELECT '" + runId + "' AS run_id").createOrReplaceTempView("review_run");
      for (Statement statement : statements) {
        if (statement.view()) {
          try {
            spark.sql(statement.evaluate(this, schema, warehouse, null));
          } catch (Exception e) {
            failures.put(statement.sql(), RootMessage.of(e));
          }
        }
      }
      return failures;
    }
  }

  /** What the approval cell did: the {@code preview()} it showed, and the approval's line (null: not approved). */
  record Approval(Object preview, String line) {
    String previewDigest() {
      try {
        return (String) call(preview, "planDigest");
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }

    boolean approved() {
      return line != null;
    }
  }

  private static Object call(Object target, String method) throws ReflectiveOperationException {
    Method found = JvmCall.method(target.getClass(), method, 0);
    found.setAccessible(true);
    return found.invoke(target);
  }

  /** One SQL statement of a notebook; an f-string's {@code {table(...)}} are evaluated by the notebook's helper. */
  record Statement(String sql, boolean formatted) {
    /** A temporary view the notebook defines (it returns no rows; the statements after it read it). */
    boolean view() {
      return VIEW.matcher(sql).find();
    }

    boolean perTable() {
      return formatted && sql.contains("{table(name)}");
    }

    String evaluate(Notebook notebook, String schema, String warehouse, String name) {
      if (!formatted) {
        return sql;
      }
      Matcher matcher = TABLE_CALL.matcher(sql);
      StringBuilder evaluated = new StringBuilder();
      while (matcher.find()) {
        String table = matcher.group(3) != null ? name : matcher.group(1) != null ? matcher.group(1) : matcher.group(2);
        matcher.appendReplacement(evaluated, Matcher.quoteReplacement(notebook.table(table, schema, warehouse)));
      }
      matcher.appendTail(evaluated);
      assertThat(evaluated.toString()).as("only table(...) is formatted into SQL: " + sql).doesNotContain("{");
      return evaluated.toString();
    }
  }

  /**
   * One call chain of the approval cell: from the class after {@code spark._jvm.} (a static method first), or from
   * a variable of the cell ({@code target}), then each method of the chain.
   */
  record JvmCall(String className, String target, List<Call> calls) {
    record Call(String method, String argument) {}

    static JvmCall of(Matcher assignment) {
      List<Call> calls = new ArrayList<>();
      if (assignment.group(2) != null) {
        calls.add(new Call(assignment.group(3), assignment.group(4).strip()));
      }
      Matcher chained = CHAINED.matcher(assignment.group(6));
      while (chained.find()) {
        calls.add(new Call(chained.group(1), chained.group(2).strip()));
      }
      return new JvmCall(assignment.group(2), assignment.group(5), calls);
    }

    /**
     * Calls the chain as py4j would: the static method on the class, then each method on the result, each
     * argument a variable of the cell looked up in {@code variables} (none for {@code ()}).
     */
    Object evaluate(Map<String, Object> variables) throws ReflectiveOperationException {
      Object target = null;
      Class<?> type;
      if (className != null) {
        type = Class.forName(className);
      } else {
        assertThat(variables).as("the cell's variable " + this.target + " is bound").containsKey(this.target);
        target = variables.get(this.target);
        type = target.getClass();
      }
      for (Call call : calls) {
        Object[] arguments = call.argument().isEmpty() ? new Object[0] : new Object[] {value(variables, call)};
        Method method = method(type, call.method(), arguments.length);
        method.setAccessible(true);
        target = method.invoke(target, arguments);
        type = target == null ? null : target.getClass();
        if (type == null) {
          throw new IllegalStateException(call.method() + "(" + call.argument() + ") returned null");
        }
      }
      return target;
    }

    private static Object value(Map<String, Object> variables, Call call) {
      assertThat(variables).as("the cell's variable " + call.argument() + " is bound").containsKey(call.argument());
      return variables.get(call.argument());
    }

    private static Method method(Class<?> type, String name, int parameters) {
      for (Class<?> owner = type; owner != null; owner = owner.getSuperclass()) {
        for (Method method : owner.getDeclaredMethods()) {
          if (method.getName().equals(name) && method.getParameterCount() == parameters && !method.isBridge()) {
            return method;
          }
        }
      }
      throw new IllegalStateException("no method " + name + " with " + parameters + " parameters on " + type);
    }
  }

  private ReviewNotebooks() {}

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
