package io.statesweep.spark.tables;

import io.statesweep.api.Tables;
import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.config.CatalogSchema;
import io.statesweep.plan.LineText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers statesweep's Delta tables by name ({@code --catalog-schema}): {@code CREATE TABLE IF NOT EXISTS
 * <schema>.<table> USING DELTA LOCATION '<warehouse>/<table>'}, so analysts find them in Unity Catalog, Glue or
 * a Hive metastore. The path stays the source of truth: every read and write goes by path, and a name that the
 * catalog already holds at another location is an error naming both, never re-pointed.
 *
 * <p>Each action registers every table its warehouse holds before it reads or writes anything (a warehouse
 * written before the setting was given gets its names; a name taken elsewhere stops the action before it
 * deletes anything), then each table the first time it is written ({@link SparkPlanAction#append}).
 */
public final class CatalogTables {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogTables.class);
  private static final String TABLE_NAME = "[A-Za-z0-9_]+";

  private CatalogTables() {}

  /**
   * Registers every Delta table of the warehouse ({@link Tables#ALL} and any other folder of it with a Delta
   * log), after checking that each name is free or already this warehouse's table (a
   * {@link BadSettingsException} naming both locations otherwise). Nothing without a catalog schema.
   */
  public static void registerAll(SparkSession spark, Tables tables) {
    CatalogSchema schema = schema(tables);
    if (schema == null) {
      return;
    }
    checkSchemaExists(spark, schema);
    Set<String> names = new TreeSet<>(Tables.ALL);
    names.addAll(deltaTablesIn(spark, tables.warehouse()));
    // Every name is checked before any is registered: a conflict registers nothing.
    List<String> toRegister = new java.util.ArrayList<>();
    for (String table : names) {
      String location = registeredLocation(spark, tables.catalogName(table));
      if (location != null) {
        checkSameLocation(spark, schema, table, location, tables.path(table));
      } else if (isDeltaTable(spark, tables.path(table))) {
        toRegister.add(table);
      }
    }
    for (String table : toRegister) {
      register(spark, tables, table);
    }
  }

  /**
   * Registers {@code table} (written at its path) in the catalog schema unless it is there; nothing without a
   * catalog schema. A table registered at another location is a {@link BadSettingsException} naming both.
   */
  static void register(SparkSession spark, Tables tables, String table) {
    CatalogSchema schema = schema(tables);
    if (schema == null) {
      return;
    }
    String name = tables.catalogName(table);
    String path = tables.path(table);
    String location = registeredLocation(spark, name);
    if (location == null) {
      checkSchemaExists(spark, schema);
      spark.sql("CREATE TABLE IF NOT EXISTS " + name + " USING DELTA LOCATION " + literal(path));
      LOG.info("Table {}.{} registered at {}", schema, table, LineText.escape(path));
      // Another job may have registered the name in between: read what the catalog holds now.
      location = registeredLocation(spark, name);
      if (location == null) {
        throw new IllegalStateException("Table " + schema + "." + table + " was registered at " + path
            + " but the catalog shows no location for it");
      }
    }
    checkSameLocation(spark, schema, table, location, path);
  }

  private static void checkSchemaExists(SparkSession spark, CatalogSchema schema) {
    if (!spark.catalog().databaseExists(schema.toString())) {
      throw new BadSettingsException("Invalid sweep.catalog-schema '" + schema + "': the catalog has no schema "
          + schema + ". Create it (CREATE SCHEMA " + schema.sql() + "), or give the schema the tables go in");
    }
  }

  private static CatalogSchema schema(Tables tables) {
    return CatalogSchema.parse(tables.catalogSchema(), null);
  }

  private static void checkSameLocation(SparkSession spark, CatalogSchema schema, String table, String location,
      String path) {
    if (!qualified(spark, location).equals(qualified(spark, path))) {
      throw new BadSettingsException("Cannot register table " + schema + "." + table + " at " + path
          + ": the catalog already has " + schema + "." + table + " at " + location + ". statesweep never re-points"
          + " a table: give another --catalog-schema, or the --warehouse of that table");
    }
  }

  /** The location the catalog gives {@code name}; null when it has no such table. */
  public static String registeredLocation(SparkSession spark, String name) {
    if (!spark.catalog().tableExists(name)) {
      return null;
    }
    for (Row row : spark.sql("DESCRIBE TABLE EXTENDED " + name).collectAsList()) {
      if ("Location".equalsIgnoreCase(row.getString(0).strip())) {
        return row.getString(1);
      }
    }
    // A view, or a table the catalog keeps no location for: never this warehouse's table.
    return "(no location: " + name + " is not a table at a path)";
  }

  /** A location comparable with another: qualified, without a trailing slash, s3a and s3n read as s3. */
  private static String qualified(SparkSession spark, String location) {
    try {
      Path path = new Path(location);
      URI uri = path.toUri();
      if (uri.getScheme() == null) {
        uri = path.getFileSystem(spark.sparkContext().hadoopConfiguration()).makeQualified(path).toUri();
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (scheme.equals("s3a") || scheme.equals("s3n")) {
        scheme = "s3";
      }
      String text = scheme + ":" + uri.getRawSchemeSpecificPart().replaceFirst("^/+", "//");
      return text.replaceAll("/+$", "");
    } catch (IOException | IllegalArgumentException e) {
      return location;
    }
  }

  /** The folders of the warehouse that hold a Delta table; none when it does not exist yet. */
  private static List<String> deltaTablesIn(SparkSession spark, String warehouse) {
    Path root = new Path(warehouse);
    try {
      FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(root)) {
        return List.of();
      }
      return java.util.Arrays.stream(fs.listStatus(root))
          .filter(FileStatus::isDirectory)
          .map(status -> status.getPath().getName())
          .filter(name -> name.matches(TABLE_NAME))
          .filter(name -> isDeltaTable(spark, warehouse + "/" + name))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the warehouse " + warehouse + ": " + e.getMessage(), e);
    }
  }

  private static boolean isDeltaTable(SparkSession spark, String path) {
    Path log = new Path(path, "_delta_log");
    try {
      return log.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(log);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + log + ": " + e.getMessage(), e);
    }
  }

  /** A Spark SQL string literal. */
  private static String literal(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
