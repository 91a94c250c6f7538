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
import io.statesweep.store.StoredObject;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateDocument;
import io.statesweep.state.StateParser;
import io.statesweep.spark.rows.DeleteRow;
import io.statesweep.spark.rows.PlanRow;
import io.statesweep.spark.rows.PlanRows;
import io.statesweep.spark.rows.StateFileRow;
import io.statesweep.spark.rows.StateFileRows;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Randomized invariants of planning and execution (README, "Actions (one per record)"), over thousands of random
 * small archives and random interleavings of exporter writes with cleanup runs: records coming back
 * (files written again, then the state file), state files rewritten, files added or removed, new
 * nested records, keys rewritten between verification and delete, per-key delete errors, plan rows
 * tampered with, and every column of the rows of both tables that execution and incremental plans read
 * ({@code deletion_plan}, {@code state_files}) changed, nulls included ({@link HostileRows}), each row
 * read as the job reads it ({@code PlanRows}, {@code StateFileRows}). Every object the executor is about
 * to remove is checked at that instant:
 *
 * <ul>
 *   <li>a key goes only when a planned record names it, every safety rule allows it against the
 *       bucket as it is then, and (for a plan nobody tampered with) the planned version of its state
 *       file lists it in {@code files} or {@code delete_files};
 *   <li>a live record loses only its {@code delete_files}, never a key that is also in {@code files};
 *   <li>no file newer than its record's state file goes (a record coming back), and no object
 *       version written after the plan goes (conditional deletes);
 *   <li>a state file goes only when none of the keys it lists exists any more;
 *   <li>a plan row that execution cannot take is {@code kept_refused}, and the record it names keeps
 *       everything it owns.
 * </ul>
 *
 * On an unchanged bucket every record whose rows nobody changed is executed exactly as planned, and one
 * whose rows were changed loses at most what the plan of its own document deletes. A failure names its seed;
 * {@code -Dinvariants.seed=N} replays one archive, {@code -Dinvariants.archives=N} runs more.
 *
 * <p>Each of the 3,000 random small archives (300 in the quick loop) gets three cleanup runs, among earlier attempts
 * that stopped halfway. A record coming back gets its files first, its state file after or not yet; a new nested
 * record may appear in a folder another record owned. Plan rows are tampered with as someone who can write {@code deletion_plan} would: a key of
 * the bucket (or a forbidden one) added to a row, a live record's row turned into {@code delete_record} with its
 * files at their current ETags, a key the live record lists in {@code files} added to its removed files; a row that
 * deletes more than the planner decides now deletes nothing ({@code kept_refused}). {@link HostileRows} changes any
 * column of a {@code deletion_plan} row or field of its deletes, puts another record's row under a state file's key,
 * a live record's, none or an empty one, keeps any one of a key's rows; and changes any column of a {@code
 * state_files} row, puts another record's row over one, adds a second row of a key. A refused row's record keeps all
 * it owns. The run prints how many rows of each column were changed and refused or read again.
 *
 * <p>Between a window's verification and its deletes, the exporter also brings records back (a file uploaded again with
 * the same ETag, then the state file rewritten): every file lost that way must be named by a {@code
 * came_back_during_delete} outcome (about 1,000 such files over a run, each named). A removed object must also be the
 * version planned and, for a live record, be listed only in {@code delete_files}; on an unchanged bucket the planned
 * counts equal what execution deletes.
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
  /**
   * The executors' time source, which stands still: no record goes stale and a window's records go together
   * however long the machine takes, so a seed replays the same calls of the exporter's hook, and the same
   * archives after them (FreshVerificationTest covers the time).
   */
  private static final java.util.function.LongSupplier STILL = () -> 0L;

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
      assertThat(tally.sharedListingPages).as("records verified by a shared listing").isGreaterThan(100);
      assertThat(tally.outcomes.keySet()).contains(Outcome.DELETED, Outcome.REMOVED_FILES_DELETED,
          Outcome.STATE_CHANGED, Outcome.ALREADY_DELETED, Outcome.KEPT_NEWER_FILES, Outcome.KEPT_REFUSED,
          Outcome.CHANGED_DURING_DELETE, Outcome.CAME_BACK_DURING_DELETE);
      assertThat(tally.lostAndNamed).isGreaterThan(10);
      assertThat(tally.tamperedRefused.keySet()).as("tamperings refused").containsExactlyInAnyOrder(
          Scenario.Tampering.values());
      assertThat(tally.actions.keySet()).contains(Action.DELETE_RECORD, Action.DELETE_REMOVED_FILES, Action.KEEP,
          Action.KEPT_NEWER_FILES, Action.KEPT_REFUSED);
      // Every column of both tables' rows changed; every field execution uses refused for a bad value; every
      // column an incremental plan takes read again for one (message only matters in a bad_state row, which
      // these archives' documents never make: StateFileRowsTest).
      assertThat(tally.planRows.keySet()).as("plan columns changed").containsAll(HostileRows.PLAN_COLUMNS);
      assertThat(tally.planRowsRefused.keySet()).as("plan columns refused").contains("state_file_key", "action",
          "state_etag", "state_last_modified", "deletes", "deletes[].key", "deletes[].etag",
          "deletes[].last_modified", "deletes[].size", "deletes[].role", "copy");
      assertThat(tally.stateRows.keySet()).as("state_files columns changed").containsAll(HostileRows.STATE_COLUMNS);
      assertThat(tally.stateRowsReadAgain.keySet()).as("state_files columns read again").contains("key", "status",
          "etag", "delete", "expires_at", "marked_at", "files", "delete_files", "second_row");
      assertThat(tally.stateRowsTaken.keySet()).as("changed state_files rows taken as they are").contains("delete",
          "files", "copy_of_another_row");
    }
  }

  /** What the archives did, over all of them. */
  private static final class Tally {
    final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
    final Map<Action, Integer> actions = new EnumMap<>(Action.class);
    final Map<Scenario.Tampering, Integer> tampered = new java.util.TreeMap<>();
    final Map<Scenario.Tampering, Integer> tamperedRefused = new java.util.TreeMap<>();
    /** deletion_plan rows changed, by column ("copy": another record's row under this key), and refused. */
    final Map<String, Integer> planRows = new TreeMap<>();
    final Map<String, Integer> planRowsRefused = new TreeMap<>();
    /** state_files rows changed, by column; taken by the next plan as they are, or read again with GET. */
    final Map<String, Integer> stateRows = new TreeMap<>();
    final Map<String, Integer> stateRowsTaken = new TreeMap<>();
    final Map<String, Integer> stateRowsReadAgain = new TreeMap<>();
    long keysRemoved;
    long unchangedRuns;
    long lostAndNamed;
    long stateFileGets;
    long stateRowsReused;
    /** Pages of listings that several records of a window shared. */
    long sharedListingPages;

    @Override
    public String toString() {
      return keysRemoved + " keys removed, " + unchangedRuns + " runs on an unchanged bucket; plans " + actions
          + "; outcomes " + outcomes + "; tampered rows " + tampered + ", refused " + tamperedRefused + "; files lost to a record coming back"
          + " during its deletion, each named: " + lostAndNamed + "; deletion_plan rows changed " + planRows
          + ", refused as read " + planRowsRefused + "; state files read " + stateFileGets + ", reused "
          + stateRowsReused + "; state_files rows changed " + stateRows + ", taken as they are " + stateRowsTaken
          + ", read again " + stateRowsReadAgain + "; pages of shared listings " + sharedListingPages;
    }
  }

  /** A record's place and the files the exporter wrote for it. */
  private record Place(String stateKey, String folder, List<String> files) {}

  /** One random archive, and cleanup runs interleaved with the exporter's writes. */
  private static final class Scenario {
    private final Random random;
    private final Tally tally;
    private final FakeRecordStore bucket = new FakeRecordStore();
    /** What each state file version says, by ETag (the store holds no content), and as JSON. */
    private final Map<String, StateDocument> documents = new HashMap<>();
    private final Map<String, String> jsonOf = new HashMap<>();
    private final List<Place> places = new ArrayList<>();
    /** Orphan folders (no state file) that a nested record may appear in later. */
    private final List<String> orphanFolders = new ArrayList<>();
    private Instant clock = WRITTEN;
    private final HostileRows hostile;
    /** The last plan's state_files rows, as the table holds them (changed now and then). */
    private List<StateFileRow> stateRows = new ArrayList<>();
    /**
     * Which column of a state_files row was changed, by row (identity); a plan that takes such a row writes
     * it again as it was, changed still.
     */
    private final Map<StateFileRow, String> stateRowChange = new IdentityHashMap<>();
    /** The rows changed before the plan about to run, with the key and ETag of the row each was made from. */
    private final Map<StateFileRow, String> changedNow = new IdentityHashMap<>();

    Scenario(long seed, Tally tally) {
      this.random = new Random(seed);
      this.tally = tally;
      this.hostile = new HostileRows(random);
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
        execute(plans, rowsAsRead(plans), untouched, planner);
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
      String json = json(document);
      jsonOf.put(state.etag(), json);
      bucket.describe(state, json);
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
    private record Planned(PlannedRecord record, StateDocument document, Tampering tampering) {
      Planned tampered(PlannedRecord changed, Tampering how) {
        return new Planned(changed, document, how);
      }
    }

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

    /** What the plan of each record's own document deletes, by state file: no row of it may delete more. */
    private final Map<String, Set<String>> ownPlans = new HashMap<>();
    /** State files planned from a state_files row that someone changed and the plan took as it was. */
    private final Set<String> plannedFromChangedRows = new HashSet<>();

    /**
     * Plans every record, as an incremental plan does: a state file whose ETag the last plan read is planned
     * from that plan's state_files row (changed now and then, as anyone with write access may), if the row is
     * one that a parse writes; any other is read again (StateReuse).
     */
    private Map<String, Planned> plan(Planner planner, Instant now) {
      Map<String, Planned> plans = new TreeMap<>();
      kept.clear();
      ownPlans.clear();
      plannedFromChangedRows.clear();
      List<StateFileRow> previous = changedStateRows();
      Map<String, List<StateFileRow>> previousByKey = new HashMap<>();
      for (StateFileRow row : previous) {
        if (row.getKey() != null && (StateFileRows.READ.equals(row.getStatus())
            || StateFileRows.BAD_STATE.equals(row.getStatus()))) {
          previousByKey.computeIfAbsent(row.getKey(), key -> new ArrayList<>()).add(row);
        }
      }
      Set<StateFileRow> taken = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
      List<StateFileRow> written = new ArrayList<>();
      for (String key : bucket.keys()) {
        if (!Keys.isStateFileName(key) || !(CLASSIFIER.classify(key) instanceof Classification.StateFile stateFile)) {
          continue;
        }
        StoredObject stateObject = bucket.object(key);
        StateDocument document = documents.get(stateObject.etag());
        StoredObject newest = newestOwned(key);
        RecordPlan own = planOf(planner, stateFile, stateObject, new ParsedState(document, null), newest, now);
        if (own.action() == Action.DELETE_RECORD || own.action() == Action.DELETE_REMOVED_FILES) {
          ownPlans.put(key, own.deletes().stream().map(PlannedDelete::key).collect(java.util.stream.Collectors.toSet()));
        }
        List<StateFileRow> candidates = previousByKey.getOrDefault(key, List.of());
        StateFileRow reused = candidates.size() == 1 && stateObject.etag().equals(candidates.get(0).getEtag())
            && StateFileRows.notReusable(candidates.get(0)) == null ? candidates.get(0) : null;
        RecordPlan plan = own;
        ParsedState parsed = new ParsedState(document, null);
        if (reused == null) {
          tally.stateFileGets++;
        } else {
          tally.stateRowsReused++;
          taken.add(reused);
          parsed = StateFileRows.parsed(reused);
          String change = stateRowChange.get(reused);
          if (change != null) {
            plannedFromChangedRows.add(key);
            if (changedNow.containsKey(reused)) {
              tally.stateRowsTaken.merge(change, 1, Integer::sum);
            }
          }
          if (!parsed.equals(new ParsedState(document, null))) {
            plan = planOf(planner, stateFile, stateObject, parsed, newest, now);
          }
        }
        StateFileRow row = stateRow(stateFile, stateObject, parsed);
        if (reused != null && stateRowChange.containsKey(reused)) {
          stateRowChange.put(row, stateRowChange.get(reused)); // written again as it was taken
        }
        written.add(row);
        tally.actions.merge(plan.action(), 1, Integer::sum);
        if (plan.action() == Action.DELETE_RECORD || plan.action() == Action.DELETE_REMOVED_FILES) {
          plans.put(key, new Planned(new PlannedRecord(plan.action(), stateObject, plan.deletes()), document,
              null));
        } else if (plan.action() == Action.KEEP || plan.action() == Action.NOT_YET_DUE) {
          kept.put(key, new Planned(null, document, null));
        }
      }
      for (Map.Entry<StateFileRow, String> changed : changedNow.entrySet()) {
        // Read again because of the change, where its state file is still the version the row was written for.
        String[] original = changed.getValue().split("\u0000");
        StoredObject current = bucket.object(original[0]);
        if (!taken.contains(changed.getKey()) && current != null && current.etag().equals(original[1])) {
          tally.stateRowsReadAgain.merge(stateRowChange.get(changed.getKey()), 1, Integer::sum);
        }
      }
      changedNow.clear();
      stateRows = written;
      return plans;
    }

    private RecordPlan planOf(Planner planner, Classification.StateFile stateFile, StoredObject stateObject,
        ParsedState parsed, StoredObject newest, Instant now) {
      Set<String> listed = new LinkedHashSet<>();
      if (parsed.isValid()) {
        listed.addAll(parsed.document().files());
        listed.addAll(parsed.document().deleteFiles());
      }
      Map<String, ListedKey> listedKeys = new HashMap<>();
      for (String listedKey : listed) {
        listedKeys.put(listedKey, new ListedKey(listedKey, bucket.object(listedKey), owner(listedKey)));
      }
      return planner.plan(new RecordInput(stateFile, stateObject, parsed, listedKeys, newest), now);
    }

    /**
     * The last plan's state_files rows as the next plan finds them: a row changed in one column, another
     * record's row written over one, or a second row of one state file, now and then.
     */
    private List<StateFileRow> changedStateRows() {
      List<StateFileRow> rows = new ArrayList<>(stateRows);
      HostileRows.Pool pool = pool();
      int planned = rows.size();
      for (int i = 0; i < planned; i++) {
        int roll = random.nextInt(30);
        if (roll < 3) {
          StateFileRow changed = copy(rows.get(i));
          String column = hostile.changeStateRow(changed, pool);
          changedStateRow(changed, column, rows.set(i, changed));
        } else if (roll == 3) {
          StateFileRow other = copy(rows.get(random.nextInt(planned)));
          other.setKey(rows.get(i).getKey());
          other.setEtag(rows.get(i).getEtag());
          changedStateRow(other, "copy_of_another_row", rows.set(i, other));
        } else if (roll == 4) {
          StateFileRow second = copy(rows.get(i));
          if (random.nextBoolean()) {
            hostile.changeStateRow(second, pool);
          }
          rows.add(second);
          changedStateRow(second, "second_row", rows.get(i));
        }
      }
      return rows;
    }

    /** Notes that {@code row} is {@code original} with {@code column} changed. */
    private void changedStateRow(StateFileRow row, String column, StateFileRow original) {
      stateRowChange.put(row, column);
      changedNow.put(row, original.getKey() + "\u0000" + original.getEtag());
      tally.stateRows.merge(column, 1, Integer::sum);
    }

    /** The state_files row that a plan writes for a state file it read (pipeline/README.md "Tables"). */
    private StateFileRow stateRow(Classification.StateFile stateFile, StoredObject stateObject, ParsedState parsed) {
      StateFileRow row = new StateFileRow();
      row.setRunId("plan-" + clock.getEpochSecond());
      row.setRunDate(clock.toString().substring(0, 10));
      row.setKey(stateObject.key());
      row.setRecordType(stateFile.recordType());
      row.setKind(stateFile.kind().isEmpty() ? null : stateFile.kind());
      row.setIds(stateFile.ids());
      row.setShape(stateFile.shape().name().toLowerCase(java.util.Locale.ROOT));
      row.setScope(stateFile.scope());
      row.setEtag(stateObject.etag());
      row.setLastModified(Timestamp.from(stateObject.lastModified()));
      row.setSize(stateObject.size());
      if (parsed.isValid()) {
        StateDocument document = parsed.document();
        row.setStatus(StateFileRows.READ);
        row.setDelete(document.delete());
        row.setExpiresAt(document.expiresAt() == null ? null : Timestamp.from(document.expiresAt()));
        row.setMarkedAt(document.markedAt() == null ? null : Timestamp.from(document.markedAt()));
        row.setFiles(document.files());
        row.setDeleteFiles(document.deleteFiles());
        row.setRawJson(jsonOf.get(stateObject.etag()));
      } else {
        row.setStatus(StateFileRows.BAD_STATE);
        row.setMessage(parsed.error());
      }
      return row;
    }

    private static StateFileRow copy(StateFileRow row) {
      StateFileRow copy = new StateFileRow();
      copy.setRunId(row.getRunId());
      copy.setRunDate(row.getRunDate());
      copy.setKey(row.getKey());
      copy.setStatus(row.getStatus());
      copy.setMessage(row.getMessage());
      copy.setRecordType(row.getRecordType());
      copy.setKind(row.getKind());
      copy.setIds(row.getIds());
      copy.setShape(row.getShape());
      copy.setScope(row.getScope());
      copy.setEtag(row.getEtag());
      copy.setLastModified(row.getLastModified());
      copy.setSize(row.getSize());
      copy.setDelete(row.getDelete());
      copy.setExpiresAt(row.getExpiresAt());
      copy.setMarkedAt(row.getMarkedAt());
      copy.setFiles(row.getFiles());
      copy.setDeleteFiles(row.getDeleteFiles());
      copy.setRawJson(row.getRawJson());
      return copy;
    }

    /** The values a changed row may take: the bucket's keys and ETags, keys no state file may list, the time. */
    private HostileRows.Pool pool() {
      List<String> keys = new ArrayList<>(bucket.keys());
      keys.addAll(List.of(PREFIX + "projects/p0/../p1/brief.pdf", "elsewhere/outside.bin", PREFIX + "_cogram/x"));
      List<String> stateFiles = new ArrayList<>(keys.stream().filter(Keys::isStateFileName).toList());
      stateFiles.add(PREFIX + "projects/p9/state.json");
      List<String> etags = new ArrayList<>(bucket.keys().stream().map(key -> bucket.object(key).etag()).toList());
      etags.add("etag-none");
      return new HostileRows.Pool(keys, stateFiles, etags, clock);
    }

    /** A deletion_plan row as execution reads it, and which column someone changed (null: none). */
    private record RowAsRead(PlannedRow read, String change) {}

    /**
     * The plan's rows as execution reads them (PlanRows): one row per state file, now and then with a column
     * changed, or another record's row written under a state file's key (a live record's, no key, an empty
     * one); of the rows of one state file, any one (the execute de-duplicates them, whichever it keeps).
     */
    private List<RowAsRead> rowsAsRead(Map<String, Planned> plans) {
      HostileRows.Pool pool = pool();
      List<Planned> planned = new ArrayList<>(plans.values());
      Map<String, List<Map.Entry<PlanRow, String>>> byKey = new java.util.LinkedHashMap<>();
      List<PlanRow> rows = new ArrayList<>();
      for (Planned one : planned) {
        PlanRow row = planRow(one.record());
        String change = random.nextInt(6) == 0 ? hostile.changePlanRow(row, pool) : null;
        rows.add(row);
        byKey.computeIfAbsent(String.valueOf(row.getStateFileKey()), key -> new ArrayList<>())
            .add(Map.entry(row, change == null ? "" : change));
      }
      List<String> keptKeys = new ArrayList<>(kept.keySet());
      for (PlanRow row : rows) {
        if (random.nextInt(10) != 0) {
          continue;
        }
        PlanRow copy = planRow(planned.get(random.nextInt(planned.size())).record());
        copy.setStateFileKey(random.nextInt(4) == 0 ? null : random.nextInt(3) == 0 ? ""
            : random.nextBoolean() || keptKeys.isEmpty() ? row.getStateFileKey()
            : keptKeys.get(random.nextInt(keptKeys.size())));
        if (random.nextBoolean()) {
          hostile.changePlanRow(copy, pool);
        }
        byKey.computeIfAbsent(String.valueOf(copy.getStateFileKey()), key -> new ArrayList<>())
            .add(Map.entry(copy, "copy"));
      }
      List<RowAsRead> read = new ArrayList<>();
      for (List<Map.Entry<PlanRow, String>> candidates : byKey.values()) {
        Map.Entry<PlanRow, String> kept = candidates.get(random.nextInt(candidates.size()));
        PlannedRow row = PlanRows.read(kept.getKey());
        String change = kept.getValue().isEmpty() ? null : kept.getValue();
        if (change != null) {
          tally.planRows.merge(change, 1, Integer::sum);
          if (row instanceof PlannedRow.Refused) {
            tally.planRowsRefused.merge(change, 1, Integer::sum);
          }
        }
        assertThat(change != null || row instanceof PlannedRow.Executable).as("a row as planned is executed: %s", row)
            .isTrue();
        read.add(new RowAsRead(row, change));
      }
      return read;
    }

    /** The deletion_plan row that a plan writes for {@code record} (pipeline/README.md "Tables"). */
    private PlanRow planRow(PlannedRecord record) {
      PlanRow row = new PlanRow();
      row.setRunId("plan-" + clock.getEpochSecond());
      row.setRunDate(clock.toString().substring(0, 10));
      row.setStateFileKey(record.stateFileKey());
      if (CLASSIFIER.classify(record.stateFileKey()) instanceof Classification.StateFile stateFile) {
        row.setRecordType(stateFile.recordType());
        row.setKind(stateFile.kind().isEmpty() ? null : stateFile.kind());
        row.setIds(stateFile.ids());
      }
      row.setAction(record.action().label());
      row.setReason("planned");
      row.setDueAt(Timestamp.from(record.stateFile().lastModified()));
      row.setGraceDays(0);
      row.setGraceRule("global");
      row.setStateEtag(record.stateFile().etag());
      row.setStateLastModified(Timestamp.from(record.stateFile().lastModified()));
      List<DeleteRow> deletes = new ArrayList<>();
      for (PlannedDelete delete : record.deletes()) {
        DeleteRow deleteRow = new DeleteRow();
        deleteRow.setKey(delete.key());
        deleteRow.setEtag(delete.object().etag());
        deleteRow.setLastModified(Timestamp.from(delete.object().lastModified()));
        deleteRow.setSize(delete.object().size());
        deleteRow.setRole(delete.role().label());
        deletes.add(deleteRow);
      }
      row.setDeletes(deletes);
      row.setKeysToDelete((long) deletes.size());
      row.setChildKeysToDelete((long) record.files().size());
      row.setBytesToDelete(record.deletes().stream().mapToLong(delete -> delete.object().size()).sum());
      row.setMissingKeys(0);
      row.setMissingFiles(List.of());
      row.setKeptKeys(0);
      row.setPlannedAt(Timestamp.from(clock));
      return row;
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
          entry.setValue(planned.tampered(withExtraKey(record, key), Tampering.EXTRA_KEY));
        } else if (record.action() == Action.DELETE_REMOVED_FILES && random.nextInt(4) == 0) {
          List<String> alsoInFiles = planned.document().files().stream().filter(bucket::exists).toList();
          if (!alsoInFiles.isEmpty()) {
            String key = alsoInFiles.get(random.nextInt(alsoInFiles.size()));
            entry.setValue(planned.tampered(withExtraKey(record, key), Tampering.REMOVED_FILE_ALSO_IN_FILES));
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

    private void execute(Map<String, Planned> plans, List<RowAsRead> rows, boolean untouched, Planner planner) {
      // What each row execution takes plans, with the document of the state file version it names (the one
      // execution reads); a row as planned keeps its plan's tampering.
      Map<String, Planned> executed = new TreeMap<>();
      List<PlannedRecord> window = new ArrayList<>();
      for (RowAsRead row : rows) {
        if (row.read() instanceof PlannedRow.Executable executable) {
          PlannedRecord record = executable.record();
          Planned original = plans.get(record.stateFileKey());
          executed.put(record.stateFileKey(), new Planned(record, documents.get(record.stateFile().etag()),
              row.change() == null ? original.tampering() : null));
          window.add(record);
        }
      }
      Watched store = new Watched(executed);
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
      if (!untouched && random.nextInt(5) == 0) {
        // An earlier attempt that stopped after some records: this run finds them done.
        List<PlannedRecord> some = window.stream().filter(record -> random.nextBoolean()).toList();
        try (RecordExecutor earlier = new RecordExecutor(store, planner, PARSER, 1000, ConditionalDeletes.ON,
            DeleteThrottle.none(), ExecutionHook.NONE, Clock.fixed(clock, ZoneOffset.UTC), 1, DeleteJournal.NONE,
            STILL)) {
          earlier.execute(some);
        }
        before = bucket.keys();
      }
      // A record whose row is refused keeps everything it owns.
      Set<String> refusedRecords = new HashSet<>();
      rows.stream().filter(row -> row.read() instanceof PlannedRow.Refused).map(row -> ((PlannedRow.Refused) row.read())
          .stateFileKey()).filter(bucket::exists).forEach(refusedRecords::add);
      Map<String, Set<String>> keptWhole = new TreeMap<>();
      if (!refusedRecords.isEmpty()) {
        for (String key : bucket.keys()) {
          String owner = Keys.isStateFileName(key) && CLASSIFIER.isRecordBoundary(key) ? key : owner(key);
          if (refusedRecords.contains(owner)) {
            keptWhole.computeIfAbsent(owner, record -> new HashSet<>()).add(key);
          }
        }
      }
      List<ExecutionOutcome> executorOutcomes = List.of();
      if (!window.isEmpty()) {
        try (RecordExecutor executor = new RecordExecutor(store, planner, PARSER, 1 + random.nextInt(5),
            ConditionalDeletes.ON, DeleteThrottle.none(), exporterDuringDelete, Clock.fixed(clock, ZoneOffset.UTC), 1,
            DeleteJournal.NONE, STILL)) {
          executorOutcomes = executor.execute(window);
        }
      }
      // The outcomes in the rows' order, as the execute's window loop makes them.
      Iterator<ExecutionOutcome> fromExecutor = executorOutcomes.iterator();
      List<ExecutionOutcome> outcomes = new ArrayList<>();
      for (RowAsRead row : rows) {
        outcomes.add(row.read() instanceof PlannedRow.Refused refused ? refused.outcome(clock) : fromExecutor.next());
      }
      outcomes.forEach(outcome -> tally.outcomes.merge(outcome.outcome(), 1, Integer::sum));
      keptWhole.forEach((stateFile, owned) -> assertThat(owned).as("%s, whose row is refused, keeps what it owns",
          stateFile).allMatch(bucket::exists));
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
        Tampering tampering = executed.get(window.get(i).stateFileKey()).tampering();
        ExecutionOutcome outcome = executorOutcomes.get(i);
        if (tampering != null) {
          tally.tampered.merge(tampering, 1, Integer::sum);
          boolean liveNow = bucket.exists(outcome.stateFileKey())
              && bucket.object(outcome.stateFileKey()).etag().equals(window.get(i).stateFile().etag())
              && live(executed.get(outcome.stateFileKey()).document());
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
        // A dry run's counts are what a real run deletes, on a bucket nobody changes: exactly, for every record
        // whose rows nobody changed; at most what its own document plans, for one whose rows were changed.
        for (int i = 0; i < rows.size(); i++) {
          ExecutionOutcome outcome = outcomes.get(i);
          if (rows.get(i).change() == null && !plannedFromChangedRows.contains(outcome.stateFileKey())) {
            PlannedRecord record = ((PlannedRow.Executable) rows.get(i).read()).record();
            assertThat(outcome.outcome()).as("a record as planned, on an unchanged bucket: %s", outcome)
                .isIn(Outcome.DELETED, Outcome.REMOVED_FILES_DELETED);
            assertThat(new HashSet<>(outcome.deletedKeys())).as("keys deleted on an unchanged bucket: %s of %s",
                outcome, record).isEqualTo(record.deletes().stream().map(PlannedDelete::key).filter(before::contains)
                .collect(java.util.stream.Collectors.toSet()));
          } else {
            assertThat(ownPlans.getOrDefault(outcome.stateFileKey(), Set.of()))
                .as("what a changed row deletes of %s: at most the plan of its own document", outcome.stateFileKey())
                .containsAll(outcome.deletedKeys());
          }
        }
      }
    }

    /** Live: not marked, and its retention (if any) not yet over at execution. */
    private boolean live(StateDocument document) {
      return !document.delete() && (document.expiresAt() == null || clock.isBefore(document.expiresAt()));
    }

    /** The bucket, with every object the executor is about to remove checked against the invariants. */
    private final class Watched extends ForwardingRecordStore {
      private final Map<String, Planned> plans;
      private final Map<String, List<Planned>> byKey = new HashMap<>();

      Watched(Map<String, Planned> plans) {
        super(bucket);
        this.plans = plans;
        for (Planned planned : plans.values()) {
          for (PlannedDelete delete : planned.record().deletes()) {
            byKey.computeIfAbsent(delete.key(), key -> new ArrayList<>()).add(planned);
          }
        }
      }

      @Override
      public ListingPage listPage(String prefix, String startAfter, String token) {
        tally.sharedListingPages++;
        return super.listPage(prefix, startAfter, token);
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
            record.stateFileKey(), key).isNotNull();
        assertThat(bucket.object(record.stateFileKey()).etag()).as("state file of %s when %s is removed",
            record.stateFileKey(), key).isEqualTo(record.stateFile().etag());
        assertThat(document).as("the document of %s as planned when %s is removed", record.stateFileKey(), key)
            .isNotNull();
        if (live(document)) {
          assertThat(document.deleteFiles()).as("a live record loses only its delete_files").contains(key);
          assertThat(document.files()).as("a live record keeps a key that is also in files").doesNotContain(key);
        } else {
          assertThat(List.of(document.files(), document.deleteFiles())).as("the state file lists %s", key)
              .anySatisfy(keys -> assertThat(keys).contains(key));
        }
        if (!document.deleteFiles().contains(key) || document.files().contains(key)) {
          assertThat(object.lastModified()).as("%s is newer than its state file: the record is coming back", key)
              .isBeforeOrEqualTo(bucket.object(record.stateFileKey()).lastModified());
        }
        assertThat(record.files().stream().filter(delete -> delete.key().equals(key)).findFirst().orElseThrow()
            .object().etag()).as("only the version planned goes: %s", key).isEqualTo(object.etag());
      }

      private void checkStateFile(Planned planned) {
        PlannedRecord record = planned.record();
        assertThat(record.action()).as("only a due record's state file goes").isEqualTo(Action.DELETE_RECORD);
        assertThat(planned.document()).as("the document of %s as planned", record.stateFileKey()).isNotNull();
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
