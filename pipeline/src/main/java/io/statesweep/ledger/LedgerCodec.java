package io.statesweep.ledger;

import static java.util.Objects.requireNonNull;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Ledger objects as JSON (ASCII only: every other character escaped, so a key of any bytes travels and reads back
 * as it was). An entry is written in as many parts as its size needs, each at most {@link #PART_BYTES}, a record
 * with more keys than one part holds going on in the next. A window's outcomes are written once, their parts counted
 * ({@code parts}), each slice of a record that goes on from the part before marked {@code continued}: whole only
 * when every part is there. An intent is written as its group's requests go, each object before the deletes of its
 * keys: its parts are numbered within their group, uncounted, and what they name together is the group's intent.
 * Reading checks every field and names the object and the field of the first that is wrong.
 */
public final class LedgerCodec {
  /** The version written; version 1 (one object per entry, no parts) is read too. */
  static final int VERSION = 2;
  /** The most a ledger object may hold: reading refuses a larger one. */
  public static final int MAX_OBJECT_BYTES = 64 * 1024 * 1024;
  /**
   * The most one part holds, counted from above (every character as JSON may escape it): far below
   * {@link #MAX_OBJECT_BYTES}, and small enough that a part is one quick PUT.
   */
  static final int PART_BYTES = 8 * 1024 * 1024;
  private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
  /** The fields of an object's header, with room to spare. */
  private static final int HEADER_BYTES = 512;
  /** The field names and punctuation of a record's slice, with room to spare. */
  private static final int RECORD_BYTES = 384;
  /** The field names and punctuation of one key of a slice, with room to spare. */
  private static final int KEY_BYTES = 128;

  private LedgerCodec() {}

  /**
   * One ledger object as read: part {@code part} of the {@code parts} its outcomes were written in, or of its
   * intent's group ({@code parts} 0: uncounted). Its records (or outcomes) are slices: {@code continued.get(i)} says
   * the i-th outcome goes on with the record of the slice before it (the previous part's last, for the first); an
   * outcome's slice counts only the keys it holds.
   */
  public record Part(LedgerEntry entry, int part, int parts, List<Boolean> continued) {
    public Part {
      requireNonNull(entry, "entry is null");
      continued = List.copyOf(continued);
      if (part < 1 || parts != 0 && part > parts || (parts == 0) != entry instanceof LedgerEntry.Intent) {
        throw new IllegalArgumentException("part " + part + " of " + parts);
      }
    }

    public LedgerKeys.Kind kind() {
      return entry instanceof LedgerEntry.Intent ? LedgerKeys.Kind.INTENT : LedgerKeys.Kind.OUTCOMES;
    }

    /** The group of deletes an intent is of; 1 for outcomes. */
    public int group() {
      return entry instanceof LedgerEntry.Intent intent ? intent.group() : 1;
    }
  }

  /**
   * The entry's parts, in order, each at most {@link #PART_BYTES}: numbered from 1 for outcomes, and from
   * {@code firstPart} for an intent (the parts its group has so far, plus one).
   */
  public static List<byte[]> write(LedgerEntry entry, int firstPart) {
    return write(entry, firstPart, PART_BYTES);
  }

  /** The entry's parts, each at most {@code partBytes} (and never fewer than one key per part). */
  static List<byte[]> write(LedgerEntry entry, int firstPart, long partBytes) {
    if (firstPart < 1 || firstPart > 1 && entry instanceof LedgerEntry.Outcomes) {
      throw new IllegalArgumentException("outcomes start at part 1, an intent at 1 or later: " + firstPart);
    }
    List<List<SliceBounds>> parts = slices(entry, partBytes);
    List<byte[]> written = new ArrayList<>(parts.size());
    for (int part = 0; part < parts.size(); part++) {
      byte[] bytes = writePart(entry, parts.get(part), firstPart + part, parts.size());
      if (bytes.length > MAX_OBJECT_BYTES) {
        throw new IllegalStateException("a part of the ledger of run " + entry.header().runId() + " is " + bytes.length
            + " bytes, over the " + MAX_OBJECT_BYTES + " its reader takes");
      }
      written.add(bytes);
    }
    return written;
  }

  /**
   * The entry of a window's parts. Outcomes: all of their parts, in order of their number, else it throws saying
   * why. An intent: the parts of one group that could be read, in order of their number, each record with every key
   * any of them names.
   */
  public static LedgerEntry join(List<Part> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("no parts");
    }
    Part first = parts.get(0);
    if (first.entry() instanceof LedgerEntry.Intent) {
      Map<String, DeleteJournal.IntendedRecord> records = new LinkedHashMap<>();
      for (Part part : parts) {
        if (!(part.entry() instanceof LedgerEntry.Intent intent) || intent.group() != first.group()) {
          throw new IllegalArgumentException("part " + part.part() + " is not of the intent of group " + first.group());
        }
        intent.records().forEach(record -> records.merge(record.stateFileKey(), record, LedgerCodec::joined));
      }
      return new LedgerEntry.Intent(parts.get(parts.size() - 1).entry().header(), first.group(),
          List.copyOf(records.values()));
    }
    List<ExecutionOutcome> items = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      Part part = parts.get(i);
      if (part.part() != i + 1 || part.parts() != parts.size() || part.kind() != first.kind()) {
        throw new IllegalArgumentException("part " + part.part() + " of " + part.parts() + " is not part " + (i + 1)
            + " of " + parts.size());
      }
      List<ExecutionOutcome> slices = ((LedgerEntry.Outcomes) part.entry()).outcomes();
      if (slices.size() != part.continued().size()) {
        throw new IllegalArgumentException("part " + part.part() + " marks " + part.continued().size() + " slices of "
            + slices.size());
      }
      for (int s = 0; s < slices.size(); s++) {
        ExecutionOutcome slice = slices.get(s);
        if (!part.continued().get(s)) {
          items.add(slice);
          continue;
        }
        ExecutionOutcome before = items.isEmpty() ? null : items.get(items.size() - 1);
        if (before == null || !before.stateFileKey().equals(slice.stateFileKey())) {
          throw new IllegalArgumentException("part " + part.part() + " goes on with " + slice.stateFileKey()
              + ", which the part before does not end with");
        }
        items.set(items.size() - 1, joined(before, slice));
      }
    }
    return new LedgerEntry.Outcomes(parts.get(parts.size() - 1).entry().header(), items);
  }

  private static DeleteJournal.IntendedRecord joined(DeleteJournal.IntendedRecord before,
      DeleteJournal.IntendedRecord next) {
    List<DeleteJournal.IntendedKey> keys = new ArrayList<>(before.keys().size() + next.keys().size());
    keys.addAll(before.keys());
    keys.addAll(next.keys());
    return new DeleteJournal.IntendedRecord(before.stateFileKey(), before.action(), before.stateEtag(), keys,
        before.keysAlreadyGone(), before.startedAt());
  }

  private static ExecutionOutcome joined(ExecutionOutcome before, ExecutionOutcome next) {
    List<DeletedKey> deleted = new ArrayList<>(before.deleted().size() + next.deleted().size());
    deleted.addAll(before.deleted());
    deleted.addAll(next.deleted());
    List<KeyFailure> failures = new ArrayList<>(before.failures());
    failures.addAll(next.failures());
    return new ExecutionOutcome(before.stateFileKey(), before.action(), before.outcome(), before.message(),
        before.childKeysDeleted() + next.childKeysDeleted(), before.stateFileDeleted() || next.stateFileDeleted(),
        before.keysAlreadyGone(), failures, before.startedAt(), before.endedAt(), deleted, null);
  }

  /** Where one slice of an item (a record's intent, or its outcome) starts and ends among its keys. */
  private record SliceBounds(int item, int from, int to, boolean continued) {}

  /** The entry's items cut into parts of at most {@code partBytes}, counted from above, each key in one. */
  private static List<List<SliceBounds>> slices(LedgerEntry entry, long partBytes) {
    LedgerEntry.Header header = entry.header();
    long headerBytes = HEADER_BYTES + jsonLength(header.runId()) + jsonLength(header.runDate())
        + jsonLength(header.attemptId()) + jsonLength(header.warehouse());
    List<List<SliceBounds>> parts = new ArrayList<>();
    List<SliceBounds> part = new ArrayList<>();
    long used = headerBytes;
    int items = entry instanceof LedgerEntry.Intent intent ? intent.records().size()
        : ((LedgerEntry.Outcomes) entry).outcomes().size();
    for (int item = 0; item < items; item++) {
      long itemBytes = RECORD_BYTES + itemLength(entry, item);
      int keys = keyCount(entry, item);
      int from = 0;
      boolean continued = false;
      while (true) {
        long first = itemBytes + (from < keys ? keyLength(entry, item, from) : 0);
        if (!part.isEmpty() && used + first > partBytes) {
          parts.add(part);
          part = new ArrayList<>();
          used = headerBytes;
        }
        used += first;
        int to = from < keys ? from + 1 : from;
        while (to < keys) {
          long next = keyLength(entry, item, to);
          if (used + next > partBytes) {
            break;
          }
          used += next;
          to++;
        }
        part.add(new SliceBounds(item, from, to, continued));
        if (to >= keys) {
          break;
        }
        parts.add(part);
        part = new ArrayList<>();
        used = headerBytes;
        from = to;
        continued = true;
      }
    }
    parts.add(part);
    return parts;
  }

  /** The bytes of an item's fields but its keys, from above. */
  private static long itemLength(LedgerEntry entry, int item) {
    if (entry instanceof LedgerEntry.Intent intent) {
      DeleteJournal.IntendedRecord record = intent.records().get(item);
      return jsonLength(record.stateFileKey()) + jsonLength(record.stateEtag());
    }
    ExecutionOutcome outcome = ((LedgerEntry.Outcomes) entry).outcomes().get(item);
    return jsonLength(outcome.stateFileKey()) + jsonLength(outcome.message());
  }

  /** An intent's keys; an outcome's deleted keys, then its failures. */
  private static int keyCount(LedgerEntry entry, int item) {
    if (entry instanceof LedgerEntry.Intent intent) {
      return intent.records().get(item).keys().size();
    }
    ExecutionOutcome outcome = ((LedgerEntry.Outcomes) entry).outcomes().get(item);
    return outcome.deleted().size() + outcome.failures().size();
  }

  private static long keyLength(LedgerEntry entry, int item, int index) {
    if (entry instanceof LedgerEntry.Intent intent) {
      DeleteJournal.IntendedKey key = intent.records().get(item).keys().get(index);
      return KEY_BYTES + jsonLength(key.key()) + jsonLength(key.etag());
    }
    ExecutionOutcome outcome = ((LedgerEntry.Outcomes) entry).outcomes().get(item);
    if (index < outcome.deleted().size()) {
      DeletedKey key = outcome.deleted().get(index);
      return KEY_BYTES + jsonLength(key.key()) + jsonLength(key.etag()) + jsonLength(key.deleteMarker())
          + jsonLength(key.restoredVersion());
    }
    KeyFailure failure = outcome.failures().get(index - outcome.deleted().size());
    return KEY_BYTES + jsonLength(failure.key()) + jsonLength(failure.code()) + jsonLength(failure.message());
  }

  /** The most bytes {@code text} takes as an escaped ASCII JSON string, quotes included. */
  static long jsonLength(String text) {
    if (text == null) {
      return 4;
    }
    long length = 2;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      length += c == '"' || c == '\\' ? 2 : c >= 0x20 && c < 0x7f ? 1 : 6;
    }
    return length;
  }

  private static byte[] writePart(LedgerEntry entry, List<SliceBounds> slices, int part, int parts) {
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
      root.put("group", intent.group());
    }
    root.put("part", part);
    if (entry instanceof LedgerEntry.Outcomes) {
      root.put("parts", parts);
    }
    if (entry instanceof LedgerEntry.Intent intent) {
      ArrayNode records = root.putArray("records");
      for (SliceBounds slice : slices) {
        DeleteJournal.IntendedRecord record = intent.records().get(slice.item());
        ObjectNode node = records.addObject();
        node.put("state_file_key", record.stateFileKey());
        node.put("action", record.action().label());
        node.put("state_etag", record.stateEtag());
        node.put("keys_already_gone", record.keysAlreadyGone());
        node.put("started_at", record.startedAt().toString());
        ArrayNode keys = node.putArray("keys");
        for (DeleteJournal.IntendedKey key : record.keys().subList(slice.from(), slice.to())) {
          keys.addObject().put("key", key.key()).put("role", key.role().label()).put("etag", key.etag());
        }
      }
    } else {
      ArrayNode outcomes = root.putArray("outcomes");
      for (SliceBounds slice : slices) {
        ExecutionOutcome outcome = ((LedgerEntry.Outcomes) entry).outcomes().get(slice.item());
        int deleted = outcome.deleted().size();
        List<DeletedKey> deletedSlice = outcome.deleted().subList(Math.min(slice.from(), deleted),
            Math.min(slice.to(), deleted));
        List<KeyFailure> failureSlice = outcome.failures().subList(Math.max(slice.from(), deleted) - deleted,
            Math.max(slice.to(), deleted) - deleted);
        boolean stateFile = deletedSlice.stream().anyMatch(key -> key.role() == DeleteRole.STATE_FILE);
        ObjectNode node = outcomes.addObject();
        put(node, new ExecutionOutcome(outcome.stateFileKey(), outcome.action(), outcome.outcome(), outcome.message(),
            deletedSlice.size() - (stateFile ? 1 : 0), stateFile, outcome.keysAlreadyGone(), failureSlice,
            outcome.startedAt(), outcome.endedAt(), deletedSlice, null));
        node.put("continued", slice.continued());
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

  /**
   * Reads the ledger object at {@code key}, one part of its entry (a version 1 object is the whole entry: part 1 of
   * 1); an object that is not one fails naming the key and the field.
   */
  public static Part read(String key, byte[] bytes) {
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
    if (version != VERSION && version != 1) {
      throw reader.invalid("version", "is " + version + ", this statesweep reads versions 1 and " + VERSION);
    }
    boolean inParts = version == VERSION;
    String kind = reader.text(root, "kind");
    LedgerEntry.Header header = new LedgerEntry.Header(reader.text(root, "run_id"), reader.text(root, "run_date"),
        reader.text(root, "attempt_id"), reader.text(root, "warehouse"), (int) reader.number(root, "partition"),
        reader.number(root, "task_attempt", Long.MAX_VALUE), (int) reader.number(root, "window"), reader.time(root, "written_at"));
    boolean intent = kind.equals("intent");
    int parts = intent ? 0 : inParts ? (int) reader.number(root, "parts") : 1;
    int part = inParts ? (int) reader.number(root, "part") : 1;
    if (part < 1) {
      throw reader.invalid("part", "is not positive");
    }
    if (parts != 0 && part > parts) {
      throw reader.invalid("part", "is " + part + " of " + parts + " parts");
    }
    List<Boolean> continued = new ArrayList<>();
    switch (kind) {
      case "intent": {
        int group = inParts ? (int) reader.number(root, "group") : 1;
        if (group < 1) {
          throw reader.invalid("group", "is not positive");
        }
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
          continued.add(false);
        }
        return new Part(new LedgerEntry.Intent(header, group, records), part, parts, continued);
      }
      case "outcomes": {
        List<ExecutionOutcome> outcomes = new ArrayList<>();
        JsonNode array = reader.array(root, "outcomes");
        for (int i = 0; i < array.size(); i++) {
          outcomes.add(outcome(reader, array.get(i), "outcomes[" + i + "]."));
          continued.add(inParts && reader.bool(array.get(i), "outcomes[" + i + "].continued"));
        }
        return new Part(new LedgerEntry.Outcomes(header, outcomes), part, parts, continued);
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
