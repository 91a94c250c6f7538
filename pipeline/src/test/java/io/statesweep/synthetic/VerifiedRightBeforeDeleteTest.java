package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.execute.ConditionalDeletes;
import io.statesweep.execute.DeleteThrottle;
import io.statesweep.execute.ExecutionHook;
import io.statesweep.execute.ExecutionOutcome;
import io.statesweep.execute.ObjectStoreRecords;
import io.statesweep.execute.OneThreadExecutors;
import io.statesweep.execute.Outcome;
import io.statesweep.execute.PlannedRecord;
import io.statesweep.execute.RecordExecutor;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Layout;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.state.StateParser;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A record's deletes start within a second of its own verification, also in a window beside a project record
 * whose verification pages through a large folder on a slow store (pipeline/README.md "Deleting"): a due project record
 * above the keys of many nested records, its listing answered late every page, and small due records in the same
 * window. A file of a small record uploaded again byte for byte (the same ETag: no conditional delete can see it) while
 * the project lists is never deleted unseen. {@link RecordExecutor} is driven directly, against this endpoint, through
 * the real {@link S3ObjectStore}. (The S3Proxy extension only sets the SDK's credentials, as for the other tests on
 * this endpoint.)
 *
 * <p>The case: a due project above 200,010 nested keys, listed 20 ms late a page, beside 31 small due records of its
 * window. The small records go while the project lists, and a small record's file uploaded again byte for byte at
 * page 150 stays (before, they waited for the project, and the file was deleted without a line). With one verifying
 * thread, the small records verified before the project's listing are verified again, and the one whose file came
 * back is kept ({@code kept_newer_files}).
 */
@ExtendWith(S3ServerExtension.class)
class VerifiedRightBeforeDeleteTest {
  private static final String BUCKET = "fresh";
  private static final String PREFIX = "cogram/";
  private static final String PROJECT = PREFIX + "projects/p000000/";
  private static final String PROJECT_STATE = PROJECT + "state.json";
  /** The project's own files, around and after its nested documents in key order. */
  private static final List<String> OWN = List.of("brief.pdf", "attachments/a0.pdf", "photos/album/x0.jpg",
      "zz/notes/n0.txt");
  private static final Planner PLANNER = new Planner(Layout.builtIn("cogram").classifier(ExportPrefix.of(PREFIX)),
      Duration.ZERO);
  private static final Instant STATE_WRITTEN = Instant.parse("2025-12-01T00:00:00Z");

  /**
   * The default verifying threads (16), a window of 32 records: a project above 200,010 keys of nested
   * documents (10 keys each), listed 20 ms late a page, beside 31 small records. The small records, verified at
   * once, go while the project still lists: at page 150 of about 201 its listing waits until they are all
   * deleted, so a wait of theirs for the project would never end; then a file of one of them is uploaded again,
   * and stays.
   */
  @Test
  void smallRecordsBesideAProjectListingALargeFolderGoWithoutWaitingForIt() throws Exception {
    int uploadAgainAtPage = 150;
    try (SyntheticS3Server server = server(20_001, Duration.ofMillis(20))) {
      ObjectStore objects = objects(server);
      PlannedRecord project = project(server, objects);
      List<PlannedRecord> small = smallRecords(server, objects, 31);
      String comesBack = small.get(0).files().get(0).key();
      AtomicReference<Instant> uploadedAgain = uploadAgainOnceDeleted(server, objects, uploadAgainAtPage, comesBack,
          small);
      List<PlannedRecord> window = new ArrayList<>();
      window.add(project);
      window.addAll(small);

      List<ExecutionOutcome> outcomes = execute(objects, window, 16);

      report("16 verifying threads", outcomes);
      assertThat(uploadedAgain.get()).as("the small records deleted before the project's listing went past page "
          + uploadAgainAtPage).isNotNull();
      // Its record went before it was uploaded again: the upload stays, never deleted unseen.
      assertThat(objects.listedObject(comesBack)).as(comesBack).isNotNull()
          .extracting(StoredObject::lastModified).isEqualTo(uploadedAgain.get());
      assertThat(outcomes).extracting(ExecutionOutcome::outcome).containsOnly(Outcome.DELETED);
      assertThat(outcomes.get(0).verifiedToDeleted()).isLessThan(Duration.ofSeconds(1));
      assertThat(objects.listedObject(PROJECT_STATE)).isNull();
    }
  }

  /**
   * One verifying thread: two small records are verified before a project above 20,010 nested keys, listed
   * 100 ms late a page (over 2 s) on the executor's clock; they are verified again before their deletes, and the
   * one whose file came back meanwhile is kept. With one verifying thread the executor never waits in real
   * time, so on a clock that only the project's pages move on it decides the same on any machine: on the
   * system's clock, a busy one that took 300 ms to verify the second small record sent the first one's
   * deletes before the project was listed.
   */
  @Test
  void aSmallRecordVerifiedBeforeTheProjectsListingIsVerifiedAgainAndKeptWhenItsFileCameBack() throws Exception {
    Duration pageDelay = Duration.ofMillis(100);
    try (SyntheticS3Server server = server(2_001, Duration.ZERO)) {
      ObjectStore objects = objects(server);
      PlannedRecord project = project(server, objects);
      List<PlannedRecord> small = smallRecords(server, objects, 2);
      String comesBack = small.get(0).files().get(0).key();
      AtomicLong nanos = new AtomicLong();
      for (int page = 1; page <= 30; page++) {
        server.whenListed(PROJECT, page, () -> nanos.addAndGet(pageDelay.toNanos()));
      }
      AtomicReference<Instant> uploadedAgain = uploadAgainWhileTheProjectLists(server, 5, comesBack);

      List<ExecutionOutcome> outcomes;
      try (RecordExecutor executor = OneThreadExecutors.onTimeSource(new ObjectStoreRecords(objects, 1 << 20), PLANNER,
          new StateParser(List.of()), Clock.systemUTC(), nanos::get)) {
        outcomes = executor.execute(List.of(small.get(0), small.get(1), project));
      }
      Duration took = Duration.ofNanos(nanos.get());

      report("1 verifying thread", outcomes);
      assertThat(uploadedAgain.get()).isNotNull();
      assertThat(outcomes).extracting(ExecutionOutcome::outcome)
          .containsExactly(Outcome.KEPT_NEWER_FILES, Outcome.DELETED, Outcome.DELETED);
      assertThat(outcomes.get(0).message()).isEqualTo("the record is coming back: " + comesBack + " ("
          + uploadedAgain.get() + ") is newer than its state file (" + STATE_WRITTEN + ")");
      assertThat(objects.listedObject(comesBack).lastModified()).isEqualTo(uploadedAgain.get());
      assertThat(objects.listedObject(small.get(0).stateFileKey())).isNotNull();
      // The other small record was verified before the project's listing too, and again right before its deletes.
      assertThat(took).isGreaterThan(Duration.ofSeconds(2));
      assertThat(outcomes.get(1).verifiedToDeleted()).isZero();
      assertThat(objects.listedObject(small.get(1).stateFileKey())).isNull();
    }
  }

  /** {@code nestedRecords} documents of 10 keys in the project, whose listing is answered {@code pageDelay} late. */
  private static SyntheticS3Server server(long nestedRecords, Duration pageDelay) throws Exception {
    SyntheticArchive nested = new SyntheticArchive(PREFIX, nestedRecords, 9, nestedRecords, false, 10);
    return new SyntheticS3Server(BUCKET, nested, Duration.ZERO, 0).delayListings(PROJECT, pageDelay);
  }

  private static ObjectStore objects(SyntheticS3Server server) {
    return S3ObjectStore.open(S3Settings.defaults().withEndpoint(server.endpoint(), true), BUCKET);
  }

  private static List<ExecutionOutcome> execute(ObjectStore objects, List<PlannedRecord> window, int verifyThreads) {
    try (RecordExecutor executor = new RecordExecutor(new ObjectStoreRecords(objects, 1 << 20), PLANNER,
        new StateParser(List.of()), 1000, ConditionalDeletes.ON, DeleteThrottle.none(), ExecutionHook.NONE,
        Clock.systemUTC(), verifyThreads)) {
      return executor.execute(window);
    }
  }

  /**
   * At the {@code page}-th page of the project's listing, once every record of {@code deleted} is deleted (its
   * state file gone; 2 minutes at most, else nothing is uploaded), the exporter uploads the file again byte for
   * byte (the same ETag): after those records went and while the project lists, however fast either goes.
   */
  private static AtomicReference<Instant> uploadAgainOnceDeleted(SyntheticS3Server server, ObjectStore objects,
      int page, String key, List<PlannedRecord> deleted) {
    AtomicReference<Instant> uploaded = new AtomicReference<>();
    server.whenListed(PROJECT, page, () -> {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (deleted.stream().anyMatch(record -> objects.listedObject(record.stateFileKey()) != null)) {
        if (System.nanoTime() > deadline) {
          return;
        }
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      server.put(key, content(key), now);
      uploaded.set(now);
    });
    return uploaded;
  }

  /** The exporter uploads the file again byte for byte (the same ETag) while the project's listing waits. */
  private static AtomicReference<Instant> uploadAgainWhileTheProjectLists(SyntheticS3Server server, int page,
      String key) {
    AtomicReference<Instant> uploaded = new AtomicReference<>();
    server.whenListed(PROJECT, page, () -> {
      // To the millisecond, as listings show it.
      Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      server.put(key, content(key), now);
      uploaded.set(now);
    });
    return uploaded;
  }

  /** The due project: its own files and state file beside its nested documents. */
  private static PlannedRecord project(SyntheticS3Server server, ObjectStore objects) {
    List<String> keys = OWN.stream().map(name -> PROJECT + name).toList();
    keys.forEach(key -> server.put(key, content(key), STATE_WRITTEN.minusSeconds(3600)));
    server.put(PROJECT_STATE, dueDocument(keys), STATE_WRITTEN);
    return planned(objects, PROJECT_STATE, keys);
  }

  private static List<PlannedRecord> smallRecords(SyntheticS3Server server, ObjectStore objects, int count) {
    List<PlannedRecord> records = new ArrayList<>();
    for (int record = 0; record < count; record++) {
      String folder = PREFIX + "unassigned_project/documents/d" + String.format("%04d", record) + "/";
      List<String> keys = List.of(folder + "a.pdf", folder + "b.pdf");
      keys.forEach(key -> server.put(key, content(key), STATE_WRITTEN.minusSeconds(3600)));
      server.put(folder + "state.json", dueDocument(keys), STATE_WRITTEN);
      records.add(planned(objects, folder + "state.json", keys));
    }
    return records;
  }

  /** A due record's plan, as the plan saw the bucket. */
  private static PlannedRecord planned(ObjectStore objects, String stateKey, List<String> files) {
    List<PlannedDelete> deletes = new ArrayList<>();
    for (String key : files) {
      deletes.add(new PlannedDelete(Objects.requireNonNull(objects.listedObject(key), key), DeleteRole.FILE));
    }
    StoredObject state = objects.listedObject(stateKey);
    deletes.add(new PlannedDelete(state, DeleteRole.STATE_FILE));
    return new PlannedRecord(Action.DELETE_RECORD, state, deletes);
  }

  private static byte[] dueDocument(List<String> files) {
    StringBuilder json = new StringBuilder("{\"status\": \"deleted\", \"delete\": true, \"files\": [");
    for (int i = 0; i < files.size(); i++) {
      json.append(i == 0 ? "\"" : ", \"").append(files.get(i)).append('"');
    }
    return json.append("], \"delete_files\": []}").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] content(String key) {
    return ("the bytes of " + key + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** The verification-to-delete figures of the window's deleted records, as the metrics JSON gives them. */
  private static void report(String run, List<ExecutionOutcome> outcomes) {
    long[] millis = outcomes.stream().map(ExecutionOutcome::verifiedToDeleted).filter(Objects::nonNull)
        .mapToLong(Duration::toMillis).sorted().toArray();
    if (millis.length > 0) {
      System.out.printf("verified to last delete, %s, %d records: p50 %d ms, p99 %d ms, max %d ms%n", run,
          millis.length, millis[(millis.length - 1) / 2], millis[(int) Math.ceil(0.99 * millis.length) - 1],
          millis[millis.length - 1]);
    }
  }
}
