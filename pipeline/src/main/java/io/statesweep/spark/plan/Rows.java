package io.statesweep.spark.plan;

import static io.statesweep.spark.rows.RowTimes.timestamp;

import io.statesweep.spark.run.RunContext;
import io.statesweep.layout.Classification;
import io.statesweep.plan.Grace;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.RecordPlan;
import io.statesweep.store.StoredObject;
import io.statesweep.scan.StateFileRead;
import io.statesweep.scan.ListingTask;
import io.statesweep.spark.rows.DeleteRow;
import io.statesweep.spark.rows.ListedRow;
import io.statesweep.spark.rows.ListingTaskRow;
import io.statesweep.spark.rows.ObjectRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.rows.StateFileRows;
import io.statesweep.state.StateDocument;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Conversions between the core's types and Spark rows. */
public final class Rows {
  static final String READ = StateFileRows.READ;
  static final String BAD_STATE = StateFileRows.BAD_STATE;
  static final String GONE = "gone";
  public static final String READ_ERROR = "read_error";
  public static final String SKIPPED = "skipped";
  public static final String LISTED = "listed";

  private Rows() {}

  static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }


  static ListedRow listedRow(StoredObject object) {
    ListedRow row = new ListedRow();
    row.setKey(object.key());
    row.setEtag(object.etag());
    row.setLastModified(timestamp(object.lastModified()));
    row.setSize(object.size());
    row.setStorageClass(object.storageClass());
    return row;
  }

  static ListedRow listedTask(ListingTask task) {
    ListedRow row = new ListedRow();
    row.setTaskPrefix(task.prefix());
    row.setTaskStartAfter(task.startAfter());
    row.setTaskNextChars(task.nextChars().name());
    row.setTaskDepth(task.depth().name());
    return row;
  }

  public static ListingTaskRow taskRow(ListedRow listed) {
    ListingTaskRow row = new ListingTaskRow();
    row.setPrefix(listed.getTaskPrefix());
    row.setStartAfter(listed.getTaskStartAfter());
    row.setNextChars(listed.getTaskNextChars());
    row.setDepth(listed.getTaskDepth());
    return row;
  }

  public static ListingTaskRow taskRow(ListingTask task) {
    ListingTaskRow row = new ListingTaskRow();
    row.setPrefix(task.prefix());
    row.setStartAfter(task.startAfter());
    row.setNextChars(task.nextChars().name());
    row.setDepth(task.depth().name());
    return row;
  }

  static StoredObject storedObject(String key, String etag, Timestamp lastModified, Long size) {
    if (etag == null || lastModified == null) {
      return null;
    }
    return new StoredObject(key, etag, lastModified.toInstant(), size == null ? 0L : size);
  }

  static StateFileRow stateNamedRow(Classification classification, ObjectRow listed, RunContext run) {
    StateFileRow row = new StateFileRow();
    row.setRunId(run.runId());
    row.setRunDate(run.runDate());
    row.setKey(listed.getKey());
    row.setEtag(listed.getEtag());
    row.setLastModified(listed.getLastModified());
    row.setSize(listed.getSize());
    if (classification instanceof Classification.StateFile stateFile) {
      row.setStatus(LISTED);
      row.setRecordType(stateFile.recordType());
      row.setKind(stateFile.kind().isEmpty() ? null : stateFile.kind());
      row.setIds(stateFile.ids());
      row.setShape(stateFile.shape().name().toLowerCase(java.util.Locale.ROOT));
      row.setScope(stateFile.scope());
    } else if (classification instanceof Classification.Skipped skipped) {
      row.setStatus(SKIPPED);
      row.setMessage(skipped.reason());
    } else {
      throw new IllegalArgumentException("not named like a state file: " + listed.getKey());
    }
    return row;
  }

  /** Fills a listed state file's row with what reading it found. */
  static StateFileRow withRead(StateFileRow listed, StateFileRead read) {
    switch (read.status()) {
      case GONE -> {
        listed.setStatus(GONE);
        listed.setMessage("the state file was deleted after it was listed");
      }
      case FAILED -> {
        listed.setStatus(READ_ERROR);
        listed.setMessage(read.error());
      }
      case READ -> {
        StoredObject object = read.objectOnListingClock(
            storedObject(listed.getKey(), listed.getEtag(), listed.getLastModified(), listed.getSize()));
        listed.setEtag(object.etag());
        listed.setLastModified(timestamp(object.lastModified()));
        listed.setSize(object.size());
        listed.setRawJson(read.json());
        if (read.parsed().isValid()) {
          StateDocument document = read.parsed().document();
          listed.setStatus(READ);
          listed.setDelete(document.delete());
          listed.setExpiresAt(timestamp(document.expiresAt()));
          listed.setMarkedAt(timestamp(document.markedAt()));
          listed.setFiles(document.files());
          listed.setDeleteFiles(document.deleteFiles());
        } else {
          listed.setStatus(BAD_STATE);
          listed.setMessage(read.parsed().error());
        }
      }
      default -> throw new IllegalStateException("unknown read status " + read.status());
    }
    return listed;
  }

  static PlanRow planRow(StateFileRow state, RecordPlan plan, Grace.Applied grace, RunContext run) {
    PlanRow row = new PlanRow();
    row.setRunId(run.runId());
    row.setRunDate(run.runDate());
    row.setStateFileKey(plan.stateFileKey());
    row.setRecordType(state.getRecordType());
    row.setKind(state.getKind());
    row.setIds(state.getIds());
    row.setAction(plan.action().label());
    row.setReason(plan.reason());
    row.setDueAt(timestamp(plan.dueAt()));
    row.setStateEtag(state.getEtag());
    row.setStateLastModified(state.getLastModified());
    List<DeleteRow> deletes = new ArrayList<>(plan.deletes().size());
    for (PlannedDelete delete : plan.deletes()) {
      DeleteRow deleteRow = new DeleteRow();
      deleteRow.setKey(delete.key());
      deleteRow.setEtag(delete.object().etag());
      deleteRow.setLastModified(timestamp(delete.object().lastModified()));
      deleteRow.setSize(delete.object().size());
      deleteRow.setRole(delete.role().label());
      deletes.add(deleteRow);
    }
    row.setDeletes(deletes);
    row.setKeysToDelete((long) plan.deletes().size());
    row.setChildKeysToDelete(plan.childKeysToDelete());
    row.setBytesToDelete(plan.bytesToDelete());
    row.setMissingKeys(plan.missingKeys());
    row.setMissingFiles(plan.missingFiles());
    row.setKeptKeys(plan.keptKeys());
    row.setGraceDays(grace.days());
    row.setGraceRule(grace.rule());
    row.setPlannedAt(timestamp(run.now()));
    return row;
  }
}
