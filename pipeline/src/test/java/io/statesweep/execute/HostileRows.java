package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.rows.DeleteRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What anyone who can write the {@code deletion_plan} and {@code state_files} tables may do to a row: set any
 * column, or any field of a delete, to null, to empty, to another row's value, to a label no plan writes, to a
 * string that is not valid Unicode, to a time no document may hold.
 */
final class HostileRows {
  /** Every column of a deletion_plan row, and every field of its deletes. */
  static final List<String> PLAN_COLUMNS = List.of("run_id", "run_date", "state_file_key", "record_type", "kind",
      "ids", "action", "reason", "due_at", "grace_days", "grace_rule", "state_etag", "state_last_modified",
      "keys_to_delete", "child_keys_to_delete", "bytes_to_delete", "missing_keys", "missing_files", "kept_keys",
      "planned_at", "deletes", "deletes[].key", "deletes[].etag", "deletes[].last_modified", "deletes[].size",
      "deletes[].role");
  /** Every column of a state_files row. */
  static final List<String> STATE_COLUMNS = List.of("run_id", "run_date", "key", "status", "message", "record_type",
      "kind", "ids", "shape", "scope", "etag", "last_modified", "size", "delete", "expires_at", "marked_at", "files",
      "delete_files", "raw_json");

  private static final Instant YEAR_1 = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant YEAR_10000 = Instant.parse("+10000-01-01T00:00:00Z");

  private final Random random;

  HostileRows(Random random) {
    this.random = requireNonNull(random, "random is null");
  }

  /**
   * What a changed value may be taken from: the bucket's keys (and keys no state file may list), the state
   * files, the ETags seen, and the time now.
   */
  record Pool(List<String> keys, List<String> stateFiles, List<String> etags, Instant now) {}

  /** Changes one column of {@code row}, or one field of one of its deletes; returns which. */
  String changePlanRow(PlanRow row, Pool pool) {
    String column = oneOf(PLAN_COLUMNS);
    List<DeleteRow> deletes = row.getDeletes() == null ? null : new ArrayList<>(row.getDeletes());
    int changed = deletes == null || deletes.isEmpty() ? -1 : random.nextInt(deletes.size());
    DeleteRow delete = changed < 0 ? null : copy(deletes.get(changed));
    switch (column) {
      case "run_id" -> row.setRunId(oneOf(null, "", "20991231T000000Z-ffffff"));
      case "run_date" -> row.setRunDate(oneOf(null, "", "1999-01-01"));
      case "state_file_key" -> row.setStateFileKey(text(pool.stateFiles(), row.getStateFileKey()));
      case "record_type" -> row.setRecordType(oneOf(null, "", "organization", "\ud800"));
      case "kind" -> row.setKind(oneOf(null, "", "holograms"));
      case "ids" -> row.setIds(oneOf(null, Map.of(), Map.of("project", "\ud800"), Map.of("", "")));
      case "action" -> row.setAction(oneOf(null, "", "keep", "kept_refused", "bad_state", "not_yet_due",
          "DELETE_RECORD", "delete_record ", "delete_record", "delete_removed_files"));
      case "reason" -> row.setReason(oneOf(null, "", "\nsummary: dry_run=false complete=true"));
      case "due_at" -> row.setDueAt(time(pool.now()));
      case "grace_days" -> row.setGraceDays(oneOf(null, -1, 0, Integer.MAX_VALUE));
      case "grace_rule" -> row.setGraceRule(oneOf(null, "", "kind meetings"));
      case "state_etag" -> row.setStateEtag(text(pool.etags(), row.getStateEtag()));
      case "state_last_modified" -> row.setStateLastModified(time(pool.now()));
      case "keys_to_delete" -> row.setKeysToDelete(oneOf(null, -1L, 0L, Long.MAX_VALUE));
      case "child_keys_to_delete" -> row.setChildKeysToDelete(oneOf(null, -1L, 0L, Long.MAX_VALUE));
      case "bytes_to_delete" -> row.setBytesToDelete(oneOf(null, -1L, 0L, Long.MAX_VALUE));
      case "missing_keys" -> row.setMissingKeys(oneOf(null, -1, Integer.MAX_VALUE));
      case "missing_files" -> row.setMissingFiles(oneOf(null, List.of(), Collections.singletonList(null),
          List.of(oneOf(pool.keys()))));
      case "kept_keys" -> row.setKeptKeys(oneOf(null, -1, Integer.MAX_VALUE));
      case "planned_at" -> row.setPlannedAt(time(pool.now()));
      case "deletes" -> row.setDeletes(deletes(deletes, pool));
      default -> {
        if (delete == null) {
          return column; // no delete to change (or a null one): the row is as planned
        }
        switch (column) {
          case "deletes[].key" -> delete.setKey(text(pool.keys(), delete.getKey()));
          case "deletes[].etag" -> delete.setEtag(text(pool.etags(), delete.getEtag()));
          case "deletes[].last_modified" -> delete.setLastModified(time(pool.now()));
          case "deletes[].size" -> delete.setSize(oneOf(null, -1L, 0L, Long.MAX_VALUE));
          case "deletes[].role" -> delete.setRole(oneOf(null, "", "file", "removed_file", "state_file", "FILE",
              "everything"));
          default -> throw new IllegalStateException("no change for " + column);
        }
        deletes.set(changed, delete);
        row.setDeletes(deletes);
      }
    }
    return column;
  }

  /** Changes one column of {@code row}; returns which. */
  String changeStateRow(StateFileRow row, Pool pool) {
    String column = oneOf(STATE_COLUMNS);
    switch (column) {
      case "run_id" -> row.setRunId(oneOf(null, "", "20991231T000000Z-ffffff"));
      case "run_date" -> row.setRunDate(oneOf(null, "", "1999-01-01"));
      case "key" -> row.setKey(text(pool.stateFiles(), row.getKey()));
      case "status" -> row.setStatus(oneOf(null, "", "read", "bad_state", "listed", "gone", "skipped", "read_error",
          "READ"));
      case "message" -> row.setMessage(oneOf(null, "", "Invalid state file: not JSON", "\ud800"));
      case "record_type" -> row.setRecordType(oneOf(null, "", "organization"));
      case "kind" -> row.setKind(oneOf(null, "", "holograms"));
      case "ids" -> row.setIds(oneOf(null, Map.of(), Map.of("project", "\ud800")));
      case "shape" -> row.setShape(oneOf(null, "", "single_file", "folder"));
      case "scope" -> row.setScope(oneOf(null, "", "cogram/"));
      case "etag" -> row.setEtag(text(pool.etags(), row.getEtag()));
      case "last_modified" -> row.setLastModified(time(pool.now()));
      case "size" -> row.setSize(oneOf(null, -1L, Long.MAX_VALUE));
      case "delete" -> row.setDelete(oneOf(null, true, false));
      case "expires_at" -> row.setExpiresAt(time(pool.now()));
      case "marked_at" -> row.setMarkedAt(time(pool.now()));
      case "files" -> row.setFiles(keys(row.getFiles(), pool));
      case "delete_files" -> row.setDeleteFiles(keys(row.getDeleteFiles(), pool));
      case "raw_json" -> row.setRawJson(oneOf(null, "", "{", "{\"delete\": true}"));
      default -> throw new IllegalStateException("no change for " + column);
    }
    return column;
  }

  /** A key or ETag: null, empty, another one of {@code others}, this one made invalid Unicode or longer. */
  private String text(List<String> others, String current) {
    String base = current == null ? "x" : current;
    return oneOf(null, "", oneOf(others), base + "\ud800", "\udc00" + base, base + "x", base + "\n");
  }

  private Timestamp time(Instant now) {
    Instant instant = oneOf(null, YEAR_1, YEAR_10000, now.minus(Duration.ofDays(1 + random.nextInt(400))),
        now.plus(Duration.ofDays(1 + random.nextInt(400))), now);
    return instant == null ? null : Timestamp.from(instant);
  }

  private List<DeleteRow> deletes(List<DeleteRow> deletes, Pool pool) {
    if (deletes == null || random.nextInt(6) == 0) {
      return oneOf(null, new ArrayList<>());
    }
    List<DeleteRow> changed = new ArrayList<>(deletes);
    switch (random.nextInt(6)) {
      case 0 -> Collections.reverse(changed);
      case 1 -> Collections.shuffle(changed, random);
      case 2 -> changed.add(random.nextInt(changed.size() + 1), null);
      case 3 -> {
        if (!changed.isEmpty()) {
          changed.remove(random.nextInt(changed.size()));
        }
      }
      case 4 -> {
        if (!changed.isEmpty()) {
          changed.add(random.nextInt(changed.size() + 1), copy(changed.get(random.nextInt(changed.size()))));
        }
      }
      default -> {
        DeleteRow added = new DeleteRow();
        added.setKey(oneOf(pool.keys()));
        added.setEtag(oneOf(pool.etags()));
        added.setLastModified(Timestamp.from(pool.now().minus(Duration.ofDays(random.nextInt(30)))));
        added.setSize(10L);
        added.setRole(oneOf("file", "removed_file", "state_file"));
        changed.add(random.nextInt(changed.size() + 1), added);
      }
    }
    return changed;
  }

  private List<String> keys(List<String> keys, Pool pool) {
    if (keys == null || random.nextInt(5) == 0) {
      return oneOf(null, List.of(), Collections.singletonList(null));
    }
    List<String> changed = new ArrayList<>(keys);
    int at = random.nextInt(changed.size() + 1);
    switch (random.nextInt(4)) {
      case 0 -> changed.add(at, null);
      case 1 -> changed.add(at, oneOf(pool.keys()));
      case 2 -> changed.add(at, oneOf(pool.keys()) + "\ud800");
      default -> {
        if (!changed.isEmpty()) {
          changed.remove(Math.min(at, changed.size() - 1));
        }
      }
    }
    return changed;
  }

  static DeleteRow copy(DeleteRow delete) {
    if (delete == null) {
      return null;
    }
    DeleteRow copy = new DeleteRow();
    copy.setKey(delete.getKey());
    copy.setEtag(delete.getEtag());
    copy.setLastModified(delete.getLastModified());
    copy.setSize(delete.getSize());
    copy.setRole(delete.getRole());
    return copy;
  }

  private <T> T oneOf(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  @SafeVarargs
  private <T> T oneOf(T... values) {
    return values[random.nextInt(values.length)];
  }
}
