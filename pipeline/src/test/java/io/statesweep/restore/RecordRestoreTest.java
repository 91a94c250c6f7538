package io.statesweep.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.LogLine;
import io.statesweep.store.MemoryObjectStore;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which deletes a restore takes back, in which order (pipeline/README.md, "Undoing a run"), without a store: each key
 * once, by its newest delete; a record's files in key order, its state file last; a key deleted without a recorded
 * marker is named and left alone, and so is every key on a store that keeps no versions. The restores themselves run
 * against a versioned S3Proxy bucket: {@code spark/RestoreTest}.
 */
class RecordRestoreTest {
  private static final String STATE = "cogram/projects/p1/documents/d1/state.json";
  private static final String FILE = "cogram/projects/p1/documents/d1/a.pdf";
  private static final String OTHER = "cogram/projects/p1/documents/d1/b.pdf";
  private static final Instant T = Instant.parse("2026-12-01T06:00:00Z");

  private static Deletion deleted(String attempt, String key, String marker, Instant at) {
    return new Deletion("run", attempt, STATE, key, key.equals(STATE) ? "state_file" : "file", marker, null, at, null, null);
  }

  @Test
  void eachKeyOnceByItsNewestDeleteTheFilesInKeyOrderAndTheStateFileLast() {
    List<Deletion> ordered = RecordRestore.toRestore(List.of(
        deleted("20261201T060000Z-aaaaaa", STATE, "m-state", T),
        deleted("20261201T060000Z-aaaaaa", OTHER, "m-old", T),
        deleted("20261201T060000Z-aaaaaa", FILE, "m-file", T),
        deleted("20261201T070000Z-bbbbbb", OTHER, "m-new", T.plusSeconds(3600)),
        deleted("20261201T070000Z-bbbbbb", OTHER, "m-new", T.plusSeconds(3600))));

    assertThat(ordered).extracting(Deletion::key).containsExactly(FILE, OTHER, STATE);
    assertThat(ordered).extracting(Deletion::deleteMarker).containsExactly("m-file", "m-new", "m-state");
  }

  @Test
  void aKeyDeletedWithoutARecordedMarkerIsNamedAndLeftAloneAndSoIsEveryKeyOfAStoreWithoutVersions() {
    RecordRestore restore = new RecordRestore(new MemoryObjectStore("b"), false);

    List<KeyRestoration> done = restore.restore(List.of(deleted("a", FILE, null, null), deleted("a", STATE, "m", T)));

    assertThat(done).extracting(KeyRestoration::status).containsExactly(RestoreStatus.NOT_RESTORED,
        RestoreStatus.NOT_RESTORED);
    assertThat(done.get(0).line(false)).isEqualTo(LogLine.left(FILE, "run run (attempt a) deleted it but recorded no"
        + " delete marker of that delete (the bucket kept no versions then, or its task stopped before it recorded"
        + " the store's answer): statesweep never guesses which marker is its own, so it stays deleted"));
    assertThat(done.get(1).detail()).as("never a state file without its files").startsWith("stays deleted, since a"
        + " file of its record is not restored (" + FILE + ": run run (attempt a) deleted it but recorded no delete");
    assertThat(done).noneMatch(KeyRestoration::failed);
    assertThat(restore.restore(List.of(deleted("a", STATE, "m", T)))).extracting(KeyRestoration::detail)
        .containsExactly("the store keeps no versions");
  }

  @Test
  void theLinesOfARestoredKey() {
    Deletion file = deleted("a", "cogram/x\ny.pdf", "m1", T);

    assertThat(new KeyRestoration(file, RestoreStatus.RESTORED, null, null, false).line(true).text())
        .isEqualTo("would restore cogram/x\\ny.pdf: removes delete marker m1 of run run");
    assertThat(new KeyRestoration(file, RestoreStatus.RESTORED, "v7", null, false).line(false).text())
        .isEqualTo("restored cogram/x\\ny.pdf: removed delete marker m1 of run run; version v7 is current");
  }
}
