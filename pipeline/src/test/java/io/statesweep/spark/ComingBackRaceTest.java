package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exporter bringing records back while {@code run --execute} deletes them, on S3Proxy (README,
 * "Deleting"): it uploads a record's files again byte for byte (the same ETags: no conditional delete can tell),
 * waits, then rewrites the record's state file as live. A file uploaded between the record's
 * verification and its delete is lost; every lost file must be named, either by the execute that saw
 * its record come back ({@code <state file> came back during its deletion: <key> was deleted; run
 * Verify bucket in the exporter}) or by the next plan ({@code missing <key>: listed by live record
 * <state file>}).
 *
 * <p>So that losses happen in every run, however fast or busy the machine, the exporter acts where a
 * window starts its deletes, after its verification: it uploads the files of the window's returning
 * records again there and then, rewrites the state file of every other one of them at once (it came
 * back during its deletion), and the state file of the others only once the execute deleted it (the
 * next plan finds their files missing).
 *
 * <p>The exporter is a thread racing {@code run --execute}; the windows are told to it, and a slow network of 300 ms
 * lies between a window's verification and its deletes.
 *
 * <p>On a versioned bucket (pipeline/README.md, "Versioned buckets") the same race loses nothing. A record that came
 * back during its deletion: the execute removes the delete markers it just wrote over the files uploaded again, and
 * each file is current again, named by a {@code <state file> came back during its deletion: <key> was restored} line
 * and by its
 * {@code executions.deleted.restored_version}. A record whose state file was rewritten once the execute deleted it:
 * the next plan's {@code missing} line names the run's marker that hides each file and the restore that brings it
 * back ({@code statesweep restore --run-id R --record <state file>}); run, each of its files is a {@code restored}
 * row of {@code restorations}.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class ComingBackRaceTest {
  private static final String P = "cogram/";
  private static final int RECORDS = 60;
  private static final int COMING_BACK = 20;
  private static final int FILES = 6;
  private static final int ROUNDS = 2;
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final Pattern CAME_BACK =
      Pattern.compile("(.+) came back during its deletion: (.+) was deleted; run Verify bucket in the exporter");
  private static final Pattern MISSING = Pattern.compile("missing (.+): listed by live record (.+)");
  private static final Pattern HIDDEN = Pattern.compile("missing (.+): listed by live record (.+): hidden by the"
      + " delete marker of run (\\S+) \\(statesweep restore --run-id \\S+ --record (.+)\\)");
  private static final Pattern RESTORED =
      Pattern.compile("(.+) came back during its deletion: (.+) was restored \\(version (.+) is current\\)");

  @TempDir
  Path warehouse;

  @Test
  void everyFileLostToARecordComingBackDuringItsDeletionIsNamed(LocalS3Server server) throws Exception {
    int lostInAll = 0;
    int returnedInAll = 0;
    int cameBackInAll = 0;
    int missingInAll = 0;
    for (int round = 0; round < ROUNDS; round++) {
      Race race = new Race(server, "race-" + BUCKETS.incrementAndGet(), new Random(round), false);
      race.run();
      lostInAll += race.lost.size();
      returnedInAll += race.returned.size();
      cameBackInAll += race.namedByExecute.size();
      missingInAll += race.namedByPlan.size();
      System.out.printf("coming-back race %d: %d records came back, %d files lost, %d named by the execute,"
          + " %d by the next plan; outcomes %s%n", round, race.returned.size(), race.lost.size(),
          race.namedByExecute.size(), race.namedByPlan.size(), race.outcomes);
    }
    // The race must actually lose files for the test to mean anything, and both lines must have named some.
    assertThat(lostInAll).isPositive();
    assertThat(cameBackInAll).isPositive();
    assertThat(missingInAll).isPositive();
  }

  @Test
  void onAVersionedBucketEveryFileOfARecordComingBackDuringItsDeletionIsCurrentAgain(LocalS3Server server)
      throws Exception {
    Race race = new Race(server, "race-" + BUCKETS.incrementAndGet(), new Random(7), true);
    race.run();
    System.out.printf("coming-back race on a versioned bucket: %d records came back, %d files restored by the"
        + " execute, %d hidden by its markers after it and restored by restore --record (%d records), %d lost;"
        + " outcomes %s%n", race.returned.size(), race.restoredByExecute.size(), race.restoredByRestore.size(),
        race.recordsToRestore.size(), race.lost.size(), race.outcomes);

    assertThat(race.lost).as("files lost").isEmpty();
    assertThat(race.namedByExecute).as("came-back lines of lost files").isEmpty();
    assertThat(race.outcomes).containsKey("restored_after_coming_back").doesNotContainKey("came_back_during_delete");
    // The files of records rewritten after their deletion: each hidden by the run's marker, restored by its record.
    assertThat(race.hiddenByRun).isNotEmpty().isEqualTo(race.namedByPlan);
    assertThat(race.restoredByRestore).isEqualTo(race.hiddenByRun);
    // Every file a returning record had deleted is current again: a line names it, and executions has its version.
    assertThat(race.restoredByExecute).isNotEmpty().isEqualTo(race.restoredInTable);
    race.restoredByExecute.forEach((key, version) -> assertThat(race.currentVersions.get(key))
        .as("the current version of %s", key).isEqualTo(version));
    assertThat(race.markersLeft.keySet()).as("keys with delete markers left").doesNotContainAnyElementsOf(
        race.restoredByExecute.keySet());
    assertThat(race.summary).contains(" restored_after_coming_back=" + race.outcomes.get("restored_after_coming_back")
        + " files_restored=" + race.restoredByExecute.size() + " files_lost=0 ");
  }

  /** One bucket of due records, one run --execute, one exporter bringing records back, one plan after. */
  private final class Race {
    private final LocalS3Server server;
    private final String bucket;
    private final Random random;
    /** On a versioned bucket, where every returning record comes back during its deletion. */
    private final boolean versioned;
    private final TestArchive archive;
    /** Each file the execute restored, to the version its line says is current. */
    final Map<String, String> restoredByExecute = new TreeMap<>();
    /** Each file executions says is current again, to its restored_version. */
    final Map<String, String> restoredInTable = new TreeMap<>();
    /** The current version of each key after the run (a versioned bucket). */
    final Map<String, String> currentVersions = new TreeMap<>();
    /** The files the next plan says the run's delete markers hide (a versioned bucket), and the records they list. */
    final Set<String> hiddenByRun = new TreeSet<>();
    final Set<String> recordsToRestore = new TreeSet<>();
    /** The files restore --record restored, as restorations has them. */
    final Set<String> restoredByRestore = new TreeSet<>();
    /** The delete markers in the bucket after the run, by key (a versioned bucket). */
    Map<String, List<String>> markersLeft = Map.of();
    String summary;
    final Set<String> lost = new TreeSet<>();
    final Set<String> namedByExecute = new TreeSet<>();
    final Set<String> namedByPlan = new TreeSet<>();
    final Map<String, Long> outcomes = new TreeMap<>();
    /** The records the exporter brought back. */
    final Set<Integer> returned = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The records the exporter brings back when a window is about to delete them. */
    private final List<Integer> returning = new ArrayList<>();
    /** Unbounded: a rewrite waiting for its state file to go never holds up the uploads of the window deleting it. */
    private final ExecutorService exporter = Executors.newCachedThreadPool();
    /** The state files the exporter rewrites once the execute deleted them. */
    private final List<Future<?>> rewrites = new CopyOnWriteArrayList<>();
    private volatile boolean executeEnded;

    Race(LocalS3Server server, String bucket, Random random, boolean versioned) {
      this.server = server;
      this.bucket = bucket;
      this.random = random;
      this.versioned = versioned;
      this.archive = new TestArchive(server, bucket, P);
      if (versioned) {
        server.enableVersioning(bucket);
      }
    }

    private String folder(int record) {
      return String.format("projects/p1/documents/d%03d/", record);
    }

    private List<String> files(int record) {
      List<String> files = new ArrayList<>();
      for (int file = 0; file < FILES; file++) {
        files.add(folder(record) + "f" + file + ".bin");
      }
      return files;
    }

    private String content(String key) {
      return "bytes of " + key;
    }

    void run() throws Exception {
      for (int record = 0; record < RECORDS; record++) {
        for (String file : files(record)) {
          archive.put(file, content(file));
        }
        archive.put(folder(record) + "state.json", archive.state(true, null, files(record), List.of()));
      }
      // Uploads from now on are in a later second than every state file: newer, as a listing sees them.
      Thread.sleep(1_100);

      RunOptions options = options(Map.of("--dry-run", "false", "--max-deletes-per-second", "120", "--fail-on",
          "came_back"));
      PlanResult plan = new SparkPlanAction(SharedSpark.session(), options.plan()).execute();
      assertThat(plan.failure()).isNull();

      List<Integer> records = new ArrayList<>();
      for (int record = 0; record < RECORDS; record++) {
        records.add(record);
      }
      Collections.shuffle(records, random);
      returning.addAll(records.subList(0, COMING_BACK));
      ExecuteResult result;
      EXPORTER = this::comeBack;
      try {
        result = new SparkExecuteAction(SharedSpark.session(), options.execute(), plan.runId()).plannedInThisJob(plan)
            .hook(new ComeBackBeforeDelete()).execute();
      } finally {
        EXPORTER = null;
        executeEnded = true;
      }
      for (Future<?> rewrite : List.copyOf(rewrites)) {
        rewrite.get(2, TimeUnit.MINUTES);
      }
      exporter.shutdown();
      assertThat(result.failure()).isNull();
      TableReader.of(result.tables()).executions()
          .filter("attempt_id = '" + result.attemptId() + "'").groupBy("outcome").count().collectAsList()
          .forEach(row -> outcomes.put(row.getString(0), row.getLong(1)));

      summary = result.summary().line();
      for (String line : result.logLines()) {
        Matcher matcher = CAME_BACK.matcher(line);
        if (matcher.matches()) {
          namedByExecute.add(matcher.group(2));
        }
        Matcher restored = RESTORED.matcher(line);
        if (restored.matches()) {
          restoredByExecute.put(restored.group(2), restored.group(3));
        }
      }
      TableReader.of(result.tables()).executions().filter("attempt_id = '" + result.attemptId() + "'")
          .selectExpr("explode(deleted) as d").filter("d.restored_version is not null")
          .selectExpr("d.key", "d.restored_version").collectAsList()
          .forEach(row -> restoredInTable.put(row.getString(0), row.getString(1)));
      if (versioned) {
        markersLeft = server.deleteMarkers(bucket);
        for (String key : restoredByExecute.keySet()) {
          currentVersions.put(key, archive.store().latestVersion(key).versionId());
        }
      }
      PlanResult next = new SparkPlanAction(SharedSpark.session(), options(Map.of("--fail-on", "missing")).plan()).execute();
      assertThat(next.failure()).isNull();
      for (String line : next.logLines()) {
        Matcher matcher = MISSING.matcher(line);
        if (matcher.matches()) {
          namedByPlan.add(matcher.group(1));
        }
        Matcher hidden = HIDDEN.matcher(line);
        if (hidden.matches()) {
          assertThat(hidden.group(3)).isEqualTo(plan.runId());
          hiddenByRun.add(hidden.group(1));
          recordsToRestore.add(hidden.group(4));
        }
      }
      // What the lines say brings each record back does.
      for (String record : recordsToRestore) {
        io.statesweep.api.RestoreResult restored = Statesweep.get(SharedSpark.session()).restore(plan.runId())
            .environment(Map.of()).bucket(bucket).prefix(P).option("--endpoint", server.endpoint())
            .warehouse(warehouse.toString()).record(record).dryRun(false).execute();
        assertThat(restored.counts().notRestored()).as(restored.summaryLine()).isZero();
        TableReader.of(SharedSpark.session(), result.tables()).table(io.statesweep.api.Tables.RESTORATIONS)
            .filter("restore_id = '" + restored.restoreId() + "' and restore_status = 'restored' and role <> "
                + "'state_file'").select("key").collectAsList().forEach(row -> restoredByRestore.add(row.getString(0)));
      }

      Set<String> left = archive.snapshot().keySet();
      for (int record : returned) {
        for (String file : files(record)) {
          if (!left.contains(P + file)) {
            lost.add(P + file);
          }
        }
      }
      // Lost files page someone (--fail-on): exit code 4 exactly when a line named one (before any restore).
      assertThat(result.exitCode()).as(result.summary().line())
          .isEqualTo(namedByExecute.isEmpty() ? 0 : io.statesweep.plan.RunSummary.LOST_FILES);
      assertThat(next.exitCode()).as(next.summary().line())
          .isEqualTo(namedByPlan.isEmpty() ? 0 : io.statesweep.plan.RunSummary.LOST_FILES);
      Set<String> named = new TreeSet<>(namedByExecute);
      named.addAll(namedByPlan);
      assertThat(named).as("files lost to records that came back (outcomes %s)", outcomes).containsAll(lost);
      // Nothing of a record that stayed due is named, and nothing of it is left.
      for (int record : records) {
        if (returned.contains(record)) {
          continue;
        }
        for (String file : files(record)) {
          assertThat(left).doesNotContain(P + file);
          assertThat(named).doesNotContain(P + file);
        }
      }
    }

    /**
     * The exporter, called where a window is about to delete {@code keys} (its records were verified): it
     * brings back the window's returning records that did not come back yet. Their files are uploaded
     * again byte for byte before the call returns, so they land between the verification and the deletes;
     * an even record's state file is rewritten as live right after (before the execute reads it again
     * after the files went: it came back during its deletion), an odd record's once the execute deleted
     * it (its files are missing for the next plan).
     */
    private void comeBack(List<String> keys) {
      Set<Integer> inWindow = new TreeSet<>();
      for (String key : keys) {
        for (int record : returning) {
          if (key.startsWith(P + folder(record))) {
            inWindow.add(record);
          }
        }
      }
      inWindow.removeIf(record -> !returned.add(record));
      List<Future<?>> uploads = new ArrayList<>();
      for (int record : inWindow) {
        for (String file : files(record)) {
          uploads.add(exporter.submit(() -> archive.put(file, content(file))));
        }
      }
      awaitAll(uploads);
      List<Future<?>> states = new ArrayList<>();
      for (int record : inWindow) {
        if (record % 2 == 0) {
          states.add(exporter.submit(() -> putLive(record)));
        } else {
          rewrites.add(exporter.submit(() -> {
            awaitStateFileGone(record);
            putLive(record);
          }));
        }
      }
      awaitAll(states);
    }

    private void putLive(int record) {
      archive.put(folder(record) + "state.json", archive.state(false, null, files(record), List.of()));
    }

    /** Until the execute deleted the record's state file, or ended without (the record was kept). */
    private void awaitStateFileGone(int record) {
      String key = P + folder(record) + "state.json";
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (archive.store().read(key, 1) != null && !executeEnded) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(key + " is still there 10 minutes into the execute");
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }

    private void awaitAll(List<Future<?>> futures) {
      for (Future<?> future : futures) {
        try {
          future.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        } catch (ExecutionException e) {
          throw new IllegalStateException("the exporter could not write", e.getCause());
        }
      }
    }

    private RunOptions options(Map<String, String> extra) {
      return TestOptions.of(server.endpoint(), bucket, P, warehouse).with("--log-lines", "all").with(extra).options();
    }
  }

  /** The exporter of the race under way, which the execute's hook calls. */
  static volatile Consumer<List<String>> EXPORTER;

  /** Hands the exporter the keys of each group of records about to be deleted, after their verification. */
  static final class ComeBackBeforeDelete implements ExecutionHook {
    private static final long serialVersionUID = 1L;

    @Override
    public void beforeDelete(List<String> keys) {
      if (!keys.isEmpty()) {
        EXPORTER.accept(List.copyOf(keys));
      }
    }
  }
}
