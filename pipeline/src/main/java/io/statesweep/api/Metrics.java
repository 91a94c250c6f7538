package io.statesweep.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's metrics as a value: what the {@code metrics:} line's JSON object says ({@link RunMetrics#json}), for
 * callers of the action API that would rather not parse it.
 *
 * @param attemptId the execute attempt, or the run id for a plan
 * @param counts the summary's counts and the run's counters, by name ({@code records_deleted}, {@code keys_listed})
 * @param seconds seconds by phase, and {@code total}
 * @param requests S3 requests by operation: {@code calls}, {@code attempts}, {@code retries}, {@code throttled},
 *     {@code failed}
 * @param verifiedToDeleted the window from a record's verification to its last delete's answer; null when
 *     nothing was deleted
 * @param json the JSON object itself, as the {@code metrics:} line prints it
 */
public record Metrics(String command, String runId, String attemptId, boolean dryRun, boolean complete,
    Map<String, Long> counts, Map<String, Double> seconds, Map<String, Map<String, Long>> requests, long retries,
    long throttled, VerifiedToDeleted verifiedToDeleted, String json) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Milliseconds from the end of a record's verification to the answer of its last delete. */
  public record VerifiedToDeleted(long records, double p50, double p99, double max) {}

  public Metrics {
    requireNonNull(command, "command is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(json, "json is null");
    counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
    seconds = Collections.unmodifiableMap(new LinkedHashMap<>(seconds));
    Map<String, Map<String, Long>> copy = new TreeMap<>();
    requests.forEach((operation, byName) -> copy.put(operation, Map.copyOf(byName)));
    requests = Collections.unmodifiableMap(copy);
  }

  /** A count by name, 0 when there is none. */
  public long count(String name) {
    return counts.getOrDefault(name, 0L);
  }

  /** The metrics of a {@code metrics:} line's JSON object. */
  public static Metrics of(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(requireNonNull(json, "json is null"));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Invalid metrics JSON: " + e.getOriginalMessage(), e);
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    fields(root.path("counts")).forEachRemaining(field -> {
      if (field.getValue().isIntegralNumber()) {
        counts.put(field.getKey(), field.getValue().asLong());
      }
    });
    Map<String, Double> seconds = new LinkedHashMap<>();
    fields(root.path("seconds")).forEachRemaining(field -> seconds.put(field.getKey(), field.getValue().asDouble()));
    Map<String, Map<String, Long>> requests = new TreeMap<>();
    fields(root.path("s3_requests")).forEachRemaining(operation -> {
      Map<String, Long> byName = new TreeMap<>();
      fields(operation.getValue()).forEachRemaining(field -> byName.put(field.getKey(), field.getValue().asLong()));
      requests.put(operation.getKey(), byName);
    });
    JsonNode window = root.path("verified_to_deleted_ms");
    VerifiedToDeleted verifiedToDeleted = window.isObject() ? new VerifiedToDeleted(window.path("records").asLong(),
        window.path("p50").asDouble(), window.path("p99").asDouble(), window.path("max").asDouble()) : null;
    return new Metrics(root.path("command").asText(), root.path("run_id").asText(),
        root.path("attempt_id").isNull() ? null : root.path("attempt_id").asText(null), root.path("dry_run").asBoolean(),
        root.path("complete").asBoolean(), counts, seconds, requests, root.path("retries").asLong(),
        root.path("throttled").asLong(), verifiedToDeleted, json);
  }

  private static Iterator<Map.Entry<String, JsonNode>> fields(JsonNode node) {
    return node.isObject() ? node.fields() : Collections.emptyIterator();
  }
}
