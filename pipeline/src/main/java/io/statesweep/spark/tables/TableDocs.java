package io.statesweep.spark.tables;

import static java.util.Map.entry;

import io.statesweep.api.Tables;
import io.delta.tables.DeltaTable;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The table and column comments of statesweep's Delta tables, the same words as README.md's
 * "Tables". A table is created with them on its first append (partitioned by {@code run_date}), so
 * {@code DESCRIBE} and catalog browsers show what each column means and its unit.
 */
public final class TableDocs {
  private TableDocs() {}

  public static final Map<String, String> TABLES = Map.of(
      Tables.STATE_FILES, "statesweep: every key named like a state file, per run, with its parsed fields."
          + " Partitioned by run_date.",
      Tables.DELETION_PLAN, "statesweep: one row per record per run: the action and the exact keys execution"
          + " deletes. Partitioned by run_date.",
      Tables.EXECUTIONS, "statesweep: one row per record per execute attempt: what was deleted or kept, and why."
          + " Partitioned by run_date.",
      Tables.RUNS, "statesweep: one row per command of a run (its plan, each execute attempt) with settings,"
          + " counts and outcome. Partitioned by run_date.",
      Tables.APPROVALS, "statesweep: who approved which plan for execution, when, what it deletes, and the"
          + " digest of its rows."
          + " Partitioned by run_date.",
      Tables.PLAN_SUMMARY, "statesweep: each plan summed by record type, kind, project, action and reason"
          + " pattern (records, keys, bytes, bytes by storage class and their cost a month). Partitioned by run_date.");

  public static final Map<String, String> COLUMNS = Map.ofEntries(
      entry("run_id", "the run: yyyyMMddTHHmmssZ-<6 hex>, sorts by time"),
      entry("run_date", "the run's UTC date, yyyy-MM-dd (the partition)"),
      entry("attempt_id", "the command's own id: the run_id for a plan, a new id per execute attempt"),
      entry("key", "the full S3 key"),
      entry("state_file_key", "the record's state file (full key)"),
      entry("status", "read, bad_state, gone (deleted after the listing), read_error or skipped"),
      entry("message", "the parse or read error, or why the key was skipped"),
      entry("record_type", "the layout's record type, such as project_record or agent"),
      entry("kind", "the kind folder (meetings, emails, ...); null for records without one"),
      entry("ids", "the ids of the state-file place, such as project, kind, record"),
      entry("shape", "folder (state.json owns its folder) or single_file (<id>.state.json owns <id>.json)"),
      entry("scope", "the folder or <id>.json the record owns"),
      entry("etag", "the object's ETag as read or listed, unquoted"),
      entry("last_modified", "the object's LastModified (UTC)"),
      entry("size", "bytes"),
      entry("delete", "the state file's delete field"),
      entry("expires_at", "the state file's expires_at (UTC)"),
      entry("marked_at", "when the record was marked deleted, from the layout's marked-at fields"),
      entry("files", "the keys the state file lists as the record's files"),
      entry("delete_files", "removed keys the state file says may be deleted"),
      entry("raw_json", "the whole state document, unknown fields included"),
      entry("action", "delete_record, delete_removed_files, keep, not_yet_due, kept_newer_files, kept_refused"
          + " or bad_state"),
      entry("reason", "why, naming the key and the rule where there is one"),
      entry("due_at", "when the record is or becomes due (UTC); null for a live record"),
      entry("grace_days", "the grace period that applied, days"),
      entry("grace_rule", "which grace applied: global, or kind <name> (--kind-grace-days)"),
      entry("state_etag", "the state file's ETag as read; execution requires it unchanged"),
      entry("state_last_modified", "the state file's LastModified as listed (UTC), the clock of its files' times"),
      entry("keys_to_delete", "keys in deletes, the state file included"),
      entry("child_keys_to_delete", "keys in deletes other than the state file"),
      entry("bytes_to_delete", "bytes of the keys to delete, from the listing"),
      entry("missing_keys", "listed keys that do not exist (never sent for deletion)"),
      entry("missing_files", "files a live record lists that the bucket lacks, each logged as missing <key>:"
          + " the keys (deletion_plan), how many (runs)"),
      entry("kept_keys", "listed keys that exist and stay"),
      entry("deletes", "the keys to delete in execution order, each with the ETag, LastModified and size seen;"
          + " role is file, removed_file or state_file (always last)"),
      entry("planned_at", "the run's now (UTC): due-ness and plan age are measured from it"),
      entry("outcome", "deleted, removed_files_deleted, kept_newer_files, kept_refused, state_changed,"
          + " already_deleted, changed_during_delete, came_back_during_delete, failed or interrupted (the task"
          + " executing the record stopped before it recorded the store's answers; the state file stays)"),
      entry("child_keys_deleted", "keys other than the state file that this row deleted"),
      entry("state_file_deleted", "whether the state file was deleted"),
      entry("keys_already_gone", "planned keys that were already gone at execution"),
      entry("failures", "every per-key error: key, S3 error code, message"),
      entry("deleted_keys", "every key this attempt deleted, in the order sent (the state file last when it went);"
          + " for outcome came_back_during_delete, the files the exporter's Verify bucket must restore"),
      entry("deleted", "every key in deleted_keys with its role (file, removed_file, state_file), the ETag it was"
          + " verified with, and deleted_at, when the store's answer said so (UTC; null when the task that deleted it"
          + " stopped first and the key was found gone afterwards)"),
      entry("recorded_from", "where the row came from: the outcomes the tasks recorded in the execute's ledger"
          + " (outcomes), or also the intent of a task that stopped first, its deletions found by looking at its keys"
          + " (intent)"),
      entry("task_attempts", "how many Spark task attempts executed the record (a retry after a lost executor, a"
          + " speculative copy): each key they deleted is in the row once"),
      entry("started_at", "when it started (UTC)"),
      entry("ended_at", "when it ended (UTC)"),
      entry("command", "plan or execute"),
      entry("dry_run", "true for a plan, false for an execute attempt"),
      entry("complete", "whether the command finished; a rerun finishes an incomplete execute"),
      entry("bucket", "the export's bucket"),
      entry("prefix", "the export's prefix"),
      entry("layout", "the layout's name"),
      entry("layout_fingerprint", "SHA-256 of the layout document; execution requires the plan's"),
      entry("settings", "every resolved setting, by conf key"),
      entry("conditional_deletes", "for an execute: whether deletes carried ETags, and why"),
      entry("listing_tasks", "listing tasks run (or inventory data files read)"),
      entry("keys_listed", "keys under the prefix"),
      entry("state_files_scanned", "state files read (skipped keys not counted)"),
      entry("records_deleted", "records planned (plan) or whose state file was deleted (execute)"),
      entry("bytes_deleted", "bytes planned or deleted"),
      entry("records_kept", "state files scanned minus records deleted"),
      entry("kept_newer_files", "records kept because a file is newer than the state file"),
      entry("kept_refused", "records kept because a listed key broke a safety rule"),
      entry("bad_state", "records whose state file is not a valid document"),
      entry("not_yet_due", "records leaving but still in their grace period"),
      entry("skipped", "state-file names that are not state files of a known place"),
      entry("errors", "read or delete errors"),
      entry("state_changed", "records whose state file changed after the plan (kept)"),
      entry("already_deleted", "records already gone at execution"),
      entry("changed_during_delete", "records with a key rewritten between verification and delete (kept)"),
      entry("came_back_during_delete", "for an execute: records whose state file changed while their files went"
          + " (the record came back; its deleted keys are in executions.deleted_keys); null for a plan"),
      entry("summary", "the summary line"),
      entry("failure", "why an incomplete command stopped"),
      entry("listing", "list (ListObjectsV2) or inventory (an S3 Inventory report); null for execute"),
      entry("inventory_manifest", "the S3 Inventory manifest.json read, with --listing inventory"),
      entry("inventory_date", "when the S3 Inventory was taken (UTC)"),
      entry("state_parser", "the version of the state-file parser of a plan; incremental plans reuse only its own version's parses"),
      entry("approved_by", "who approved the plan (--by)"),
      entry("approved_at", "when (UTC)"),
      entry("note", "the approver's note (--note)"),
      entry("records_to_delete", "records the plan deletes whole (delete_record)"),
      entry("records_with_removed_files", "records the plan deletes removed files of (delete_removed_files)"),
      entry("plan_rows", "deletion_plan rows of the run that plan_digest covers"),
      entry("plan_digest", "SHA-256 (hex) of the run's deletion_plan rows as approved, every column, sorted by"
          + " state_file_key; execute --run-id requires the plan to match its newest approval's digest"),
      entry("project", "the project id of the record's place; null outside projects"),
      entry("records", "records in the group"),
      entry("reason_pattern", "the reason with keys, times and numbers masked (<key>, <time>, N), to group by"),
      entry("s3_requests", "S3 requests the command sent, by operation (ListObjectsV2, GetObject, PutObject,"
          + " GetBucketVersioning, ...), retries included, the run lock's included; not the Delta tables' requests"),
      entry("cost_usd", "what s3_requests cost at price_region's list prices, USD"),
      entry("execute_requests", "for a plan: the S3 requests its execute will make, by operation, estimated from"
          + " its rows as the execute batches them (README, The cost of a run)"),
      entry("execute_cost_usd", "for a plan: what execute_requests will cost at price_region's list prices, USD"
          + " (DeleteObjects priced as a free DELETE)"),
      entry("bytes_by_storage_class", "bytes the plan deletes by the storage class the listing gave each key"
          + " (unknown: an inventory without StorageClass)"),
      entry("saves_usd_per_month", "what the deleted bytes cost a month at price_region's storage prices, USD:"
          + " the saving once they are gone (on a versioned bucket, once noncurrent versions expire)"),
      entry("early_delete_usd", "for a plan: the minimum-duration charge of deleting keys before their class's"
          + " minimum (STANDARD_IA 30 days, GLACIER_IR 90, DEEP_ARCHIVE 180), from LastModified at planned_at, USD"),
      entry("price_region", "the region whose list prices were used (--region, else the SDK's default region)"),
      entry("prices", "the price table used (--prices; aws is conf/prices/aws.json) and when its prices were checked"),
      entry("bucket_versioning", "for a plan: the bucket's versioning from GetBucketVersioning: Enabled,"
          + " Suspended, Off, or unknown (denied or unsupported; versioning_note says why)"),
      entry("versioning_note", "for a plan on a versioned bucket (or one whose versioning is unknown): the deleted"
          + " bytes are freed only when noncurrent versions expire, with a lifecycle rule that expires them"));

  /** The schema with each top-level column's comment; a column without one is a programming error. */
  static StructType withComments(StructType schema, String table) {
    StructField[] fields = schema.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      String comment = COLUMNS.get(fields[i].name());
      if (comment == null) {
        throw new IllegalStateException("column " + fields[i].name() + " of table " + table + " has no comment");
      }
      // Nullable in the table: a NOT NULL column would turn a later version's null into a failed append.
      fields[i] = new StructField(fields[i].name(), fields[i].dataType(), true, fields[i].metadata())
          .withComment(comment);
    }
    return new StructType(fields);
  }

  /**
   * Creates {@code table} of {@code tables} with its comments and partitioning unless it exists ({@link
   * #createIfMissing(SparkSession, Dataset, String)}), and registers it by name in the catalog schema, if there is one.
   */
  public static void createIfMissing(Dataset<Row> rows, Tables tables, String table) {
    createIfMissing(rows.sparkSession(), rows, tables.path(table));
    CatalogTables.register(rows.sparkSession(), tables, table);
  }

  /** Creates the table with its comments and partitioning unless it exists (an older table stays as it is). */
  public static void createIfMissing(SparkSession spark, Dataset<Row> rows, String path) {
    if (DeltaTable.isDeltaTable(spark, path)) {
      return;
    }
    String table = path.substring(path.lastIndexOf('/') + 1);
    String comment = TABLES.get(table);
    if (comment == null) {
      throw new IllegalStateException("no comment for table " + table);
    }
    DeltaTable.createIfNotExists(spark)
        .location(path)
        .addColumns(withComments(rows.schema(), table))
        .partitionedBy("run_date")
        .comment(comment)
        .execute();
  }
}
