package io.statesweep.jobs.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The reference approach as a process of its own: what the exporter's reference cleanup script does, in one
 * JVM and without Spark. One sequential ListObjectsV2 walk of the prefix ({@link ObjectStore#listAll}); the
 * state files (keys ending in {@code state.json}) read with {@value #THREADS} threads of GETs and parsed with
 * Jackson; each record decided at the time of the run: due when it says {@code "delete": true} or its
 * {@code "expires_at"} is at or before now, and then its {@code files} and the state file itself go; a live
 * record's {@code delete_files} go. Only keys the listing saw count; a state file that is not a JSON object,
 * or whose {@code expires_at} is no timestamp, is unreadable and decides nothing. With {@code --execute} it
 * deletes what it decided, 1,000 keys a DeleteObjects request, one request after the other
 * ({@link ObjectStore#delete}, without ETags). No grace period, no refusals, no check for files newer than
 * their state file.
 *
 * <p>Prints one line, {@code reference: listed=<keys> state_files=<n> unreadable=<n> due_records=<n>
 * records_with_delete_files=<n> would_delete=<keys> deleted=<keys> delete_errors=<n> list_s=<s> read_s=<s>
 * delete_s=<s> cpu_s=<s>}, the CPU being this whole JVM's, its start included; exits 1 when a delete failed.
 * Arguments: {@code --bucket B --prefix P --endpoint E --region R [--execute]}; credentials from the SDK's
 * default chain, as the command line takes them.
 */
public final class ReferenceCleanup {
  static final int THREADS = 16;
  private static final int MAX_STATE_BYTES = 1 << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  private ReferenceCleanup() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    boolean execute = false;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--execute")) {
        execute = true;
      } else if (args[i].startsWith("--") && i + 1 < args.length) {
        options.put(args[i], args[++i]);
      } else {
        System.err.println("usage: ReferenceCleanup --bucket B --prefix P --endpoint E --region R [--execute]");
        System.exit(2);
      }
    }
    S3Settings settings = S3Settings.defaults().withEndpoint(options.get("--endpoint"), true)
        .withRegion(options.get("--region"));
    ObjectStore store = S3ObjectStore.open(settings, options.get("--bucket"));
    Instant now = Instant.now();

    long started = System.nanoTime();
    Set<String> listed = new HashSet<>();
    List<String> stateFiles = new ArrayList<>();
    store.listAll(options.get("--prefix"), object -> {
      listed.add(object.key());
      if (object.key().endsWith("state.json")) {
        stateFiles.add(object.key());
      }
    });
    double listSeconds = (System.nanoTime() - started) / 1e9;

    started = System.nanoTime();
    Set<String> toDelete = new LinkedHashSet<>();
    int unreadable = 0;
    int due = 0;
    int withDeleteFiles = 0;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<ObjectContent>> reads = new ArrayList<>();
      for (String key : stateFiles) {
        reads.add(pool.submit(() -> store.read(key, MAX_STATE_BYTES)));
      }
      for (int i = 0; i < stateFiles.size(); i++) {
        ObjectContent content = reads.get(i).get();
        Decision decision = content == null ? null : decide(stateFiles.get(i), content.bytes(), now);
        if (decision == null) {
          unreadable++;
          continue;
        }
        due += decision.due() ? 1 : 0;
        withDeleteFiles += !decision.due() && !decision.keys().isEmpty() ? 1 : 0;
        for (String key : decision.keys()) {
          if (listed.contains(key)) {
            toDelete.add(key);
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    double readSeconds = (System.nanoTime() - started) / 1e9;

    started = System.nanoTime();
    long deleted = 0;
    long errors = 0;
    if (execute) {
      List<DeleteTarget> batch = new ArrayList<>();
      for (String key : toDelete) {
        batch.add(new DeleteTarget(key, null));
        if (batch.size() == 1000) {
          DeleteResult result = store.delete(batch);
          deleted += result.deleted().size();
          errors += result.errors().size();
          batch.clear();
        }
      }
      if (!batch.isEmpty()) {
        DeleteResult result = store.delete(batch);
        deleted += result.deleted().size();
        errors += result.errors().size();
      }
    }
    double deleteSeconds = (System.nanoTime() - started) / 1e9;
    System.out.printf("reference: listed=%d state_files=%d unreadable=%d due_records=%d records_with_delete_files=%d"
        + " would_delete=%d deleted=%d delete_errors=%d list_s=%.3f read_s=%.3f delete_s=%.3f cpu_s=%.3f%n",
        listed.size(), stateFiles.size(), unreadable, due, withDeleteFiles, toDelete.size(), deleted, errors,
        listSeconds, readSeconds, deleteSeconds, ScaleBenchmark.processCpuNanos() / 1e9);
    System.out.flush();
    System.exit(errors == 0 ? 0 : 1);
  }

  /** What one state file decides: whether its record is due, and the keys that go. */
  record Decision(boolean due, List<String> keys) {}

  /** The decision of a state file, or null when it is unreadable. */
  static Decision decide(String stateFile, byte[] bytes, Instant now) {
    JsonNode document;
    try {
      document = JSON.readTree(bytes);
    } catch (java.io.IOException e) {
      return null;
    }
    if (document == null || !document.isObject()) {
      return null;
    }
    boolean expired = false;
    JsonNode expiresAt = document.path("expires_at");
    if (expiresAt.isTextual()) {
      try {
        expired = !OffsetDateTime.parse(expiresAt.asText()).toInstant().isAfter(now);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    JsonNode delete = document.path("delete");
    boolean due = delete.isBoolean() && delete.booleanValue() || expired;
    List<String> keys = new ArrayList<>();
    for (JsonNode key : document.path(due ? "files" : "delete_files")) {
      if (key.isTextual()) {
        keys.add(key.asText());
      }
    }
    if (due) {
      keys.add(stateFile);
    }
    return new Decision(due, keys);
  }
}
