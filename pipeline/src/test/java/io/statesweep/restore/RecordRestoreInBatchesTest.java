package io.statesweep.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A record's files restored in batches (pipeline/README.md, "Undoing a run"), on a versioned bucket of the S3Proxy the
 * tests share, with batches, pages and walks made small so that a few keys cross all their edges: every file gets the
 * answer it gets restored alone (written since, deleted again, other bytes behind the marker, no recorded marker,
 * several versions, a name that cannot travel in XML, another record's files between them), with a fraction of the
 * requests; a walk that meets more of other records' keys than its budget leaves the keys it did not reach to be
 * restored one at a time. Never a state file without its files: a record one of whose files is not restored keeps its
 * state file deleted, until a restore brings the file back.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecordRestoreInBatchesTest {
  private static final String BUCKET = "restore-batches";
  private static final Instant T = Instant.parse("2026-12-01T06:00:00Z");

  private LocalS3Server server;

  @BeforeAll
  void versionedBucket(LocalS3Server server) {
    this.server = server;
    server.createBucket(BUCKET);
    server.enableVersioning(BUCKET);
  }

  /** A new store of the bucket: its request counts are its own. */
  private S3ObjectStore store() {
    return S3ObjectStore.open(server.s3Settings(), BUCKET);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A record's keys written (content: the key), then deleted by "run" with their ETags: key to its deletion. */
  private static Map<String, Deletion> deleteRecord(ObjectStore store, String stateFile, List<String> files) {
    Map<String, String> etags = new LinkedHashMap<>();
    for (String key : files) {
      etags.put(key, store.write(key, bytes(key)));
    }
    etags.put(stateFile, store.write(stateFile, bytes("{}")));
    List<DeleteTarget> targets = new ArrayList<>();
    etags.forEach((key, etag) -> targets.add(new DeleteTarget(key, etag)));
    Map<String, String> markers = store.delete(targets).markers();
    Map<String, Deletion> deletions = new LinkedHashMap<>();
    etags.forEach((key, etag) -> deletions.put(key, new Deletion("run", "20261201T060000Z-aaaaaa", stateFile, key,
        key.equals(stateFile) ? Deletion.STATE_FILE : "file", markers.get(key), etag, T, null, null)));
    return deletions;
  }

  private static List<String> answers(List<KeyRestoration> done) {
    return done.stream().map(d -> d.deletion().key() + " " + d.status().label() + " " + d.detail()).toList();
  }

  @Test
  void eachFileGetsTheAnswerItGetsAloneWithAFractionOfTheRequests() {
    ObjectStore setup = store();
    String folder = "batches/p1/d1/";
    List<String> files = new ArrayList<>();
    for (int i = 0; i < 23; i++) {
      files.add(folder + String.format("f%02d.pdf", i));
    }
    String hostile = folder + "f05\n.pdf";
    files.add(hostile);
    setup.write(folder + "f01.pdf", bytes("an older version"));
    setup.write(folder + "f10-other-record.pdf", bytes("another record's file between them"));
    Map<String, Deletion> deletions = deleteRecord(setup, folder + "state.json", files);
    String writtenSince = folder + "f03.pdf";
    String deletedAgain = folder + "f07.pdf";
    String noMarker = folder + "f11.pdf";
    String otherBytes = folder + "f17.pdf";
    setup.write(writtenSince, bytes("written after the run"));
    setup.delete(List.of(new DeleteTarget(deletedAgain, null)));
    deletions.computeIfPresent(noMarker, (key, d) -> new Deletion(d.runId(), d.attemptId(), d.stateFileKey(), key,
        d.role(), null, d.etag(), d.deletedAt(), null, null));
    deletions.computeIfPresent(otherBytes, (key, d) -> new Deletion(d.runId(), d.attemptId(), d.stateFileKey(), key,
        d.role(), d.deleteMarker(), "0123456789abcdef0123456789abcdef", d.deletedAt(), null, null));

    RecordRestore aloneDryRun = new RecordRestore(setup, true);
    List<KeyRestoration> alone = RecordRestore.toRestore(deletions.values()).stream().map(aloneDryRun::restoreKey)
        .toList();
    // Pages of three entries end within keys' versions; the restore's own pages hold a batch each.
    List<KeyRestoration> batchedDryRun = new RecordRestore(setup, true, 5, 3, 100).restore(deletions.values());
    S3ObjectStore counted = store();
    List<KeyRestoration> restored = new RecordRestore(counted, false, 5, 1000, 100).restore(deletions.values());

    int fileCount = files.size();
    assertThat(answers(batchedDryRun).subList(0, fileCount)).isEqualTo(answers(alone).subList(0, fileCount));
    assertThat(answers(restored).subList(0, fileCount)).isEqualTo(answers(alone).subList(0, fileCount));
    KeyRestoration stateFile = restored.get(fileCount);
    assertThat(stateFile.detail()).as("never a state file without its files").startsWith(
        "stays deleted, since 3 files of its record are not restored (" + deletedAgain + ": its latest version is");
    assertThat(batchedDryRun.get(fileCount).detail()).startsWith("would stay deleted, since 3 files of its record"
        + " would not be restored (");
    Map<String, RestoreStatus> status = new LinkedHashMap<>();
    restored.forEach(done -> status.put(done.deletion().key(), done.status()));
    assertThat(status.keySet()).as("the files in S3's key order, the state file last").containsExactlyElementsOf(
        RecordRestore.toRestore(deletions.values()).stream().map(Deletion::key).toList());
    assertThat(status).containsEntry(writtenSince, RestoreStatus.WRITTEN_SINCE)
        .containsEntry(deletedAgain, RestoreStatus.NOT_RESTORED).containsEntry(noMarker, RestoreStatus.NOT_RESTORED)
        .containsEntry(otherBytes, RestoreStatus.NOT_RESTORED)
        .containsEntry(folder + "state.json", RestoreStatus.NOT_RESTORED);
    assertThat(status.values().stream().filter(s -> s == RestoreStatus.RESTORED).count()).isEqualTo(24 - 4);
    for (KeyRestoration done : restored) {
      String key = done.deletion().key();
      if (done.status() == RestoreStatus.RESTORED) {
        assertThat(setup.read(key, 1000).bytes()).as(key).asString(StandardCharsets.UTF_8)
            .isEqualTo(key.endsWith("state.json") ? "{}" : key);
        assertThat(done.versionMadeCurrent()).as(key).isEqualTo(setup.latestVersion(key).versionId());
      }
      assertThat(done.failed()).as(key).isFalse();
    }
    assertThat(setup.read(writtenSince, 1000).bytes()).asString(StandardCharsets.UTF_8)
        .isEqualTo("written after the run");
    assertThat(setup.read(deletedAgain, 1000)).isNull();
    assertThat(setup.read(noMarker, 1000)).isNull();
    assertThat(setup.read(otherBytes, 1000)).isNull();
    Map<String, Long> calls = counted.requestCounts().calls();
    assertThat(calls.get("DeleteObjects")).as("one per batch of 5 files: %s", calls).isEqualTo(5);
    assertThat(calls.get("DeleteObject")).as("the hostile name's alone: %s", calls).isEqualTo(1);
    assertThat(calls.get("ListObjectVersions")).as("a walk before and one after each batch's removal: %s", calls)
        .isEqualTo(5 * 2);
  }

  /**
   * A store that refuses to remove the marker of {@code refused}, as S3 answers a 503 past the SDK's retries or an
   * AccessDenied: the one key's removal fails, alone or in a DeleteObjects; everything else goes to the bucket.
   */
  private static ObjectStore refusing(ObjectStore store, String refused) {
    return (ObjectStore) java.lang.reflect.Proxy.newProxyInstance(ObjectStore.class.getClassLoader(),
        new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("removeMarkerIfLatest") && args[0].equals(refused)) {
            return io.statesweep.store.MarkerRemoval.notRestored(io.statesweep.store.MarkerRemoval.FAILED + args[1]
                + ": Access Denied (AccessDenied)");
          }
          if (method.getName().equals("deleteVersions")) {
            Map<String, String> versions = new LinkedHashMap<>(castVersions(args[0]));
            boolean refuse = versions.remove(refused) != null;
            io.statesweep.store.DeleteResult result = store.deleteVersions(versions);
            if (!refuse) {
              return result;
            }
            Map<String, io.statesweep.store.DeleteResult.KeyError> errors = new LinkedHashMap<>(result.errors());
            errors.put(refused, new io.statesweep.store.DeleteResult.KeyError("AccessDenied", "Access Denied"));
            return new io.statesweep.store.DeleteResult(result.deleted(), errors);
          }
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> castVersions(Object versions) {
    return (Map<String, String>) versions;
  }

  @Test
  void aRecordOneOfWhoseFilesIsNotRestoredKeepsItsStateFileDeletedUntilARestoreBringsItBack() {
    ObjectStore setup = store();
    String batched = "kept/p1/d1/";
    String alone = "kept/p1/d2/";
    Map<String, Deletion> inBatches = deleteRecord(setup, batched + "state.json",
        List.of(batched + "a.pdf", batched + "b.pdf", batched + "c.pdf", batched + "d.pdf", batched + "e.pdf"));
    Map<String, Deletion> oneAtATime = deleteRecord(setup, alone + "state.json", List.of(alone + "a.pdf",
        alone + "b.pdf"));

    List<KeyRestoration> dryRun = new RecordRestore(refusing(setup, batched + "c.pdf"), true, 5, 1000, 100)
        .restore(inBatches.values());
    List<KeyRestoration> first = new RecordRestore(refusing(setup, batched + "c.pdf"), false, 5, 1000, 100)
        .restore(inBatches.values());
    List<KeyRestoration> firstAlone = new RecordRestore(refusing(setup, alone + "b.pdf"), false, 5, 1000, 100)
        .restore(oneAtATime.values());

    assertThat(dryRun).extracting(KeyRestoration::status).as("a dry run cannot know a removal will fail")
        .containsOnly(RestoreStatus.RESTORED);
    for (List<KeyRestoration> done : List.of(first, firstAlone)) {
      KeyRestoration refused = done.stream().filter(KeyRestoration::failed).findFirst().orElseThrow();
      KeyRestoration stateFile = done.get(done.size() - 1);
      assertThat(done.stream().filter(KeyRestoration::failed)).as("only the refused file failed").hasSize(1);
      assertThat(stateFile.deletion().isStateFile()).isTrue();
      assertThat(stateFile.status()).isEqualTo(RestoreStatus.NOT_RESTORED);
      assertThat(stateFile.failed()).as("the refused file's row carries the failure").isFalse();
      assertThat(stateFile.detail()).isEqualTo("stays deleted, since a file of its record is not restored ("
          + refused.deletion().key() + ": " + refused.detail() + "), and a state file without its files would have the"
          + " next plan delete the record without them, or report them missing; once its files are back (or known"
          + " lost), restore this record again: restore --run-id run --record " + stateFile.deletion().key()
          + " --execute");
      assertThat(setup.read(stateFile.deletion().key(), 100)).as("never a state file without its files").isNull();
      assertThat(setup.read(refused.deletion().key(), 100)).isNull();
    }
    assertThat(setup.read(batched + "d.pdf", 100).bytes()).asString(StandardCharsets.UTF_8)
        .isEqualTo(batched + "d.pdf");

    List<KeyRestoration> again = new RecordRestore(setup, false, 5, 1000, 100).restore(inBatches.values());
    List<KeyRestoration> againAlone = new RecordRestore(setup, false).restore(oneAtATime.values());

    assertThat(again).extracting(done -> done.deletion().key() + " " + done.status().label()).contains(
        batched + "c.pdf restored", batched + "state.json restored");
    assertThat(againAlone).extracting(done -> done.deletion().key() + " " + done.status().label()).contains(
        alone + "b.pdf restored", alone + "state.json restored");
    assertThat(setup.read(batched + "state.json", 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("{}");
    assertThat(setup.read(alone + "b.pdf", 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo(alone + "b.pdf");
  }

  /**
   * Deletes sent and never answered on the record (their task stopped between the two: no marker recorded), the
   * window they were sent in known (pipeline/README.md, "Undoing a run"): a key whose latest version is a delete marker
   * written in that window, directly above the version with the ETag deleted, is restored by removing it, and the
   * restore names that marker; a marker written outside the window, one above other bytes, and a key written since are
   * left, each saying why, and the state file of their record stays deleted; without a window nothing is guessed.
   */
  @Test
  void aDeleteNeverAnsweredOnTheRecordIsRestoredWhereItsMarkerIsProvenAndLeftWhereNot() {
    ObjectStore setup = store();
    String proven = "unanswered/p1/d1/";
    String mixed = "unanswered/p1/d2/";
    Instant sentAfter = Instant.now().minusSeconds(1);
    Map<String, Deletion> all = deleteRecord(setup, proven + "state.json", List.of(proven + "a.pdf", proven + "b.pdf",
        proven + "c.pdf", proven + "d.pdf", proven + "e.pdf"));
    Map<String, Deletion> some = deleteRecord(setup, mixed + "state.json", List.of(mixed + "a.pdf", mixed + "b.pdf",
        mixed + "c.pdf", mixed + "d.pdf"));
    Instant sentBefore = Instant.now().plusSeconds(1);
    setup.write(mixed + "c.pdf", bytes("written after the run"));
    java.util.function.Function<Deletion, Deletion> unanswered = d -> new Deletion(d.runId(), d.attemptId(),
        d.stateFileKey(), d.key(), d.role(), null, d.etag(), null, null, null, sentAfter, sentBefore);
    List<Deletion> provenDeletes = all.values().stream().map(unanswered).toList();
    List<Deletion> mixedDeletes = new ArrayList<>(some.values().stream().map(unanswered).toList());
    mixedDeletes.replaceAll(d -> d.key().endsWith("a.pdf") ? new Deletion(d.runId(), d.attemptId(), d.stateFileKey(),
        d.key(), d.role(), null, d.etag(), null, null, null, T, T.plusSeconds(60))
        : d.key().endsWith("b.pdf") ? new Deletion(d.runId(), d.attemptId(), d.stateFileKey(), d.key(), d.role(), null,
        "0123456789abcdef0123456789abcdef", null, null, null, sentAfter, sentBefore)
        : d.key().endsWith("d.pdf") ? new Deletion(d.runId(), d.attemptId(), d.stateFileKey(), d.key(), d.role(), null,
        d.etag(), null, null, null) : d);

    List<KeyRestoration> dryRun = new RecordRestore(setup, true, 5, 1000, 100).restore(provenDeletes);
    List<KeyRestoration> restored = new RecordRestore(setup, false, 5, 1000, 100).restore(provenDeletes);
    List<KeyRestoration> left = new RecordRestore(setup, false, 5, 1000, 100).restore(mixedDeletes);

    assertThat(dryRun).extracting(KeyRestoration::status).containsOnly(RestoreStatus.RESTORED);
    assertThat(restored).extracting(KeyRestoration::status).containsOnly(RestoreStatus.RESTORED);
    for (KeyRestoration done : restored) {
      String key = done.deletion().key();
      assertThat(done.deletion().deleteMarker()).as("the restore names the marker it proved: %s", key)
          .isEqualTo(all.get(key).deleteMarker());
      assertThat(setup.read(key, 1000).bytes()).as(key).asString(StandardCharsets.UTF_8)
          .isEqualTo(key.endsWith("state.json") ? "{}" : key);
    }
    Map<String, String> why = new LinkedHashMap<>();
    left.forEach(done -> why.put(done.deletion().key(), done.status().label() + ": " + done.detail()));
    assertThat(why.get(mixed + "a.pdf")).startsWith("not_restored: its delete was sent but its answer never recorded"
        + " (its task stopped between the two), and its latest version, delete marker "
        + some.get(mixed + "a.pdf").deleteMarker() + " written at ").endsWith(", lies outside the window it was sent"
        + " in (2026-12-01T06:00:00Z to 2026-12-01T06:01:00Z): it cannot be proven statesweep's, so it stays deleted");
    assertThat(why.get(mixed + "b.pdf")).startsWith("not_restored: the version behind its delete marker");
    assertThat(why.get(mixed + "c.pdf")).startsWith("written_since: ");
    assertThat(why.get(mixed + "d.pdf")).startsWith("not_restored: run run (attempt 20261201T060000Z-aaaaaa) deleted"
        + " it but recorded no delete marker");
    assertThat(why.get(mixed + "state.json")).startsWith("not_restored: stays deleted, since 3 files of its record are"
        + " not restored (" + mixed + "a.pdf: its delete was sent");
    for (String key : List.of(mixed + "a.pdf", mixed + "b.pdf", mixed + "d.pdf", mixed + "state.json")) {
      assertThat(setup.read(key, 100)).as(key).isNull();
    }
  }

  /**
   * Keys whose UTF-16 order is not S3's (a character above U+FFFF sorts after U+FF61 in UTF-8, before it in UTF-16):
   * the batch walks them in S3's order and reaches every one.
   */
  @Test
  void keysBeyondTheBasicPlaneAreWalkedInS3sOrder() {
    ObjectStore setup = store();
    String folder = "unicode/p1/d1/";
    List<String> files = List.of(folder + "a\uFF61.pdf", folder + "a\uD83D\uDE00.pdf", folder + "a\u00E9.pdf",
        folder + "a.pdf");
    Map<String, Deletion> deletions = deleteRecord(setup, folder + "state.json", files);

    List<KeyRestoration> restored = new RecordRestore(setup, false, 5, 1000, 100).restore(deletions.values());

    assertThat(restored).extracting(done -> done.deletion().key()).containsExactly(folder + "a.pdf",
        folder + "a\u00E9.pdf", folder + "a\uFF61.pdf", folder + "a\uD83D\uDE00.pdf", folder + "state.json");
    assertThat(restored).extracting(KeyRestoration::status).containsOnly(RestoreStatus.RESTORED);
    for (String key : files) {
      assertThat(setup.read(key, 1000).bytes()).as(key).asString(StandardCharsets.UTF_8).isEqualTo(key);
    }
  }

  @Test
  void markersOfIdNullAreLeftInABatchAsAlone() {
    String suspended = server.createBucket("restore-batches-suspended");
    server.enableVersioning(suspended);
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), suspended);
    String folder = "suspended/p1/d1/";
    List<String> files = List.of(folder + "a.pdf", folder + "b.pdf", folder + "c.pdf", folder + "d.pdf");
    files.forEach(key -> store.write(key, bytes(key)));
    server.suspendVersioning(suspended);
    Map<String, Deletion> deletions = deleteRecord(store, folder + "state.json", files);

    List<KeyRestoration> restored = new RecordRestore(store, false, 5, 1000, 100).restore(deletions.values());

    assertThat(deletions.values()).extracting(Deletion::deleteMarker).containsOnly("null");
    assertThat(restored).extracting(KeyRestoration::status).containsOnly(RestoreStatus.NOT_RESTORED);
    assertThat(restored.subList(0, files.size())).allSatisfy(done -> assertThat(done.detail()).startsWith(
        "its delete marker has the id null (versioning was suspended when it was deleted)"));
    for (String key : files) {
      assertThat(store.read(key, 100)).as("%s stays deleted", key).isNull();
    }
  }

  @Test
  void aWalkThatMeetsMoreOtherKeysThanItsBudgetLeavesTheKeysItDidNotReachToOneAtATime() {
    ObjectStore setup = store();
    String folder = "budget/p1/d1/";
    List<String> files = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      files.add(folder + "f" + i + ".pdf");
    }
    for (int i = 0; i < 12; i++) {
      setup.write(folder + "f2-other" + String.format("%02d", i) + ".pdf", bytes("another record's file"));
    }
    Map<String, Deletion> deletions = deleteRecord(setup, folder + "state.json", files);
    S3ObjectStore counted = store();

    List<KeyRestoration> restored = new RecordRestore(counted, false, 8, 4, 1).restore(deletions.values());

    assertThat(restored).extracting(KeyRestoration::status).containsOnly(RestoreStatus.RESTORED).hasSize(9);
    for (String key : files) {
      assertThat(setup.read(key, 1000).bytes()).as(key).asString(StandardCharsets.UTF_8).isEqualTo(key);
    }
    // The walk's budget, 8 entries, is spent on its third page, among the other record's files before f2.pdf: f0
    // and f1 are removed together, f2 to f7 one at a time, then the state file.
    Map<String, Long> calls = counted.requestCounts().calls();
    assertThat(calls.get("DeleteObjects")).as("%s", calls).isEqualTo(1);
    assertThat(calls.get("DeleteObject")).as("%s", calls).isEqualTo(6 + 1);
  }
}
