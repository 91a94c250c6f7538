package io.statesweep.spark.tables;

import io.statesweep.api.Tables;
import java.util.List;

/** The column order of the tables that plans and executes write (README, "Tables"), and their bean properties. */
public final class TableColumns {
  private TableColumns() {}

  public static final List<String> STATE_FILES = List.of("run_id", "run_date", "key", "status", "message",
      "record_type", "kind", "ids", "shape", "scope", "etag", "last_modified", "size", "delete", "expires_at",
      "marked_at", "files", "delete_files", "raw_json");

  public static final List<String> DELETION_PLAN = List.of("run_id", "run_date", "state_file_key", "record_type",
      "kind", "ids", "action", "reason", "due_at", "grace_days", "grace_rule", "state_etag", "state_last_modified", "keys_to_delete",
      "child_keys_to_delete", "bytes_to_delete", "missing_keys", "missing_files", "kept_keys", "deletes", "planned_at");

  public static final List<String> EXECUTIONS = List.of("run_id", "run_date", "attempt_id", "state_file_key",
      "action", "outcome", "message", "child_keys_deleted", "state_file_deleted", "keys_already_gone", "failures",
      "deleted_keys", "started_at", "ended_at", "deleted", "recorded_from", "task_attempts");

  /** snake_case column to the bean property. */
  public static String property(String column) {
    StringBuilder property = new StringBuilder();
    boolean upper = false;
    for (char c : column.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        property.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return property.toString();
  }

  /** camelCase bean property to the table's snake_case column. */
  static String column(String property) {
    return property.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
  }
}
