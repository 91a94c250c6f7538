package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.Classification;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.Layout;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.ListedKey;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.plan.RecordInput;
import io.statesweep.plan.RecordPlan;
import io.statesweep.plan.StoredObject;
import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.StateCheck;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateDocument;
import io.statesweep.state.StateParser;
import io.statesweep.s3.ConditionalRead;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Randomized invariants of planning and execution (spec sections 2 and 3), over thousands of random
 * small archives and random interleavings of exporter writes with cleanup runs: records coming back
 * (files written again, then the state file), state files rewritten, files added or removed, new
 * nested records, keys rewritten between verification and delete, per-key delete errors, and plan
 * rows tampered with. Every object the executor is about to remove is checked at that instant:
 *
 * <ul>
 *   <li>a key goes only when a planned record names it, every safety rule allows it against the
 *       bucket as it is then, and (for a plan nobody tampered with) the planned version of its state
 *       file lists it in {@code files} or {@code delete_files};
 *   <li>a live record loses only its {@code delete_files}, never a key that is also in {@code files};
 *   <li>no file newer than its record's state file goes (a record coming back), and no object
 *       version written after the plan goes (conditional deletes);
 *   <li>a state file goes only when none of the keys it lists exists any more.
 * </ul>
 *
 * On an unchanged bucket the plan's counts equal what execution deletes. A failure names its seed;
 * {@code -Dinvariants.seed=N} replays one archive, {@code -Dinvariants.archives=N} runs more.
 */
class ExecutionInvariantsTest {
  private static final KeyClassifier CLASSIFIER = Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram/"));
  private static final StateParser PARSER = new StateParser(List.of());
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
  private static final String PREFIX = "cogram/";
  private static final Instant WRITTEN = Instant.parse("2026-06-01T03:00:00Z");
  private static final Duration ROUND = Duration.ofDays(2);
  private static final int ARCHIVES = Integer.getInteger("invariants.archives", 3000);
  private static final int ROUNDS = 3;

  @Test
  void nothingLiveIsDeletedOverRandomArchivesExporterWritesAndCleanupRuns() {
    Long replay = Long.getLong("invariants.seed");
    Tally tally = new Tally();
    long first = replay != null ? replay : 1;
    long last = replay != null ? replay : ARCHIVES;
    for (long seed = first; seed <= last; seed++) {
      try {
        new Scenario(seed, tally).run();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + " (replay with -Dinvariants.seed=" + seed + "): " + e.getMessage(),
            e);
      }
    }
    System.out.println("execution invariants: " + (last - first + 1) + " archives, " + tally);
    if (replay == null) {
      // The archives must exercise what the invariants guard: deletes of every kind and every refusal.
      assertThat(tally.keysRemoved).isGreaterThan(1000);
      assertThat(tally.unchangedRuns).isGreaterThan(100);
      assertThat(tally.outcomes.keySet()).contains(Outcome.DELETED, Outcome.REMOVED_FILES_DELETED,
          Outcome.STATE_CHANGED, Outcome.ALREADY_DELETED, Outcome.KEPT_NEWER_FILES, Outcome.KEPT_REFUSED,
          Outcome.CHANGED_DURING_DELETE, Outcome.CAME_BACK_DURING_DELETE);
      assertThat(tally.lostAndNamed).isGreaterThan(10);
      assertThat(tally.tamperedRefused.keySet()).as("tamperings refused").containsExactlyInAnyOrder(
          Scenario.Tampering.values());
      assertThat(tally.actions.keySet()).contains(Action.DELETE_RECORD, Action.DELETE_REMOVED_FILES, Action.KEEP,
          Action.KEPT_NEWER_FILES, Action.KEPT_REFUSED);
    }
  }

  /** What the archives did, over all of them. */
  private static final class Tally {
    final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
    final Map<Action, Integer> actions = new EnumMap<>(Action.class);
    final Map<Scenario.Tampering, Integer> tampered = new java.util.TreeMap<>();
    final Map<Scenario.Tampering, Integer> tamperedRefused = new java.util.TreeMap<>();
    long keysRemoved;
    long unchangedRuns;
    long lostAndNamed;

    @Override
    public String toString() {
      return keysRemoved + " keys removed, " + unchangedRuns + " runs on an unchanged bucket; plans " + actions
          + "; outcomes " + outcomes + "; tampered rows " + tampered + ", refused " + tamperedRefused + "; files lost to a record coming back"
          + " during its deletion, each named: " + lostAndNamed;
    }
  }

  /** A record's place and the files the exporter wrote for it. */
  private record Place(String stateKey, String folder, List<String> files) {}

  /** One random archive, and cleanup runs interleaved with the exporter's writes. */
  private static final class Scenario {
    private final Random random;
    private final Tally tally;
    private final FakeRecordStore bucket = new FakeRecordStore();
    /** What each state file version says, by ETag (the store holds no content). */
    private final Map<String, StateDocument> documents = new HashMap<>();
    private final List<Place> places = new ArrayList<>();
    /** Orphan folders (no state file) that a nested record may appear in later. */
    private final List<String> orphanFolders = new ArrayList<>();
    private Instant clock = WRITTEN;

    Scenario(long seed, Tally tally) {
      this.random = new Random(seed);
      this.tally = tally;
    }

    void run() {
      generate();
      for (int round = 0; round < ROUNDS; round++) {
        boolean quiet = random.nextInt(4) == 0;
        if (!quiet) {
          exporterWrites();
        }
        clock = clock.plus(ROUND);
        Instant now = clock;
        Planner planner = new Planner(CLASSIFIER, Duration.ofDays(random.nextInt(3)));
        Map<String, Planned> plans = plan(planner, now);
        boolean untouched = quiet && random.nextBoolean();
        if (!untouched) {
          exporterWrites();
          tamper(plans);
          injectKeyErrors(plans);
        }
        clock = clock.plusSeconds(60);
        execute(plans, untouched, planner);
        bucket.clearFailures();
      }
    }

    // The archive.

    private void generate() {
      int projects = 1 + random.nextInt(3);
      for (int p = 0; p < projects; p++) {
        String project = PREFIX + "projects/p" + p + "/";
        record(project + "state.json", project, List.of(project + "brief.pdf", project + "notes/n.txt"));
        for (int d = 0; d < random.nextInt(4); d++) {
          String folder = project + "documents/d" + d + "/";
          List<String> files = new ArrayList<>();
          for (int f = 0; f < random.nextInt(4); f++) {
            files.add(folder + "f" + f + ".bin");
          }
          if (random.nextInt(4) == 0) {
            files.add(folder + "attachments/state.json"); // a file of the record, not a state file
          }
          record(folder + "state.json", folder, files);
        }
        if (random.nextBoolean()) {
          String orphan = project + "meetings/m" + random.nextInt(9) + "/";
          orphanFolders.add(orphan);
          put(orphan + "minutes.pdf", before());
        }
        if (random.nextBoolean()) {
          String messages = project + "chat/c0/messages/";
          for (int m = 0; m < 1 + random.nextInt(3); m++) {
            record(messages + "m" + m + ".state.json", null, List.of(messages + "m" + m + ".json"));
          }
        }
        if (random.nextInt(5) == 0) {
          // A kind this layout does not know: skipped, yet a boundary no other record may reach into.
          String folder = project + "holograms/h0/";
          put(folder + "h.bin", before());
          put(folder + "state.json", WRITTEN);
        }
      }
      record(PREFIX + "organization/agents/a0.state.json", null, List.of(PREFIX + "organization/agents/a0.json"));
      put(PREFIX + "_cogram/manifest.json", before());
      put("elsewhere/outside.bin", before());
      for (Place place : places) {
        for (String file : place.files()) {
          if (random.nextInt(8) != 0) {
            put(file, random.nextInt(12) == 0 ? WRITTEN.plusSeconds(1 + random.nextInt(60)) : before());
          }
        }
        writeState(place, document(place, random.nextInt(3) == 0 ? Mark.LIVE : Mark.DUE), WRITTEN);
      }
    }

    private void record(String stateKey, String folder, List<String> files) {
      places.add(new Place(stateKey, folder, files));
    }

    private enum Mark { LIVE, DUE }

    /** A state document for a place: its files, some removed files, and now and then a key it must not list. */
    private StateDocument document(Place place, Mark mark) {
      List<String> files = new ArrayList<>();
      List<String> removed = new ArrayList<>();
      for (String file : place.files()) {
        int roll = random.nextInt(10);
        if (roll < 7) {
          files.add(file);
        } else if (roll < 9) {
          removed.add(file);
        } else {
          files.add(file);
          removed.add(file); // in both: a live record keeps it
        }
      }
      if (random.nextInt(6) == 0) {
        files.add(place.folder() == null ? place.stateKey().replace(".state.json", "-missing.json")
            : place.folder() + "never-written.bin");
      }
      if (random.nextInt(7) == 0) {
        (random.nextBoolean() ? files : removed).add(forbiddenKey(place));
      }
      // Due: marked, or its retention ended. Live: no end, or one that later runs reach (time passes).
      boolean delete = mark == Mark.DUE && random.nextInt(4) != 0;
      Instant expiresAt;
      if (mark == Mark.DUE && !delete) {
        expiresAt = clock.minus(Duration.ofDays(random.nextInt(3)));
      } else {
        expiresAt = random.nextBoolean() ? null : clock.plus(Duration.ofDays(random.nextInt(8)));
      }
      return new StateDocument(delete, expiresAt, null, files, removed);
    }

    /** A key that no state file of {@code place} may list, of one of the kinds the safety rules name. */
    private String forbiddenKey(Place place) {
      List<String> candidates = new ArrayList<>(List.of(PREFIX + "_cogram/manifest.json", "elsewhere/outside.bin",
          PREFIX + "projects/p0/../p1/brief.pdf", PREFIX + "projects//p0/brief.pdf", "/" + PREFIX + "projects/p0/brief.pdf",
          "s3://other-bucket/" + PREFIX + "projects/p0/brief.pdf", PREFIX + "organization/agents/a0.state.json"));
      for (Place other : places) {
        if (other != place) {
          candidates.add(other.stateKey());
          candidates.addAll(other.files());
        }
      }
      candidates.addAll(orphanFolders.stream().map(folder -> folder + "minutes.pdf").toList());
      return candidates.get(random.nextInt(candidates.size()));
    }

    private Instant before() {
      return WRITTEN.minusSeconds(3600 + random.nextInt(3600));
    }

    private StoredObject put(String key, Instant lastModified) {
      return bucket.put(key, lastModified);
    }

    private void writeState(Place place, StateDocument document, Instant at) {
      StoredObject state = bucket.put(place.stateKey(), at);
      documents.put(state.etag(), document);
      bucket.describe(state, json(document));
    }

    private static String json(StateDocument document) {
      com.fasterxml.jackson.databind.node.ObjectNode node = JSON.createObjectNode();
      node.put("delete", document.delete());
      if (document.expiresAt() != null) {
        node.put("expires_at", document.expiresAt().toString());
      }
      document.files().forEach(node.putArray("files")::add);
      document.deleteFiles().forEach(node.putArray("delete_files")::add);
      return node.toString();
    }

    // The exporter between and during cleanup runs.

    private void exporterWrites() {
      for (Place place : places) {
        int roll = random.nextInt(20);
        Instant at = clock.plusSeconds(1 + random.nextInt(30));
        if (roll == 0) {
          // Comes back: files first, the state file (live) after, or not yet.
          for (String file : place.files()) {
            if (random.nextBoolean()) {
              put(file, at);
            }
          }
          if (random.nextBoolean()) {
            writeState(place, document(place, Mark.LIVE), at.plusSeconds(1));
          }
        } else if (roll == 1 && bucket.exists(place.stateKey())) {
          writeState(place, documents.get(bucket.object(place.stateKey()).etag()), at);
        } else if (roll == 2 && place.folder() != null) {
          put(place.folder() + "added-" + random.nextInt(3) + ".bin", at);
        } else if (roll == 3 && !place.files().isEmpty()) {
          bucket.remove(place.files().get(random.nextInt(place.files().size())));
        } else if (roll == 4 && bucket.exists(place.stateKey())) {
          writeState(place, document(place, Mark.DUE), at);
        }
      }
      if (!orphanFolders.isEmpty() && random.nextInt(6) == 0) {
        // A new record appears in a folder another record owned: its files are now its own.
        String folder = orphanFolders.remove(random.nextInt(orphanFolders.size()));
        Place nested = new Place(folder + "state.json", folder, List.of(folder + "minutes.pdf"));
        places.add(nested);
        writeState(nested, document(nested, Mark.LIVE), clock.plusSeconds(5));
      }
    }

    // Planning, as the Spark joins do it: each listed key with its version and its closest owner.

    /**
     * A record's plan as execution gets it, the document it was planned on, and how its row was changed
     * (null: not at all).
     */
    private record Planned(PlannedRecord record, StateDocument document, Tampering tampering) {}

    /** What someone who can write the plan table may do to a row. */
    private enum Tampering {
      /** Adds any key of the bucket (or a forbidden one) to a row. */
      EXTRA_KEY,
      /** Turns a live (or not yet due) record's row into delete_record: its files at their current ETags. */
      LIVE_TO_DELETE_RECORD,
      /** Adds to a live record's removed files a key its state file also lists in files. */
      REMOVED_FILE_ALSO_IN_FILES
    }

    /** Files uploaded again (same ETag) during an execute, by key: the state file of the record coming back. */
    private final Map<String, String> comingBack = new HashMap<>();
    /** Files deleted although their record came back during the execute: the key, its state file. */
    private final Map<String, String> lostToComingBack = new java.util.LinkedHashMap<>();

    /** Live and not-yet-due records of the last plan, by state file (no row: nothing to delete). */
    private final Map<String, Planned> kept = new TreeMap<>();

    private Map<String, Planned> plan(Planner planner, Instant now) {
      Map<String, Planned> plans = new TreeMap<>();
      kept.clear();
      for (String key : bucket.keys()) {
        if (!Keys.isStateFileName(key) || !(CLASSIFIER.classify(key) instanceof Classification.StateFile stateFile)) {
          continue;
        }
        StoredObject stateObject = bucket.object(key);
        StateDocument document = documents.get(stateObject.etag());
        Set<String> listed = new LinkedHashSet<>(document.files());
        listed.addAll(document.deleteFiles());
        Map<String, ListedKey> listedKeys = new HashMap<>();
        for (String listedKey : listed) {
          listedKeys.put(listedKey, new ListedKey(listedKey, bucket.object(listedKey), owner(listedKey)));
        }
        RecordPlan plan = planner.plan(new RecordInput(stateFile, stateObject, new ParsedState(document, null),
            listedKeys, newestOwned(key)), now);
        tally.actions.merge(plan.action(), 1, Integer::sum);
        if (plan.action() == Action.DELETE_RECORD || plan.action() == Action.DELETE_REMOVED_FILES) {
          plans.put(key, new Planned(new PlannedRecord(plan.action(), stateObject, plan.deletes()), document,
              null));
        } else if (plan.action() == Action.KEEP || plan.action() == Action.NOT_YET_DUE) {
          kept.put(key, new Planned(null, document, null));
        }
      }
      return plans;
    }

    /** The closest existing record boundary above {@code key}, or null. */
    private String owner(String key) {
      OwnerCandidate closest = null;
      for (OwnerCandidate candidate : CLASSIFIER.ownerCandidates(key)) {
        if (bucket.exists(candidate.stateFileKey()) && CLASSIFIER.isRecordBoundary(candidate.stateFileKey())
            && (closest == null || candidate.depth() > closest.depth())) {
          closest = candidate;
        }
      }
      return closest == null ? null : closest.stateFileKey();
    }

    private StoredObject newestOwned(String stateKey) {
      StoredObject newest = null;
      for (String key : bucket.keys()) {
        boolean boundary = Keys.isStateFileName(key) && CLASSIFIER.isRecordBoundary(key);
        StoredObject object = bucket.object(key);
        if (!boundary && stateKey.equals(owner(key))
            && (newest == null || object.lastModified().isAfter(newest.lastModified()))) {
          newest = object;
        }
      }
      return newest;
    }

    /** Someone who can write the plan table changes rows: each change must be refused, nothing deleted for it. */
    private void tamper(Map<String, Planned> plans) {
      List<String> keys = new ArrayList<>(bucket.keys());
      keys.addAll(List.of(PREFIX + "projects/p0/../p1/brief.pdf", "elsewhere/outside.bin", PREFIX + "_cogram/x"));
      for (Map.Entry<String, Planned> entry : plans.entrySet()) {
        Planned planned = entry.getValue();
        PlannedRecord record = planned.record();
        if (random.nextInt(8) == 0) {
          String key = keys.get(random.nextInt(keys.size()));
          entry.setValue(new Planned(withExtraKey(record, key), planned.document(), Tampering.EXTRA_KEY));
        } else if (record.action() == Action.DELETE_REMOVED_FILES && random.nextInt(4) == 0) {
          List<String> alsoInFiles = planned.document().files().stream().filter(bucket::exists).toList();
          if (!alsoInFiles.isEmpty()) {
            String key = alsoInFiles.get(random.nextInt(alsoInFiles.size()));
            entry.setValue(new Planned(withExtraKey(record, key), planned.document(),
                Tampering.REMOVED_FILE_ALSO_IN_FILES));
          }
        }
      }
      for (Map.Entry<String, Planned> entry : kept.entrySet()) {
        if (random.nextInt(4) != 0 || !bucket.exists(entry.getKey())) {
          continue;
        }
        // The row names the state file as it is now (the exporter may have rewritten it since the plan).
        StoredObject state = bucket.object(entry.getKey());
        StateDocument document = documents.get(state.etag());
        List<PlannedDelete> deletes = new ArrayList<>();
        for (String key : new LinkedHashSet<>(document.files())) {
          if (bucket.exists(key) && !key.equals(entry.getKey())) {
            deletes.add(new PlannedDelete(bucket.object(key), DeleteRole.FILE));
          }
        }
        deletes.add(new PlannedDelete(state, DeleteRole.STATE_FILE));
        plans.put(entry.getKey(), new Planned(new PlannedRecord(Action.DELETE_RECORD, state, deletes), document,
            Tampering.LIVE_TO_DELETE_RECORD));
      }
    }

    private PlannedRecord withExtraKey(PlannedRecord record, String key) {
      StoredObject object = bucket.object(key) != null ? bucket.object(key)
          : new StoredObject(key, "etag-none", WRITTEN, 1);
      List<PlannedDelete> deletes = new ArrayList<>(record.files());
      deletes.add(new PlannedDelete(object, record.action() == Action.DELETE_RECORD ? DeleteRole.FILE
          : DeleteRole.REMOVED_FILE));
      record.deletes().stream().filter(delete -> delete.role() == DeleteRole.STATE_FILE).forEach(deletes::add);
      return new PlannedRecord(record.action(), record.stateFile(), deletes);
    }

    private void injectKeyErrors(Map<String, Planned> plans) {
      for (Planned planned : plans.values()) {
        if (random.nextInt(10) == 0 && !planned.record().deletes().isEmpty()) {
          List<PlannedDelete> deletes = planned.record().deletes();
          bucket.failKey(deletes.get(random.nextInt(deletes.size())).key(), "InternalError",
              "We encountered an internal error. Please try again.");
        }
      }
    }

    // Execution, watched at every object it removes.

    private void execute(Map<String, Planned> plans, boolean untouched, Planner planner) {
      List<PlannedRecord> window = plans.values().stream().map(Planned::record).toList();
      Watched store = new Watched(plans);
      ExecutionHook exporterDuringDelete = new ExecutionHook() {
        @Override
        public void beforeDelete(List<String> keys) {
          if (untouched || keys.isEmpty() || random.nextInt(3) != 0) {
            return;
          }
          String key = keys.get(random.nextInt(keys.size()));
          if (!bucket.exists(key) || Keys.isStateFileName(key) && CLASSIFIER.isRecordBoundary(key)) {
            return;
          }
          Instant at = bucket.object(key).lastModified().plusSeconds(1 + random.nextInt(100));
          if (random.nextBoolean()) {
            bucket.rewrite(key, at);
            return;
          }
          // A record comes back between its verification and its deletes: the exporter uploads its file again
          // byte for byte (the same ETag: a conditional delete cannot tell), then rewrites its state file. The
          // file is lost; the executor must name it (came_back_during_delete).
          Place place = places.stream().filter(p -> p.files().contains(key)).findFirst().orElse(null);
          if (place == null || !bucket.exists(place.stateKey())) {
            return;
          }
          Instant now = clock.plusSeconds(1 + random.nextInt(30));
          bucket.reupload(key, now);
          comingBack.put(key, place.stateKey());
          writeState(place, document(place, Mark.LIVE), now.plusSeconds(1));
        }
      };
      Set<String> before = bucket.keys();
      long planned = 0;
      long plannedRecords = 0;
      for (PlannedRecord record : window) {
        planned += record.deletes().stream().filter(delete -> bucket.exists(delete.key())).count();
        plannedRecords += record.action() == Action.DELETE_RECORD ? 1 : 0;
      }
      if (!untouched && random.nextInt(5) == 0) {
        // An earlier attempt that stopped after some records: this run finds them done.
        List<PlannedRecord> some = window.stream().filter(record -> random.nextBoolean()).toList();
        try (RecordExecutor earlier = new RecordExecutor(store, planner, PARSER, 1000, ConditionalDeletes.ON,
            DeleteThrottle.none(), ExecutionHook.NONE, Clock.fixed(clock, ZoneOffset.UTC))) {
          earlier.execute(some);
        }
        before = bucket.keys();
      }
      List<ExecutionOutcome> outcomes;
      try (RecordExecutor executor = new RecordExecutor(store, planner, PARSER, 1 + random.nextInt(5),
          ConditionalDeletes.ON, DeleteThrottle.none(), exporterDuringDelete, Clock.fixed(clock, ZoneOffset.UTC))) {
        outcomes = executor.execute(window);
      }
      outcomes.forEach(outcome -> tally.outcomes.merge(outcome.outcome(), 1, Integer::sum));
      // Every file lost to a record that came back during its deletion is named by its record's outcome.
      for (Map.Entry<String, String> entry : lostToComingBack.entrySet()) {
        String lost = entry.getKey();
        String stateKey = entry.getValue();
        if (bucket.exists(lost)) {
          continue; // its delete failed: not lost
        }
        assertThat(outcomes).as("the outcome that names %s, lost while %s came back", lost, stateKey)
            .anySatisfy(outcome -> {
              assertThat(outcome.stateFileKey()).isEqualTo(stateKey);
              assertThat(outcome.outcome()).isEqualTo(Outcome.CAME_BACK_DURING_DELETE);
              assertThat(outcome.deletedKeys()).contains(lost);
            });
        tally.lostAndNamed++;
      }
      lostToComingBack.clear();
      comingBack.clear();
      if (Boolean.getBoolean("invariants.debug")) {
        outcomes.forEach(outcome -> System.out.println("outcome " + outcome));
      }
      for (int i = 0; i < window.size(); i++) {
        Tampering tampering = plans.get(window.get(i).stateFileKey()).tampering();
        ExecutionOutcome outcome = outcomes.get(i);
        if (tampering != null) {
          tally.tampered.merge(tampering, 1, Integer::sum);
          boolean liveNow = bucket.exists(outcome.stateFileKey())
              && bucket.object(outcome.stateFileKey()).equals(window.get(i).stateFile())
              && live(plans.get(outcome.stateFileKey()).document());
          if (outcome.outcome() == Outcome.KEPT_REFUSED) {
            tally.tamperedRefused.merge(tampering, 1, Integer::sum);
          }
          if (tampering != Tampering.EXTRA_KEY && liveNow) {
            // A row that deletes more than the planner would now (for a record still live) deletes nothing.
            assertThat(outcome.keysDeleted()).as("%s row of %s: %s", tampering, outcome.stateFileKey(), outcome)
                .isZero();
            assertThat(outcome.outcome()).as("%s row of %s", tampering, outcome.stateFileKey())
                .isIn(Outcome.KEPT_REFUSED, Outcome.STATE_CHANGED, Outcome.ALREADY_DELETED, Outcome.KEPT_NEWER_FILES,
                    Outcome.FAILED);
          }
        }
      }
      long removed = before.stream().filter(key -> !bucket.exists(key)).count();
      tally.keysRemoved += removed;
      assertThat(removed).as("keys removed = keys the executor reports deleted: %s; removed %s; plans %s", outcomes,
              before.stream().filter(key -> !bucket.exists(key)).toList(), window)
          .isEqualTo(outcomes.stream().mapToLong(ExecutionOutcome::keysDeleted).sum());
      if (untouched) {
        tally.unchangedRuns++;
        // A dry run's counts are what a real run deletes, on a bucket nobody changes.
        assertThat(removed).as("keys removed on an unchanged bucket: %s of %s", outcomes, window).isEqualTo(planned);
        assertThat(outcomes.stream().filter(o -> o.outcome() == Outcome.DELETED).count())
            .as("records deleted on an unchanged bucket").isEqualTo(plannedRecords);
        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.outcome())
            .isIn(Outcome.DELETED, Outcome.REMOVED_FILES_DELETED));
      }
    }

    /** Live: not marked, and its retention (if any) not yet over at execution. */
    private boolean live(StateDocument document) {
      return !document.delete() && (document.expiresAt() == null || clock.isBefore(document.expiresAt()));
    }

    /** The bucket, with every object the executor is about to remove checked against the invariants. */
    private final class Watched implements RecordStore {
      private final Map<String, Planned> plans;
      private final Map<String, List<Planned>> byKey = new HashMap<>();

      Watched(Map<String, Planned> plans) {
        this.plans = plans;
        for (Planned planned : plans.values()) {
          for (PlannedDelete delete : planned.record().deletes()) {
            byKey.computeIfAbsent(delete.key(), key -> new ArrayList<>()).add(planned);
          }
        }
      }

      @Override
      public StateCheck checkUnchanged(String key, String etag) {
        return bucket.checkUnchanged(key, etag);
      }

      @Override
      public ConditionalRead readState(String key, String etag) {
        return bucket.readState(key, etag);
      }

      @Override
      public Iterator<StoredObject> list(String folder, String startAfter) {
        return bucket.list(folder, startAfter);
      }

      @Override
      public StoredObject listedObject(String key) {
        return bucket.listedObject(key);
      }

      @Override
      public DeleteResult delete(List<DeleteTarget> targets) {
        for (DeleteTarget target : targets) {
          StoredObject object = bucket.object(target.key());
          boolean removes = object != null && (target.etag() == null || target.etag().equals(object.etag()));
          if (removes) {
            check(object);
          }
        }
        return bucket.delete(targets);
      }

      private void check(StoredObject object) {
        String key = object.key();
        Planned planned = plans.get(key);
        if (planned != null) {
          checkStateFile(planned);
          return;
        }
        List<Planned> naming = byKey.getOrDefault(key, List.of());
        if (Boolean.getBoolean("invariants.debug")) {
          System.out.println("at " + clock + " removing " + key + " named by " + naming);
        }
        assertThat(naming).as("%s is removed but no plan names it", key).isNotEmpty();
        // A tampered row may name another record's key too: one of the rows that name it must allow it.
        AssertionError first = null;
        for (Planned candidate : naming) {
          try {
            checkFile(object, candidate);
            return;
          } catch (AssertionError e) {
            first = first == null ? e : first;
          }
        }
        throw first;
      }

      private void checkFile(StoredObject object, Planned planned) {
        String key = object.key();
        PlannedRecord record = planned.record();
        Classification.StateFile stateFile = (Classification.StateFile) CLASSIFIER.classify(record.stateFileKey());
        assertThat(CLASSIFIER.listingRefusal(stateFile, key)).as("safety rule for %s of %s", key,
            record.stateFileKey()).isNull();
        assertThat(owner(key)).as("owner of %s when it is removed", key).isEqualTo(record.stateFileKey());
        if (comingBack.containsKey(key) || comingBack.containsValue(record.stateFileKey())) {
          // Its record came back after its verification (a file uploaded again with the same ETag, then the
          // state file): the window no conditional delete closes. The file is lost, and must be named.
          lostToComingBack.put(key, record.stateFileKey());
          return;
        }
        // Whatever the row says: the state file's version as it is now decides (a row only narrows).
        StateDocument document = planned.document();
        assertThat(bucket.object(record.stateFileKey())).as("state file of %s when %s is removed",
            record.stateFileKey(), key).isEqualTo(record.stateFile());
        if (live(document)) {
          assertThat(document.deleteFiles()).as("a live record loses only its delete_files").contains(key);
          assertThat(document.files()).as("a live record keeps a key that is also in files").doesNotContain(key);
        } else {
          assertThat(List.of(document.files(), document.deleteFiles())).as("the state file lists %s", key)
              .anySatisfy(keys -> assertThat(keys).contains(key));
        }
        if (!document.deleteFiles().contains(key) || document.files().contains(key)) {
          assertThat(object.lastModified()).as("%s is newer than its state file: the record is coming back", key)
              .isBeforeOrEqualTo(record.stateFile().lastModified());
        }
        assertThat(record.files().stream().filter(delete -> delete.key().equals(key)).findFirst().orElseThrow()
            .object().etag()).as("only the version planned goes: %s", key).isEqualTo(object.etag());
      }

      private void checkStateFile(Planned planned) {
        PlannedRecord record = planned.record();
        assertThat(record.action()).as("only a due record's state file goes").isEqualTo(Action.DELETE_RECORD);
        assertThat(live(planned.document())).as("%s is live when its state file goes", record.stateFileKey()).isFalse();
        Set<String> listedKeys = new LinkedHashSet<>(planned.document().files());
        listedKeys.addAll(planned.document().deleteFiles());
        for (String listed : listedKeys) {
          boolean refusedAtPlan = !listed.startsWith(PREFIX) || Keys.shapeProblem(listed) != null;
          if (!refusedAtPlan && !listed.equals(record.stateFileKey())) {
            assertThat(bucket.exists(listed)).as("%s lists %s, which still exists, when the state file goes",
                record.stateFileKey(), listed).isFalse();
          }
        }
      }
    }
  }
}
