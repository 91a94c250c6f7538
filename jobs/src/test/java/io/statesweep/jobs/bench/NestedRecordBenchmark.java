package io.statesweep.jobs.bench;

import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.DeleteThrottle;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.ForwardingRecordStore;
import io.statesweep.execute.ObjectStoreRecords;
import io.statesweep.execute.PlannedRecord;
import io.statesweep.execute.RecordExecutor;
import io.statesweep.execute.RecordStore;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.Layout;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Memory of executing one due project record above many nested records' keys, on the synthetic S3
 * endpoint: the project {@code projects/p000000/} holds {@code nested} document records of 10 keys each
 * (the synthetic archive, all in one project) and 10 files of its own (at its top, in kind-like
 * folders without a state file, and deep in a folder of its own), written beside them.
 *
 * <p>For each size it runs (a) the listing execution held before (the whole folder listed and kept in
 * memory, then owners found; verification only, nothing deleted) and (b) {@link RecordExecutor} on the
 * record (verify, delete its 10 files, then its state file). The heap is sampled after a full collection
 * every 50,000 listed keys and at the end of the verification: the most used, less what was used before,
 * is what the record's verification held. Prints requests by kind and that heap; not a test.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify -Dscale.args="nested 10000,100000 0"} (nested
 * records, 10 keys each; latency in ms per request).
 */
public final class NestedRecordBenchmark {
  private static final String BUCKET = "bench";
  private static final String PREFIX = "cogram/";
  private static final String PROJECT = PREFIX + "projects/p000000/";
  private static final String STATE = PROJECT + "state.json";
  private static final List<String> OWN = List.of("brief.pdf", "attachments/a0.pdf", "attachments/a1.pdf",
      "attachments/2024/site/p0.jpg", "attachments/2024/site/p1.jpg", "photos/album/x0.jpg", "photos/album/x1.jpg",
      "zz/notes/deep/n0.txt", "zz/notes/deep/n1.txt", "zz/notes/deep/n2.txt");
  private static final KeyClassifier CLASSIFIER = Layout.builtIn("cogram").classifier(ExportPrefix.of(PREFIX));
  private static final int SAMPLE_EVERY = 50_000;

  private NestedRecordBenchmark() {}

  public static void main(String[] args) throws Exception {
    // The synthetic endpoint's placeholders, as ScaleBenchmark sets them.
    System.setProperty("aws.accessKeyId", "synthetic");
    System.setProperty("aws.secretAccessKey", "synthetic");
    System.setProperty("aws.region", "us-east-1");
    String[] sizes = (args.length > 0 ? args[0] : "10000,100000").split(",");
    int latency = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    List<String> lines = new ArrayList<>();
    lines.add("| run | nested keys | own files | LIST | GET | DeleteObjects | keys listed | heap held MB | s | outcome |");
    lines.add("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (String size : sizes) {
      long records = Long.parseLong(size.trim());
      lines.add(run(records, latency, true));
      lines.add(run(records, latency, false));
    }
    lines.forEach(System.out::println);
  }

  private static String run(long records, int latency, boolean old) throws Exception {
    SyntheticArchive archive = new SyntheticArchive(PREFIX, records, 9, records, false, 10);
    try (SyntheticS3Server server = new SyntheticS3Server(BUCKET, archive, Duration.ofMillis(latency), 0)) {
      Instant stateWritten = Instant.parse("2025-12-01T00:00:00Z");
      StringBuilder document = new StringBuilder("{\"status\": \"deleted\", \"delete\": true, \"files\": [");
      for (int i = 0; i < OWN.size(); i++) {
        server.put(PROJECT + OWN.get(i), ("own file " + i + "\n").getBytes(StandardCharsets.UTF_8),
            stateWritten.minusSeconds(7200));
        document.append(i == 0 ? "\"" : ", \"").append(PROJECT + OWN.get(i)).append('"');
      }
      server.put(STATE, document.append("], \"delete_files\": []}").toString().getBytes(StandardCharsets.UTF_8),
          stateWritten);
      S3ObjectStore objects = new S3ObjectStore(S3Clients.build(S3Settings.defaults()
          .withEndpoint(server.endpoint(), true)), BUCKET);
      PlannedRecord plan = plan(objects);
      server.resetCounts();
      Map<String, Long> before = objects.requestCounts().snapshot();
      Sampled store = new Sampled(new ObjectStoreRecords(objects, 1 << 20));
      long baseline = usedAfterGc();
      long started = System.nanoTime();
      String outcome;
      if (old) {
        int owned = wholeFolderListing(store, STATE, PROJECT);
        store.sample();
        outcome = "verified only: " + owned + " own files";
      } else {
        ExecutionHook sampleBeforeDelete = new ExecutionHook() {
          @Override
          public void beforeDelete(List<String> keys) {
            store.sample();
          }
        };
        try (RecordExecutor executor = new RecordExecutor(store, new io.statesweep.plan.Planner(CLASSIFIER,
            java.time.Duration.ZERO), new io.statesweep.state.StateParser(List.of()), 1000, ConditionalDeletes.ON,
            DeleteThrottle.none(), sampleBeforeDelete, Clock.systemUTC())) {
          ExecutionOutcome result = executor.execute(List.of(plan)).get(0);
          outcome = result.outcome() + ": " + result.message();
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      Map<String, Long> requests = delta(before, objects.requestCounts().snapshot());
      return String.format("| %s | %,d | %d | %,d | %,d | %,d | %,d | %.1f | %.1f | %s |",
          old ? "(a) whole folder held (before)" : "(b) RecordExecutor (now)", archive.keys(), OWN.size(),
          requests.getOrDefault("ListObjectsV2.calls", 0L), requests.getOrDefault("GetObject.calls", 0L),
          requests.getOrDefault("DeleteObjects.calls", 0L), store.keysListed,
          (store.mostUsed - baseline) / 1e6, seconds, outcome);
    }
  }

  private static PlannedRecord plan(ObjectStore objects) {
    List<PlannedDelete> deletes = new ArrayList<>();
    for (String name : OWN) {
      deletes.add(new PlannedDelete(objects.listedObject(PROJECT + name), DeleteRole.FILE));
    }
    StoredObject state = objects.listedObject(STATE);
    deletes.add(new PlannedDelete(state, DeleteRole.STATE_FILE));
    return new PlannedRecord(Action.DELETE_RECORD, state, deletes);
  }

  private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> delta = new TreeMap<>();
    after.forEach((key, value) -> delta.put(key, value - before.getOrDefault(key, 0L)));
    return delta;
  }

  static long usedAfterGc() {
    for (int i = 0; i < 2; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * What execution did before, as it was: the whole folder listed and held, nested state files found,
   * each listed key given its closest existing owner. Returns the number of own files.
   */
  private static int wholeFolderListing(RecordStore store, String stateFileKey, String folder) {
    List<StoredObject> listed = new ArrayList<>();
    Set<String> listedKeys = new HashSet<>();
    Set<String> boundaries = new HashSet<>();
    Iterator<StoredObject> objects = store.list(folder, null);
    while (objects.hasNext()) {
      StoredObject object = objects.next();
      listed.add(object);
      listedKeys.add(object.key());
      if (Keys.isStateFileName(object.key()) && CLASSIFIER.isRecordBoundary(object.key())) {
        boundaries.add(object.key());
      }
    }
    Map<String, StoredObject> current = new LinkedHashMap<>();
    Map<String, String> otherOwners = new HashMap<>();
    for (StoredObject object : listed) {
      if (boundaries.contains(object.key())) {
        continue;
      }
      OwnerCandidate closest = null;
      for (OwnerCandidate candidate : CLASSIFIER.ownerCandidates(object.key())) {
        if (boundaries.contains(candidate.stateFileKey()) && (closest == null || candidate.depth() > closest.depth())) {
          closest = candidate;
        }
      }
      String owner = closest == null ? null : closest.stateFileKey();
      if (stateFileKey.equals(owner)) {
        current.put(object.key(), object);
      } else if (owner != null) {
        otherOwners.put(object.key(), owner);
      }
    }
    // Everything is still held here, as it was until the record's verification ended.
    ((Sampled) store).sample();
    java.lang.ref.Reference.reachabilityFence(listed);
    java.lang.ref.Reference.reachabilityFence(listedKeys);
    java.lang.ref.Reference.reachabilityFence(otherOwners);
    return current.size();
  }

  /** The store, sampling the heap after a full collection every {@link #SAMPLE_EVERY} listed keys. */
  private static final class Sampled extends ForwardingRecordStore {
    long keysListed;
    long mostUsed;

    Sampled(RecordStore store) {
      super(store);
    }

    void sample() {
      mostUsed = Math.max(mostUsed, usedAfterGc());
    }

    @Override
    public Iterator<StoredObject> list(String folder, String startAfter) {
      Iterator<StoredObject> objects = super.list(folder, startAfter);
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return objects.hasNext();
        }

        @Override
        public StoredObject next() {
          StoredObject object = objects.next();
          if (++keysListed % SAMPLE_EVERY == 0) {
            sample();
          }
          return object;
        }
      };
    }
  }
}
