package io.statesweep.spark.tables;

import static io.statesweep.spark.tables.TableColumn.column;

import io.statesweep.api.Tables;
import io.statesweep.spark.rows.ExecutionRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The seven tables statesweep writes (pipeline/README.md, "Tables"), each declared once ({@link TableSchema}): its
 * comment, its columns in order with their comments, and its row bean or its columns' types. A column that several
 * tables have is declared once, with one comment, at the top.
 */
public final class TableSchemas {
  private static final DataType STRING = DataTypes.StringType;
  private static final DataType LONG = DataTypes.LongType;
  private static final DataType INT = DataTypes.IntegerType;
  private static final DataType BOOLEAN = DataTypes.BooleanType;
  private static final DataType TIMESTAMP = DataTypes.TimestampType;
  private static final DataType SETTINGS = DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType);

  // The columns more than one table has: one name, one meaning, one comment wherever they stand.
  private static final TableColumn RUN_ID = column("run_id", "the run: yyyyMMddTHHmmssZ-<6 hex>, sorts by time");
  private static final TableColumn RUN_DATE = column("run_date", "the run's UTC date, yyyy-MM-dd (the partition)");
  private static final TableColumn MESSAGE = column("message", "the parse or read error, or why the key was skipped");
  private static final TableColumn RECORD_TYPE = column("record_type", "the layout's record type, such as"
      + " project_record or agent");
  private static final TableColumn KIND = column("kind", "the kind folder (meetings, emails, ...); null for records"
      + " without one");
  private static final TableColumn IDS = column("ids", "the ids of the state-file place, such as project, kind,"
      + " record");
  private static final TableColumn STATE_FILE_KEY = column("state_file_key", "the record's state file (full key)");
  private static final TableColumn ACTION = column("action", "delete_record, delete_removed_files, keep, not_yet_due,"
      + " kept_newer_files, kept_refused or bad_state");
  private static final TableColumn GRACE_DAYS = column("grace_days", "the grace period that applied, days");
  private static final TableColumn GRACE_RULE = column("grace_rule", "which grace applied: global, or kind <name>"
      + " (--kind-grace-days)");
  private static final TableColumn KEYS_TO_DELETE = column("keys_to_delete", "keys in deletes, the state file"
      + " included");
  private static final TableColumn CHILD_KEYS_TO_DELETE = column("child_keys_to_delete", "keys in deletes other than"
      + " the state file");
  private static final TableColumn BYTES_TO_DELETE = column("bytes_to_delete", "bytes of the keys to delete, from the"
      + " listing");
  private static final TableColumn MISSING_KEYS = column("missing_keys", "listed keys that do not exist (never sent"
      + " for deletion)");
  private static final TableColumn MISSING_FILES = column("missing_files", "files a live record lists that the bucket"
      + " lacks, each logged as missing <key>: the keys (deletion_plan), how many (runs)");
  private static final TableColumn KEPT_KEYS = column("kept_keys", "listed keys that exist and stay");
  private static final TableColumn PLANNED_AT = column("planned_at", "the run's now (UTC): due-ness and plan age are"
      + " measured from it");
  private static final TableColumn ATTEMPT_ID = column("attempt_id", "the command's own id: the run_id for a plan, a"
      + " new id per execute attempt");
  private static final TableColumn CHILD_KEYS_DELETED = column("child_keys_deleted", "keys other than the state file"
      + " that this row deleted");
  private static final TableColumn STARTED_AT = column("started_at", "when it started (UTC)");
  private static final TableColumn ENDED_AT = column("ended_at", "when it ended (UTC)");
  private static final TableColumn BUCKET = column("bucket", "the export's bucket");
  private static final TableColumn PREFIX = column("prefix", "the export's prefix");
  private static final TableColumn BYTES_BY_STORAGE_CLASS = column("bytes_by_storage_class", "bytes the plan deletes"
      + " by the storage class the listing gave each key (unknown: an inventory without StorageClass)");
  private static final TableColumn SAVES_USD_PER_MONTH = column("saves_usd_per_month", "what the deleted bytes cost a"
      + " month at price_region's storage prices, USD: the saving once they are gone (on a versioned bucket, once"
      + " noncurrent versions expire)");

  /** Table {@code state_files}: every state-named key of a run, one {@link StateFileRow} each. */
  public static final TableSchema<StateFileRow> STATE_FILES = TableSchema.ofBean(Tables.STATE_FILES, StateFileRow.class,
      "statesweep: every key named like a state file, per run, with its parsed fields. Partitioned by run_date.",
      RUN_ID,
      RUN_DATE,
      column("key", "the full S3 key"),
      column("status", "read, bad_state, gone (deleted after the listing), read_error or skipped"),
      MESSAGE,
      RECORD_TYPE,
      KIND,
      IDS,
      column("shape", "folder (state.json owns its folder) or single_file (<id>.state.json owns <id>.json)"),
      column("scope", "the folder or <id>.json the record owns"),
      column("etag", "the object's ETag as read or listed, unquoted"),
      column("last_modified", "the object's LastModified (UTC)"),
      column("size", "bytes"),
      column("delete", "the state file's delete field"),
      column("expires_at", "the state file's expires_at (UTC)"),
      column("marked_at", "when the record was marked deleted, from the layout's marked-at fields"),
      column("files", "the keys the state file lists as the record's files"),
      column("delete_files", "removed keys the state file says may be deleted"),
      column("raw_json", "the whole state document, unknown fields included"));

  /** Table {@code deletion_plan}: what a plan decided for each record, one {@link PlanRow} each; execute reads it. */
  public static final TableSchema<PlanRow> DELETION_PLAN = TableSchema.ofBean(Tables.DELETION_PLAN, PlanRow.class,
      "statesweep: one row per record per run: the action and the exact keys execution deletes. Partitioned by"
          + " run_date.",
      RUN_ID,
      RUN_DATE,
      STATE_FILE_KEY,
      RECORD_TYPE,
      KIND,
      IDS,
      ACTION,
      column("reason", "why, naming the key and the rule where there is one"),
      column("due_at", "when the record is or becomes due (UTC); null for a live record"),
      GRACE_DAYS,
      GRACE_RULE,
      column("state_etag", "the state file's ETag as read; execution requires it unchanged"),
      column("state_last_modified", "the state file's LastModified as listed (UTC), the clock of its files' times"),
      KEYS_TO_DELETE,
      CHILD_KEYS_TO_DELETE,
      BYTES_TO_DELETE,
      MISSING_KEYS,
      MISSING_FILES,
      KEPT_KEYS,
      column("deletes", "the keys to delete in execution order, each with the ETag, LastModified and size seen; role"
          + " is file, removed_file or state_file (always last)"),
      PLANNED_AT);

  /** Table {@code executions}: what an execute attempt did with each record, one {@link ExecutionRow} each. */
  public static final TableSchema<ExecutionRow> EXECUTIONS = TableSchema.ofBean(Tables.EXECUTIONS, ExecutionRow.class,
      "statesweep: one row per record per execute attempt: what was deleted or kept, and why. Partitioned by"
          + " run_date.",
      RUN_ID,
      RUN_DATE,
      ATTEMPT_ID,
      STATE_FILE_KEY,
      ACTION,
      column("outcome", "deleted, removed_files_deleted, kept_newer_files, kept_refused, state_changed,"
          + " already_deleted, changed_during_delete, came_back_during_delete, restored_after_coming_back, failed or"
          + " interrupted (the task executing the record stopped before it recorded the store's answers; the state"
          + " file stays)"),
      MESSAGE,
      CHILD_KEYS_DELETED,
      column("state_file_deleted", "whether the state file was deleted"),
      column("keys_already_gone", "planned keys that were already gone at execution"),
      column("failures", "every per-key error: key, S3 error code, message"),
      column("deleted_keys", "every key this attempt deleted, in the order sent (the state file last when it went);"
          + " for outcome came_back_during_delete, the files the exporter's Verify bucket must restore"),
      STARTED_AT,
      ENDED_AT,
      column("deleted", "every key in deleted_keys with its role (file, removed_file, state_file), the ETag it was"
          + " verified with, deleted_at, when the store's answer said so (UTC; null when the task that"
          + " deleted it stopped first and the key was found gone afterwards), delete_marker, on a versioned"
          + " bucket the version id of the delete marker it got (null without versioning), and restored_version, for"
          + " a record that came back during its deletion, the version current again (its marker removed, or"
          + " written since; null when the key stays deleted)"),
      column("recorded_from", "where the row came from: the outcomes the tasks recorded in the execute's ledger"
          + " (outcomes), or also the intent of a task that stopped first, its deletions found by looking at its"
          + " keys (intent)"),
      column("task_attempts", "how many Spark task attempts executed the record (a retry after a lost executor, a"
          + " speculative copy): each key they deleted is in the row once"));

  /** Table {@code runs}: one row per command of a run ({@link RunsTable}). */
  public static final TableSchema<Row> RUNS = TableSchema.ofRows(Tables.RUNS,
      "statesweep: one row per command of a run (its plan, each execute attempt) with settings, counts and outcome."
          + " Partitioned by run_date.",
      RUN_ID.notNull(STRING),
      RUN_DATE.notNull(STRING),
      ATTEMPT_ID.notNull(STRING),
      notNull("command", STRING, "plan or execute"),
      notNull("dry_run", BOOLEAN, "true for a plan, false for an execute attempt"),
      notNull("complete", BOOLEAN, "whether the command finished; a rerun finishes an incomplete execute"),
      STARTED_AT.notNull(TIMESTAMP),
      ENDED_AT.notNull(TIMESTAMP),
      PLANNED_AT.notNull(TIMESTAMP),
      BUCKET.notNull(STRING),
      PREFIX.notNull(STRING),
      notNull("layout", STRING, "the layout's name"),
      notNull("layout_fingerprint", STRING, "SHA-256 of the layout document; execution requires the plan's"),
      GRACE_DAYS.notNull(INT),
      notNull("settings", SETTINGS, "every resolved setting, by conf key"),
      nullable("conditional_deletes", STRING, "for an execute: whether deletes carried ETags, and why"),
      notNull("listing_tasks", LONG, "listing tasks run (or inventory data files read)"),
      notNull("keys_listed", LONG, "keys under the prefix"),
      notNull("state_files_scanned", LONG, "state files read (skipped keys not counted)"),
      notNull("records_deleted", LONG, "records planned (plan) or whose state file was deleted (execute)"),
      CHILD_KEYS_DELETED.notNull(LONG),
      notNull("bytes_deleted", LONG, "bytes planned or deleted"),
      notNull("records_kept", LONG, "state files scanned minus records deleted"),
      notNull("kept_newer_files", LONG, "records kept because a file is newer than the state file"),
      notNull("kept_refused", LONG, "records kept because a listed key broke a safety rule"),
      notNull("bad_state", LONG, "records whose state file is not a valid document"),
      notNull("not_yet_due", LONG, "records leaving but still in their grace period"),
      notNull("skipped", LONG, "state-file names that are not state files of a known place"),
      notNull("errors", LONG, "read or delete errors"),
      notNull("state_changed", LONG, "records whose state file changed after the plan (kept)"),
      notNull("already_deleted", LONG, "records already gone at execution"),
      notNull("changed_during_delete", LONG, "records with a key rewritten between verification and delete (kept)"),
      notNull("summary", STRING, "the summary line, as the command printed it (a later recording of an"
          + " execute attempt updates the counts, not it)"),
      nullable("failure", STRING, "why an incomplete command stopped"),
      nullable("listing", STRING, "list (ListObjectsV2) or inventory (an S3 Inventory report); null for execute"),
      nullable("inventory_manifest", STRING, "the S3 Inventory manifest.json read, with --listing inventory"),
      nullable("inventory_date", TIMESTAMP, "when the S3 Inventory was taken (UTC)"),
      nullable("state_parser", STRING, "the version of the state-file parser of a plan; incremental plans reuse only"
          + " its own version's parses"),
      nullable("came_back_during_delete", LONG, "for an execute: records whose state file changed while their files"
          + " went (the record came back; its deleted keys are in executions.deleted_keys); null for a plan"),
      MISSING_FILES.nullable(LONG),
      // The cost of a run (pipeline/README.md, "The cost of a run"): null where it was not counted.
      nullable("s3_requests", RunsTable.REQUESTS, "S3 requests the command sent, by operation (ListObjectsV2,"
          + " GetObject, PutObject, GetBucketVersioning, ...), retries included, the run lock's included; not the"
          + " Delta tables' requests"),
      nullable("cost_usd", RunsTable.USD, "what s3_requests cost at price_region's list prices, USD"),
      nullable("execute_requests", RunsTable.REQUESTS, "for a plan: the S3 requests its execute will make, by"
          + " operation, estimated from its rows as the execute batches them (README, The cost of a run)"),
      nullable("execute_cost_usd", RunsTable.USD, "for a plan: what execute_requests will cost at price_region's list"
          + " prices, USD (DeleteObjects priced as a free DELETE)"),
      BYTES_BY_STORAGE_CLASS.nullable(RunsTable.REQUESTS),
      SAVES_USD_PER_MONTH.nullable(RunsTable.USD),
      nullable("early_delete_usd", RunsTable.USD, "for a plan: the minimum-duration charge of deleting keys before"
          + " their class's minimum (STANDARD_IA 30 days, GLACIER_IR 90, DEEP_ARCHIVE 180), from LastModified at"
          + " planned_at, USD"),
      nullable("price_region", STRING, "the region whose list prices were used (--region, else the SDK's default"
          + " region)"),
      nullable("prices", STRING, "the price table used (--prices; aws is conf/prices/aws.json) and when its prices"
          + " were checked"),
      nullable("bucket_versioning", STRING, "for a plan: the bucket's versioning from GetBucketVersioning: Enabled,"
          + " Suspended, Off, or unknown (denied or unsupported; versioning_note says why)"),
      nullable("versioning_note", STRING, "for a plan on a versioned bucket (or one whose versioning is unknown): the"
          + " deleted bytes are freed only when noncurrent versions expire, with a lifecycle rule that expires"
          + " them, and whether the noncurrent versions already under the prefix are counted"),
      nullable("noncurrent_versions", LONG, "for a plan whose listing sees them (an S3 Inventory report of all"
          + " versions): the noncurrent versions already under the prefix, delete markers not counted; null when not"
          + " counted (ListObjectsV2, a report of current versions)"),
      nullable("noncurrent_bytes", LONG, "the bytes of noncurrent_versions; null when not counted"),
      nullable("statesweep_version", STRING, "the version of statesweep that ran the command (its jar's, as the build"
          + " wrote it); null in rows written before it was recorded"));

  /** Table {@code approvals}: one row per approval of a plan. */
  public static final TableSchema<Row> APPROVALS = TableSchema.ofRows(Tables.APPROVALS,
      "statesweep: who approved which plan for execution, when, what it deletes, and the digest of its rows."
          + " Partitioned by run_date.",
      RUN_ID.notNull(STRING),
      RUN_DATE.notNull(STRING),
      notNull("approved_by", STRING, "who approved the plan (--by)"),
      notNull("approved_at", TIMESTAMP, "when (UTC)"),
      nullable("note", STRING, "the approver's note (--note)"),
      BUCKET.notNull(STRING),
      PREFIX.notNull(STRING),
      PLANNED_AT.notNull(TIMESTAMP),
      notNull("records_to_delete", LONG, "records the plan deletes whole (delete_record)"),
      notNull("records_with_removed_files", LONG, "records the plan deletes removed files of (delete_removed_files)"),
      KEYS_TO_DELETE.notNull(LONG),
      BYTES_TO_DELETE.notNull(LONG),
      notNull("plan_rows", LONG, "deletion_plan rows of the run that plan_digest covers"),
      notNull("plan_digest", STRING, "SHA-256 (hex) of the run's deletion_plan rows as approved, every column, sorted"
          + " by state_file_key; execute --run-id requires the plan to match its newest approval's digest. An"
          + " approval bound to a version instead (written by SQL, as the notebooks do) says 'deletion_plan version"
          + " <plan_version>': execute digests the rows of that version and requires today's to match them"),
      nullable("plan_version", LONG, "the version of deletion_plan whose rows were approved (the one the reviewer"
          + " read); null in approvals written before it was recorded"));

  /** Table {@code plan_summary}: a plan summed by group; the query that writes it gives its types (PlanSummary). */
  public static final TableSchema<Row> PLAN_SUMMARY = TableSchema.ofRows(Tables.PLAN_SUMMARY,
      "statesweep: each plan summed by record type, kind, project, action and reason pattern (records, keys, bytes,"
          + " bytes by storage class and their cost a month). Partitioned by run_date.",
      RUN_ID,
      RUN_DATE,
      PLANNED_AT,
      RECORD_TYPE,
      KIND,
      column("project", "the project id of the record's place; null outside projects"),
      ACTION,
      column("reason_pattern", "the reason with keys, times and numbers masked (<key>, <time>, N), to group by"),
      GRACE_RULE,
      column("records", "records in the group"),
      KEYS_TO_DELETE,
      CHILD_KEYS_TO_DELETE,
      BYTES_TO_DELETE,
      MISSING_KEYS,
      KEPT_KEYS,
      BYTES_BY_STORAGE_CLASS,
      SAVES_USD_PER_MONTH);


  /**
   * Table {@code restorations}: one row per key a restore looked at (pipeline/README.md, "Undoing a run"); its rows are
   * Rows of its structType, made in the restore's tasks.
   */
  public static final TableSchema<Row> RESTORATIONS = TableSchema.ofRows(Tables.RESTORATIONS,
      "statesweep: every key a restore looked at, one row each: the run and attempt that deleted it, its delete marker,"
          + " and whether the marker was removed (restored), stays under a newer version (written_since), was removed"
          + " by an earlier restore (already_restored) or stays with the key deleted (not_restored). Partitioned by"
          + " the restored run's run_date.",
      notNull("restore_id", STRING, "the restore's own id, a run id (yyyyMMddTHHmmssZ-<6 hex>): one per restore"),
      RUN_ID.notNull(STRING),
      RUN_DATE.notNull(STRING),
      ATTEMPT_ID.notNull(STRING),
      STATE_FILE_KEY.notNull(STRING),
      notNull("key", STRING, "the full S3 key"),
      notNull("role", STRING, "the key's role in its record: file, removed_file or state_file (restored last)"),
      nullable("delete_marker", STRING, "the version id of the delete marker the run's delete wrote (executions"
          + " deleted.delete_marker); null when none was recorded, and the key was left alone"),
      nullable("version_made_current", STRING, "the version the marker's removal made current; null when the key"
          + " was not restored"),
      notNull("restore_status", STRING, "restored, written_since, already_restored or not_restored"),
      nullable("detail", STRING, "why the key was left as it is; null for a restored key"),
      notNull("restored_at", TIMESTAMP, "when the restore looked at the key (UTC)"));

  /** Every table, in the order a review reads them ({@link Tables#ALL}). */
  public static final List<TableSchema<?>> ALL = List.of(RUNS, DELETION_PLAN, STATE_FILES, PLAN_SUMMARY, EXECUTIONS,
      APPROVALS, RESTORATIONS);

  private TableSchemas() {}

  /** The declaration of {@code table}; an {@link IllegalArgumentException} naming it when there is no such table. */
  public static TableSchema<?> of(String table) {
    for (TableSchema<?> schema : ALL) {
      if (schema.name().equals(table)) {
        return schema;
      }
    }
    throw new IllegalArgumentException("statesweep has no table " + table + "; its tables: " + Tables.ALL);
  }

  private static TableColumn notNull(String name, DataType type, String comment) {
    return column(name, comment).notNull(type);
  }

  private static TableColumn nullable(String name, DataType type, String comment) {
    return column(name, comment).nullable(type);
  }
}
