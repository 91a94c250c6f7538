package io.statesweep.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.execute.DeleteJournal;
import io.statesweep.execute.DeletedKey;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.KeyFailure;
import io.statesweep.execute.Outcome;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Ledger objects as JSON (ASCII only: every other character escaped, so a key of any bytes travels and reads back
 * as it was). Reading checks every field and names the object and the field of the first that is wrong.
 */
public final class LedgerCodec {
  static final int VERSION = 1;
  private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

  private LedgerCodec() {}

  public static byte[] write(LedgerEntry entry) {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", VERSION);
    root.put("kind", entry instanceof LedgerEntry.Intent ? "intent" : "outcomes");
    LedgerEntry.Header header = entry.header();
    root.put("run_id", header.runId());
    root.put("run_date", header.runDate());
    root.put("attempt_id", header.attemptId());
    root.put("warehouse", header.warehouse());
    root.put("partition", header.partition());
    root.put("task_attempt", header.taskAttempt());
    root.put("window", header.window());
    root.put("written_at", header.writtenAt().toString());
    if (entry instanceof LedgerEntry.Intent intent) {
      ArrayNode records = root.putArray("records");
      for (DeleteJournal.IntendedRecord record : intent.records()) {
        ObjectNode node = records.addObject();
        node.put("state_file_key", record.stateFileKey());
        node.put("action", record.action().label());
        node.put("state_etag", record.stateEtag());
        node.put("keys_already_gone", record.keysAlreadyGone());
        node.put("started_at", record.startedAt().toString());
        ArrayNode keys = node.putArray("keys");
        for (DeleteJournal.IntendedKey key : record.keys()) {
          keys.addObject().put("key", key.key()).put("role", key.role().label()).put("etag", key.etag());
        }
      }
    } else {
      ArrayNode outcomes = root.putArray("outcomes");
      for (ExecutionOutcome outcome : ((LedgerEntry.Outcomes) entry).outcomes()) {
        put(outcomes.addObject(), outcome);
      }
    }
    try {
      return JSON.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write a ledger object of run " + header.runId() + ": " + e.getMessage(), e);
    }
  }

  /** One outcome as a JSON document of its own (a row between the ledger's reading and its merge). */
  public static String writeOutcome(ExecutionOutcome outcome) {
    ObjectNode node = JSON.createObjectNode();
    put(node, outcome);
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write the outcome of " + outcome.stateFileKey() + ": " + e.getMessage(), e);
    }
  }

  /** Reads what {@link #writeOutcome} wrote. */
  public static ExecutionOutcome readOutcome(String json) {
    try {
      return outcome(new Reader("(an outcome)"), JSON.readTree(json), "");
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid outcome: not JSON: " + e.getMessage(), e);
    }
  }

  private static void put(ObjectNode node, ExecutionOutcome outcome) {
        node.put("state_file_key", outcome.stateFileKey());
        node.put("action", outcome.action().label());
        node.put("outcome", outcome.outcome().label());
        node.put("message", outcome.message());
        node.put("child_keys_deleted", outcome.childKeysDeleted());
        node.put("state_file_deleted", outcome.stateFileDeleted());
        node.put("keys_already_gone", outcome.keysAlreadyGone());
        node.put("started_at", outcome.startedAt().toString());
        node.put("ended_at", outcome.endedAt().toString());
        ArrayNode failures = node.putArray("failures");
        for (KeyFailure failure : outcome.failures()) {
          failures.addObject().put("key", failure.key()).put("code", failure.code()).put("message", failure.message());
        }
        ArrayNode deleted = node.putArray("deleted");
        for (DeletedKey key : outcome.deleted()) {
          ObjectNode deletedNode = deleted.addObject().put("key", key.key()).put("role", key.role().label());
          deletedNode.put("etag", key.etag());
          deletedNode.put("deleted_at", key.deletedAt() == null ? null : key.deletedAt().toString());
          if (key.deleteMarker() != null) {
            // Only on a versioned bucket; a ledger without it reads as before.
            deletedNode.put("delete_marker", key.deleteMarker());
          }
          if (key.restoredVersion() != null) {
            deletedNode.put("restored_version", key.restoredVersion());
          }
        }
  }

  /** Reads the ledger object at {@code key}; an object that is not one fails naming the key and the field. */
  public static LedgerEntry read(String key, byte[] bytes) {
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid ledger object " + key + ": not JSON: " + e.getMessage());
    }
    Reader reader = new Reader(key);
    if (root == null || !root.isObject()) {
      throw reader.invalid("the document", "is not an object");
    }
    long version = reader.number(root, "version");
    if (version != VERSION) {
      throw reader.invalid("version", "is " + version + ", this statesweep reads version " + VERSION);
    }
    String kind = reader.text(root, "kind");
    LedgerEntry.Header header = new LedgerEntry.Header(reader.text(root, "run_id"), reader.text(root, "run_date"),
        reader.text(root, "attempt_id"), reader.text(root, "warehouse"), (int) reader.number(root, "partition"),
        reader.number(root, "task_attempt", Long.MAX_VALUE), (int) reader.number(root, "window"), reader.time(root, "written_at"));
    switch (kind) {
      case "intent": {
        List<DeleteJournal.IntendedRecord> records = new ArrayList<>();
        JsonNode array = reader.array(root, "records");
        for (int i = 0; i < array.size(); i++) {
          JsonNode node = array.get(i);
          String at = "records[" + i + "].";
          List<DeleteJournal.IntendedKey> keys = new ArrayList<>();
          JsonNode keyArray = reader.array(node, at + "keys");
          for (int k = 0; k < keyArray.size(); k++) {
            JsonNode keyNode = keyArray.get(k);
            String keyAt = at + "keys[" + k + "].";
            keys.add(new DeleteJournal.IntendedKey(reader.text(keyNode, keyAt + "key"),
                reader.role(keyNode, keyAt + "role"), reader.text(keyNode, keyAt + "etag")));
          }
          records.add(new DeleteJournal.IntendedRecord(reader.text(node, at + "state_file_key"),
              reader.action(node, at + "action"), reader.text(node, at + "state_etag"), keys,
              (int) reader.number(node, at + "keys_already_gone"), reader.time(node, at + "started_at")));
        }
        return new LedgerEntry.Intent(header, records);
      }
      case "outcomes": {
        List<ExecutionOutcome> outcomes = new ArrayList<>();
        JsonNode array = reader.array(root, "outcomes");
        for (int i = 0; i < array.size(); i++) {
          outcomes.add(outcome(reader, array.get(i), "outcomes[" + i + "]."));
        }
        return new LedgerEntry.Outcomes(header, outcomes);
      }
      default:
        throw reader.invalid("kind", "is '" + kind + "', not intent or outcomes");
    }
  }

  private static ExecutionOutcome outcome(Reader reader, JsonNode node, String at) {
          List<KeyFailure> failures = new ArrayList<>();
          JsonNode failureArray = reader.array(node, at + "failures");
          for (int f = 0; f < failureArray.size(); f++) {
            JsonNode failure = failureArray.get(f);
            String failureAt = at + "failures[" + f + "].";
            failures.add(new KeyFailure(reader.text(failure, failureAt + "key"), reader.text(failure, failureAt + "code"),
                reader.text(failure, failureAt + "message")));
          }
          List<DeletedKey> deleted = new ArrayList<>();
          JsonNode deletedArray = reader.array(node, at + "deleted");
          for (int d = 0; d < deletedArray.size(); d++) {
            JsonNode deletedNode = deletedArray.get(d);
            String deletedAt = at + "deleted[" + d + "].";
            deleted.add(new DeletedKey(reader.text(deletedNode, deletedAt + "key"),
                reader.role(deletedNode, deletedAt + "role"), reader.optionalText(deletedNode, deletedAt + "etag"),
                reader.optionalTime(deletedNode, deletedAt + "deleted_at"),
                reader.optionalText(deletedNode, deletedAt + "delete_marker"),
                reader.optionalText(deletedNode, deletedAt + "restored_version")));
          }
          String stateFileKey = reader.text(node, at + "state_file_key");
          try {
            return new ExecutionOutcome(stateFileKey, reader.action(node, at + "action"),
                reader.outcome(node, at + "outcome"), reader.text(node, at + "message"),
                reader.number(node, at + "child_keys_deleted"), reader.bool(node, at + "state_file_deleted"),
                (int) reader.number(node, at + "keys_already_gone"), failures, reader.time(node, at + "started_at"),
                reader.time(node, at + "ended_at"), deleted, null);
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid ledger object " + reader.key() + ": the outcome of "
                + stateFileKey + " does not hold together: " + e.getMessage(), e);
          }
  }

  /** Reads fields of one object, naming it and the field when one is missing or of the wrong type. */
  private record Reader(String key) {
    IllegalArgumentException invalid(String field, String why) {
      return new IllegalArgumentException("Invalid ledger object " + key + ": field " + field + " " + why);
    }

    private JsonNode field(JsonNode node, String path) {
      JsonNode value = node.get(path.substring(path.lastIndexOf('.') + 1));
      if (value == null || value.isNull()) {
        throw invalid(path, "is missing");
      }
      return value;
    }

    String text(JsonNode node, String path) {
      JsonNode value = field(node, path);
      if (!value.isTextual()) {
        throw invalid(path, "is not a string");
      }
      return value.textValue();
    }

    String optionalText(JsonNode node, String path) {
      JsonNode value = node.get(path.substring(path.lastIndexOf('.') + 1));
      return value == null || value.isNull() ? null : text(node, path);
    }

    /** A count from 0 to {@code Integer.MAX_VALUE}. */
    long number(JsonNode node, String path) {
      return number(node, path, Integer.MAX_VALUE);
    }

    long number(JsonNode node, String path, long max) {
      JsonNode value = field(node, path);
      if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0 || value.longValue() > max) {
        throw invalid(path, "is not a count");
      }
      return value.longValue();
    }

    boolean bool(JsonNode node, String path) {
      JsonNode value = field(node, path);
      if (!value.isBoolean()) {
        throw invalid(path, "is not true or false");
      }
      return value.booleanValue();
    }

    JsonNode array(JsonNode node, String path) {
      JsonNode value = field(node, path);
      if (!value.isArray()) {
        throw invalid(path, "is not an array");
      }
      for (JsonNode element : value) {
        if (!element.isObject()) {
          throw invalid(path, "holds an element that is not an object");
        }
      }
      return value;
    }

    Instant time(JsonNode node, String path) {
      String text = text(node, path);
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        throw invalid(path, "is not a timestamp: " + text);
      }
    }

    Instant optionalTime(JsonNode node, String path) {
      JsonNode value = node.get(path.substring(path.lastIndexOf('.') + 1));
      return value == null || value.isNull() ? null : time(node, path);
    }

    Action action(JsonNode node, String path) {
      return labelled(node, path, Action.values(), Action::label, "an action");
    }

    DeleteRole role(JsonNode node, String path) {
      return labelled(node, path, DeleteRole.values(), DeleteRole::label, "a role");
    }

    Outcome outcome(JsonNode node, String path) {
      return labelled(node, path, Outcome.values(), Outcome::label, "an outcome");
    }

    /** The value whose label the field holds. */
    private <T> T labelled(JsonNode node, String path, T[] values, java.util.function.Function<T, String> label,
        String what) {
      String text = text(node, path);
      for (T value : values) {
        if (label.apply(value).equals(text)) {
          return value;
        }
      }
      throw invalid(path, "is not " + what + ": " + text);
    }
  }
}
