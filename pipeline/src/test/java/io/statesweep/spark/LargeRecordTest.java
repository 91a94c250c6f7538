package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record of any size is on the record (pipeline/README.md, "Every delete on the record"): a due record whose state
 * file lists 80,000 keys of 947 bytes (S3 takes 1,024), 76 MB of names, more than any one ledger object may hold, among
 * small due and live records. {@code run --execute} deletes every due key and records each in {@code executions}, the
 * live records stay, and the next {@code run --execute} goes on as usual; a leftover ledger object that cannot be read
 * is named and stays, and stops nothing.
 */
@Tag("slow")
class LargeRecordTest {
  private static final String PREFIX = "cogram/";
  private static final int LARGE_FILES = 80_000;
  private static final String LARGE_FOLDER = "projects/p1/documents/big/";
  /** A server of its own, whose heap holds the large record beside its state file. */
  private static LocalS3Server server;

  @BeforeAll
  static void startServer() {
    server = LocalS3Server.builder().maxHeap("2g").start().setCredentialSystemProperties();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  /** The i-th file of the large record: 947 bytes, in folders of 230 characters (what a store's disk takes). */
  private static String largeFile(int i) {
    String segment = "a".repeat(230);
    String key = LARGE_FOLDER + segment + "/" + segment.replace('a', 'b') + "/" + segment.replace('a', 'c') + "/"
        + "d".repeat(214) + String.format("/%06d", i);
    assertThat(PREFIX.length() + key.length()).isEqualTo(947);
    return key;
  }

  @Test
  void aDueRecordOf80000LongKeysIsDeletedAndRecordedWholeAndTheNextRunGoesOn(@TempDir Path warehouse)
      throws Exception {
    TestArchive archive = new TestArchive(server, "large-record", PREFIX);
    List<String> largeFiles = new ArrayList<>();
    for (int i = 0; i < LARGE_FILES; i++) {
      largeFiles.add(largeFile(i));
    }
    long uploading = System.nanoTime();
    ExecutorService uploads = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> written = new ArrayList<>();
      for (int from = 0; from < LARGE_FILES; from += 1_000) {
        List<String> slice = largeFiles.subList(from, Math.min(LARGE_FILES, from + 1_000));
        written.add(uploads.submit(() -> slice.forEach(key -> archive.put(key, "x"))));
      }
      for (Future<?> future : written) {
        future.get();
      }
    } finally {
      uploads.shutdown();
    }
    archive.put(LARGE_FOLDER + "state.json", archive.state(true, null, largeFiles, List.of()));
    Set<String> dueKeys = new TreeSet<>();
    largeFiles.forEach(key -> dueKeys.add(archive.key(key)));
    dueKeys.add(archive.key(LARGE_FOLDER + "state.json"));
    for (int record = 0; record < 5; record++) {
      String due = "projects/p2/documents/d" + record + "/";
      String live = "projects/p3/documents/l" + record + "/";
      List<String> dueFiles = List.of(due + "a.pdf", due + "b.pdf");
      List<String> liveFiles = List.of(live + "a.pdf", live + "b.pdf");
      dueFiles.forEach(key -> archive.put(key, "due"));
      liveFiles.forEach(key -> archive.put(key, "live"));
      archive.put(due + "state.json", archive.state(true, null, dueFiles, List.of()));
      archive.put(live + "state.json", archive.state(false, null, liveFiles, List.of()));
      dueFiles.forEach(key -> dueKeys.add(archive.key(key)));
      dueKeys.add(archive.key(due + "state.json"));
    }
    System.out.printf("large record: %,d files of 947 bytes and a state file of %,d bytes written in %.1f s%n",
        LARGE_FILES, archive.store().listedObject(archive.key(LARGE_FOLDER + "state.json")).size(),
        (System.nanoTime() - uploading) / 1e9);
    Set<String> before = TestArchive.keys(archive.store(), PREFIX);
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(dueKeys);
    TestOptions options = TestOptions.of(server.endpoint(), "large-record", PREFIX, warehouse)
        .with("--max-state-bytes", "134217728").with("--dry-run", "false");

    long running = System.nanoTime();
    PlanResult plan = TestActions.plan(SharedSpark.session(), options.options());
    assertThat(plan.failure()).isNull();
    ExecuteResult result = TestActions.executeOwnPlan(SharedSpark.session(), options.options(), plan);
    System.out.printf("large record: run --execute in %.1f s%n", (System.nanoTime() - running) / 1e9);

    assertThat(result.failure()).isNull();
    assertThat(result.summary().complete()).isTrue();
    assertThat(result.summary().errors()).isZero();
    assertThat(result.summary().recordsDeleted()).isEqualTo(6);
    assertThat(TestArchive.keys(archive.store(), PREFIX)).as("the due records are gone, the live ones stay")
        .isEqualTo(expectedLeft);
    TableReader tables = TableReader.of(result.tables());
    List<String> recorded = tables.executions().filter("attempt_id = '" + result.attemptId() + "'")
        .selectExpr("explode(deleted_keys)").as(Encoders.STRING()).collectAsList();
    assertThat(recorded).as("every key deleted is in executions, once").hasSize(dueKeys.size());
    assertThat(new TreeSet<>(recorded)).isEqualTo(dueKeys);
    Row large = tables.executions().filter("state_file_key = '" + archive.key(LARGE_FOLDER + "state.json") + "'")
        .selectExpr("outcome", "child_keys_deleted", "state_file_deleted", "size(deleted)", "length(message)").first();
    assertThat(large.getString(0)).isEqualTo("deleted");
    assertThat(large.getLong(1)).isEqualTo(LARGE_FILES);
    assertThat(large.getBoolean(2)).isTrue();
    assertThat(large.getInt(3)).isEqualTo(LARGE_FILES + 1);
    ObjectStore bucket = archive.store();
    assertThat(TestArchive.keys(bucket, "cogram.statesweep/journal/")).as("the ledger, recorded, is removed").isEmpty();

    // A leftover ledger object that cannot be read (a run of an older statesweep, a bit flipped) stops nothing.
    String unreadable = "cogram.statesweep/journal/20261201T060000Z-aaaaaa/20261201T060500Z-bbbbbb/p00000/"
        + "t1-w000001-intent-g0001-p00001.json";
    bucket.write(unreadable, "{\"version\":2, \"kind\":".getBytes(StandardCharsets.UTF_8));
    PlanResult nextPlan = TestActions.plan(SharedSpark.session(), options.options());
    ExecuteResult next = TestActions.executeOwnPlan(SharedSpark.session(), options.options(), nextPlan);

    assertThat(next.failure()).isNull();
    assertThat(next.summary().complete()).isTrue();
    assertThat(next.summary().errors()).isZero();
    assertThat(TestArchive.keys(archive.store(), PREFIX)).isEqualTo(expectedLeft);
    assertThat(TestArchive.keys(bucket, "cogram.statesweep/journal/")).as("named, and left for a person")
        .containsExactly(unreadable);
  }
}
