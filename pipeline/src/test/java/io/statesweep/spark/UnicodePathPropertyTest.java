package io.statesweep.spark;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.io.IOException;
import java.io.StringReader;
import java.net.URLDecoder;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.xml.sax.InputSource;

/**
 * The whole path (listing, reading, parsing, the Spark joins, the Delta tables, execution and its
 * requests) over random archives whose keys and JSON strings draw from all of Unicode: control
 * characters ({@code \r}, {@code \r\n}, U+0001 ...), lone surrogates, noncharacters, NFC/NFD pairs,
 * characters that encoders or parsers rewrite ({@code +}, {@code %}, {@code ?}, U+FFFD, XML's
 * specials), keys up to S3's 1,024 bytes. Beside each listed key the bucket holds the keys that a
 * "repair" would turn it into (NFC for NFD, {@code \n} for {@code \r}, {@code ?} or U+FFFD for a lone
 * surrogate, a space for {@code +}), which no state file lists.
 *
 * <p>Always: the plan completes without errors; every key planned, and every key sent to a delete
 * (as the server reads the request, seen by a proxy in front of it), is one a state file lists
 * exactly, or a state file; execution deletes exactly what the dry run counted, and the bucket is the
 * bucket less exactly the planned keys. {@code -Dunicode.archives=N} runs more archives,
 * {@code -Dunicode.seed=N} replays one.
 *
 * <p>Four archives by default, of 20 records each, their ids drawn from all of Unicode too; the proxy in front of
 * the server reads each delete request as the server does.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class UnicodePathPropertyTest {
  private static final int ARCHIVES = Integer.getInteger("unicode.archives", 4);
  private static final long FIRST_SEED = Long.getLong("unicode.seed", 20261201L);
  private static final int RECORDS = 20;
  private static final int MAX_KEY_BYTES = 1024;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper ESCAPING_JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
      .enable(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII).build();

  /** Characters that S3 keys may hold and that encoders, parsers or normalisers tend to change. */
  private static final String[] HOSTILE = {
      "\r", "\r\n", "\n", "\t", "\u0001", "\u001f", "\u007f", "\u0085", "\u2028", "\ufffe", "\uffff", "\ufdd0",
      "\ufffd", "?", "+", "%20", "%", "&", "<", ">", "\"", "'", "&amp;", "\\", " ", "\u00a0", "\u00e9", "e\u0301",
      "\u212b", "\u00c5", "\ud83d\ude00", "\u4e2d", "#", "*", "~", "=", ";", "\u200b",
      "\ud800\udc00", "\uff0f"};

  @TempDir
  Path warehouse;

  @Test
  void randomUnicodeArchivesArePlannedAndExecutedExactlyAsTheirStateFilesSay(LocalS3Server server) throws IOException {
    int keysWritten = 0;
    int keysListed = 0;
    int recordsDeleted = 0;
    int badStates = 0;
    Map<String, Integer> sentByOperation = new TreeMap<>();
    for (int archive = 0; archive < ARCHIVES; archive++) {
      long seed = FIRST_SEED + archive;
      Outcome outcome = runOne(server, seed);
      keysWritten += outcome.keysWritten;
      keysListed += outcome.keysListed;
      recordsDeleted += outcome.recordsDeleted;
      badStates += outcome.badStates;
      outcome.sentByOperation.forEach((operation, count) -> sentByOperation.merge(operation, count, Integer::sum));
    }
    System.out.println("unicode property test: " + ARCHIVES + " archives, " + keysWritten + " keys written, "
        + keysListed + " keys listed by state files, " + recordsDeleted + " records deleted, " + badStates
        + " bad_state, keys sent by request: " + sentByOperation);
    assertThat(recordsDeleted).as("the archives delete something").isPositive();
    assertThat(badStates).as("the archives hold bad documents").isPositive();
    assertThat(sentByOperation).as("keys XML cannot carry went alone").containsKeys("DeleteObject", "DeleteObjects");
  }

  private record Outcome(int keysWritten, int keysListed, int recordsDeleted, int badStates,
      Map<String, Integer> sentByOperation) {}

  private Outcome runOne(LocalS3Server server, long seed) throws IOException {
    Random random = new Random(seed);
    String bucket = server.createBucket("unicode-" + seed);
    String prefix = "u" + seed + "/";
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    Archive archive = new Archive(random, prefix);
    archive.generate();
    archive.files.forEach((key, content) -> store.write(key, content.getBytes(UTF_8)));
    // State files last, so that no file is newer than its state file.
    archive.stateFiles.forEach((key, content) -> store.write(key, content.getBytes(UTF_8)));
    Map<String, StoredObject> before = snapshot(store, prefix);
    assertThat(before.keySet()).as("seed %s: the bucket holds every key written", seed)
        .containsAll(archive.files.keySet()).containsAll(archive.stateFiles.keySet());

    PlanResult plan = new SparkPlanAction(SharedSpark.session(), options(bucket, prefix, server.endpoint(), Map.of()).plan())
        .execute();
    assertThat(plan.failure()).as("seed %s: %s", seed, plan.summary().line()).isNull();
    assertThat(plan.summary().complete()).as("seed %s", seed).isTrue();
    assertThat(plan.summary().errors()).as("seed %s: %s", seed, plan.summary().line()).isZero();
    Set<String> planned = plannedKeys(plan);
    assertThat(planned).as("seed %s: planned keys that no state file lists", seed)
        .allSatisfy(key -> assertThat(archive.mayBeDeleted(key)).as("%s", visible(key)).isTrue());

    List<String> sent = Collections.synchronizedList(new ArrayList<>());
    Map<String, Integer> sentByOperation = new TreeMap<>();
    ExecuteResult execution;
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(request -> {
        record(request, bucket, prefix, sent, sentByOperation);
        return null;
      });
      execution = new SparkExecuteAction(SharedSpark.session(), options(bucket, prefix, proxy.endpoint(),
          Map.of("--dry-run", "false", "--skip-approval", "true", "--batch-size", "7")).execute(), plan.runId()).execute();
    }
    assertThat(execution.failure()).as("seed %s: %s", seed, execution.summary().line()).isNull();
    assertThat(execution.summary().errors()).as("seed %s: %s", seed, execution.summary().line()).isZero();
    assertThat(execution.summary().recordsDeleted()).as("seed %s", seed).isEqualTo(plan.summary().recordsDeleted());
    assertThat(execution.summary().childKeysDeleted()).as("seed %s", seed)
        .isEqualTo(plan.summary().childKeysDeleted());
    assertThat(sent).as("seed %s: keys sent to a delete that no state file lists", seed)
        .allSatisfy(key -> assertThat(archive.mayBeDeleted(key)).as("%s", visible(key)).isTrue());

    Map<String, StoredObject> expectedLeft = new TreeMap<>(before);
    planned.forEach(expectedLeft::remove);
    Map<String, StoredObject> after = snapshot(store, prefix);
    assertThat(after.keySet()).as("seed %s: the bucket less exactly the planned keys", seed)
        .containsExactlyInAnyOrderElementsOf(expectedLeft.keySet());
    return new Outcome(before.size(), archive.listed.size(), (int) plan.summary().recordsDeleted(),
        Integer.parseInt(plan.summary().extra().getOrDefault("bad_state", "0")), sentByOperation);
  }

  /** The keys of a delete request as the server reads them: XML parsed as a server parses it, or the URL's path. */
  private static void record(FaultProxy.Request request, String bucket, String prefix, List<String> sent,
      Map<String, Integer> byOperation) {
    List<String> keys = new ArrayList<>();
    String operation;
    if (request.isDeleteObjects()) {
      operation = "DeleteObjects";
      for (String raw : request.deleteKeys()) {
        String key = asParsed(raw);
        if (key != null) {
          keys.add(key);
        }
      }
    } else if (request.method().equals("DELETE")) {
      operation = "DeleteObject";
      String path = request.target().split("\\?", 2)[0];
      String bucketPath = "/" + bucket + "/";
      if (!path.startsWith(bucketPath)) {
        return;
      }
      keys.add(URLDecoder.decode(path.substring(bucketPath.length()).replace("+", "%2B"), UTF_8));
    } else {
      return;
    }
    synchronized (sent) {
      for (String key : keys) {
        if (key.startsWith(prefix)) {
          sent.add(key);
          byOperation.merge(operation, 1, Integer::sum);
        }
      }
    }
  }

  /** What an XML parser reads from a key element's raw text, or null when XML cannot carry it (MalformedXML). */
  private static String asParsed(String raw) {
    try {
      Element element = DocumentBuilderFactory.newInstance().newDocumentBuilder()
          .parse(new InputSource(new StringReader("<Key>" + raw + "</Key>"))).getDocumentElement();
      return element.getTextContent();
    } catch (Exception e) {
      return null;
    }
  }

  private Set<String> plannedKeys(PlanResult plan) {
    Set<String> keys = new LinkedHashSet<>();
    for (Row row : TableReader.of(plan.tables()).deletionPlan(plan.runId())
        .selectExpr("explode(transform(deletes, d -> d.key))")
        .collectAsList()) {
      keys.add(row.getString(0));
    }
    return keys;
  }

  private RunOptions options(String bucket, String prefix, String endpoint, Map<String, String> extra) {
    return TestOptions.of(endpoint, bucket, prefix, warehouse).with("--progress-seconds", "0").with(extra).options();
  }

  private static Map<String, StoredObject> snapshot(ObjectStore store, String prefix) {
    Map<String, StoredObject> objects = new TreeMap<>();
    store.listAll(prefix, object -> objects.put(object.key(), object));
    return objects;
  }

  /** A key with its invisible characters spelled out, for messages. */
  private static String visible(String key) {
    StringBuilder out = new StringBuilder();
    key.chars().forEach(c -> out.append(c < 0x20 || c >= 0x7f && c <= 0x9f || Character.isSurrogate((char) c)
        || c >= 0xfff0 ? String.format("\\u%04x", c) : String.valueOf((char) c)));
    return out.toString();
  }

  /** A random archive: records at the layout's places, their files, look-alikes of their keys, and documents. */
  private static final class Archive {
    private final Random random;
    private final String prefix;
    /** Files to write (not state files), key to content. */
    final Map<String, String> files = new LinkedHashMap<>();
    /** State files to write, key to document. */
    final Map<String, String> stateFiles = new LinkedHashMap<>();
    /** Every key that a valid document lists exactly. */
    final Set<String> listed = new TreeSet<>();

    Archive(Random random, String prefix) {
      this.random = random;
      this.prefix = prefix;
    }

    boolean mayBeDeleted(String key) {
      return listed.contains(key) || stateFiles.containsKey(key);
    }

    void generate() {
      // One project of plain ids, one of hostile ones: keys that share a DeleteObjects request, and keys that cannot.
      String[] projects = {prefix + "projects/plain/", prefix + "projects/" + segment(12) + "/"};
      for (int i = 0; i < RECORDS; i++) {
        String project = projects[random.nextInt(projects.length)];
        boolean single = random.nextInt(4) == 0;
        String stateKey;
        String folder;
        String ownFile = null;
        if (single) {
          String id = segment(10) + "-" + i;
          folder = prefix + "organization/agents/";
          stateKey = folder + id + ".state.json";
          ownFile = folder + id + ".json";
        } else {
          String[] kinds = {"meetings", "emails", "documents", "change_orders"};
          folder = project + kinds[random.nextInt(kinds.length)] + "/" + (random.nextBoolean() ? segment(10) : "r")
              + "-" + i + "/";
          stateKey = folder + "state.json";
        }
        List<String> fileKeys = new ArrayList<>();
        List<String> removedKeys = new ArrayList<>();
        boolean bad = false;
        if (single) {
          fileKeys.add(ownFile);
          write(ownFile);
        } else {
          int count = 1 + random.nextInt(4);
          for (int f = 0; f < count; f++) {
            String key = folder + fileName(folder, f);
            (random.nextInt(3) == 0 ? removedKeys : fileKeys).add(key);
            if (random.nextInt(6) != 0) {
              write(key);
            }
          }
          if (random.nextInt(7) == 0) {
            // A key with a lone surrogate, which no S3 key can be: its repairs exist and must stay.
            String name = "lone" + (random.nextBoolean() ? "\ud800" : "\udfff") + "-" + i + ".pdf";
            (random.nextBoolean() ? fileKeys : removedKeys).add(folder + name);
            write(folder + name.replaceAll("[\ud800-\udfff]", "?"));
            write(folder + name.replaceAll("[\ud800-\udfff]", "\ufffd"));
            bad = true;
          }
          if (random.nextInt(8) == 0) {
            // Longer than S3 allows: never exists, never sent.
            fileKeys.add(folder + "x".repeat(MAX_KEY_BYTES));
          }
        }
        Map<String, Object> document = new LinkedHashMap<>();
        int mood = random.nextInt(6);
        document.put("delete", mood <= 2);
        String expiresAt = switch (random.nextInt(14)) {
          case 0 -> "2001-01-01T00:00:00Z";
          case 1 -> "2999-01-01T00:00:00+02:00";
          case 2 -> "+999999999-12-31T23:59:59Z";
          case 3 -> "0001-01-01T00:00:00Z";
          default -> null;
        };
        if (expiresAt != null && (expiresAt.startsWith("+") || expiresAt.startsWith("0001"))) {
          bad = true;
        }
        document.put("expires_at", expiresAt);
        document.put("files", fileKeys);
        document.put("delete_files", removedKeys);
        document.put("note", randomText(8));
        if (!bad) {
          listed.addAll(fileKeys);
          listed.addAll(removedKeys);
        }
        try {
          // A lone surrogate has no UTF-8 bytes: it travels escaped (\ud800), as JSON allows; so do
          // other characters, in some documents.
          boolean escape = random.nextBoolean() || (fileKeys + "" + removedKeys + document.get("note")).chars()
              .anyMatch(c -> Character.isSurrogate((char) c));
          stateFiles.put(stateKey, (escape ? ESCAPING_JSON : JSON).writeValueAsString(document));
        } catch (JsonProcessingException e) {
          throw new IllegalStateException(e);
        }
      }
      // Look-alikes of every listed key, unlisted, where the bucket can hold them.
      for (String key : new ArrayList<>(listed)) {
        for (String twin : lookAlikes(key)) {
          if (!twin.equals(key) && !listed.contains(twin) && !stateFiles.containsKey(twin) && storable(twin)) {
            files.putIfAbsent(twin, "look-alike of a listed key");
          }
        }
      }
    }

    private void write(String key) {
      if (storable(key)) {
        files.put(key, "file " + files.size());
      }
    }

    /** A name in {@code folder}, sometimes in sub-folders that take the key to S3's 1,024 bytes. */
    private String fileName(String folder, int index) {
      String name = (random.nextBoolean() ? segment(6 + random.nextInt(20)) : "f") + "-" + index + ".pdf";
      if (random.nextInt(6) != 0) {
        return name;
      }
      StringBuilder path = new StringBuilder();
      int room = MAX_KEY_BYTES - folder.getBytes(UTF_8).length - name.getBytes(UTF_8).length;
      while (room > 60) {
        String sub = "d" + "s".repeat(Math.min(200, room - 40));
        path.append(sub).append('/');
        room -= sub.length() + 1;
      }
      String key = path + name;
      assertThat((folder + key).getBytes(UTF_8).length).isLessThanOrEqualTo(MAX_KEY_BYTES);
      return key;
    }

    /** A key segment of hostile and plain characters; never empty, '.', '..' or with a slash. */
    private String segment(int parts) {
      StringBuilder segment = new StringBuilder("s");
      for (int i = 0; i < parts; i++) {
        segment.append(random.nextInt(3) == 0 ? HOSTILE[random.nextInt(HOSTILE.length)] : (char) ('a' + random.nextInt(26)));
      }
      String text = segment.toString();
      while (text.getBytes(UTF_8).length > 120) {
        text = text.substring(0, text.offsetByCodePoints(0, text.codePointCount(0, text.length()) - 1));
      }
      return text;
    }

    private String randomText(int parts) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < parts; i++) {
        text.append(HOSTILE[random.nextInt(HOSTILE.length)]);
      }
      if (random.nextInt(4) == 0) {
        text.append('\ud800'); // a lone surrogate in a field nobody uses: fine
      }
      return text.toString();
    }

    private static List<String> lookAlikes(String key) {
      return List.of(Normalizer.normalize(key, Normalizer.Form.NFC), Normalizer.normalize(key, Normalizer.Form.NFD),
          key.replace("\r\n", "\n").replace('\r', '\n'), key.replace('+', ' '), key.replace("%20", " "),
          key.replaceAll("[\\u0000-\\u001f\\u007f-\\u009f]", ""), key.replaceAll("[\\ufffe\\uffff]", "\ufffd"));
    }

    /** What S3Proxy can store: valid UTF-8 without NUL, no empty or dot segments, segments up to 255 bytes. */
    private static boolean storable(String key) {
      if (key.getBytes(UTF_8).length > MAX_KEY_BYTES || key.indexOf('\u0000') >= 0) {
        return false;
      }
      if (io.statesweep.layout.Keys.firstLoneSurrogate(key) >= 0) {
        return false;
      }
      for (String segment : key.split("/", -1)) {
        if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.getBytes(UTF_8).length > 255) {
          return false;
        }
      }
      return true;
    }
  }
}
