package io.statesweep.testing;

import static java.util.Objects.requireNonNull;

import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.store.ObjectStore;
import io.statesweep.local.LocalS3Server;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** A bucket on the test server that tests write archives into by relative key, and snapshot. */
public final class TestArchive {
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
  private final ObjectStore store;
  private final String prefix;

  public TestArchive(LocalS3Server server, String bucket, String prefix) {
    requireNonNull(server, "server is null");
    server.createBucket(bucket);
    this.store = S3ObjectStore.open(server.s3Settings(), bucket);
    this.prefix = requireNonNull(prefix, "prefix is null");
  }

  public ObjectStore store() {
    return store;
  }

  /** The full key of a key relative to the prefix. */
  public String key(String relativeKey) {
    return prefix + relativeKey;
  }

  public void put(String relativeKey, String content) {
    store.write(key(relativeKey), content.getBytes(StandardCharsets.UTF_8));
  }

  /** A state file document; {@code files} and {@code deleteFiles} are relative keys. */
  public String state(boolean delete, String expiresAt, List<String> files, List<String> deleteFiles) {
    return "{\"status\": \"" + (delete ? "deleted" : "active") + "\", \"delete\": " + delete + ", \"expires_at\": "
        + (expiresAt == null ? "null" : "\"" + expiresAt + "\"") + ", \"files\": " + json(files)
        + ", \"delete_files\": " + json(deleteFiles) + ", \"updated_at\": \"2026-01-01T00:00:00Z\"}";
  }

  private String json(List<String> keys) {
    return keys.stream().map(key -> quoted(key(key))).collect(Collectors.joining(", ", "[", "]"));
  }

  /** A JSON string: Jackson escapes what JSON must (quotes, backslashes, control characters) and nothing else. */
  private static String quoted(String text) {
    try {
      return JSON.writeValueAsString(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write " + text + " as JSON", e);
    }
  }

  /** The keys of {@code store} under {@code prefix}, sorted; a set the caller may change. */
  public static Set<String> keys(ObjectStore store, String prefix) {
    Set<String> keys = new TreeSet<>();
    store.listAll(prefix, object -> keys.add(object.key()));
    return keys;
  }

  /** Every key of {@code store}, sorted; a set the caller may change. */
  public static Set<String> keys(ObjectStore store) {
    return keys(store, "");
  }

  /** Every object of the bucket, by key. */
  public Map<String, StoredObject> snapshot() {
    Map<String, StoredObject> objects = new TreeMap<>();
    store.listAll("", object -> objects.put(object.key(), object));
    return objects;
  }
}
