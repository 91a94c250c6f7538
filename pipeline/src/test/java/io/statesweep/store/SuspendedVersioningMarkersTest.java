package io.statesweep.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * statesweep's delete markers on a bucket whose versioning is suspended, as S3 documents it (pipeline/README.md,
 * "Versioned buckets"): a delete writes a marker with the version id {@code null} and removes the {@code null} version
 * for good; a write since gives its version the id {@code null} too, and so does another delete's marker. So a {@code
 * null} marker is never removed: it cannot be proven statesweep's, and a removal after a look could destroy a write
 * made between the two. A write since is the file there again; the line says how to bring back a version behind the
 * marker. On the versioned S3Proxy, which passes the versioning scenario ({@code local/VersioningScenario}).
 */
@ExtendWith(S3ServerExtension.class)
class SuspendedVersioningMarkersTest {
  private static final String BUCKET = "markers-suspended";

  @Test
  void aMarkerWrittenWhileSuspendedIsNeverRemovedAndAWriteSinceIsLeftAsItIs(LocalS3Server server) {
    server.createBucket(BUCKET);
    server.enableVersioning(BUCKET);
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    String enabledEra = "suspended/kept.pdf";
    String overwritten = "suspended/overwritten.pdf";
    String onlyNull = "suspended/only-null.pdf";
    String writtenBetween = "suspended/written-between.pdf";
    String keptEtag = store.write(enabledEra, bytes("written while enabled"));
    store.write(overwritten, bytes("old bytes, written while enabled"));
    String versionedEtag = store.write(writtenBetween, bytes("written while enabled"));
    server.suspendVersioning(BUCKET);
    String newEtag = store.write(overwritten, bytes("new bytes, the null version"));
    String nullEtag = store.write(onlyNull, bytes("only a null version"));

    DeleteResult deleted = store.delete(List.of(new DeleteTarget(enabledEra, keptEtag),
        new DeleteTarget(overwritten, newEtag), new DeleteTarget(onlyNull, nullEtag),
        new DeleteTarget(writtenBetween, versionedEtag)));
    // The exporter uploads the file again after the delete: its version takes the null marker's place and id.
    String rewrittenEtag = store.write(writtenBetween, bytes("uploaded again after the delete"));

    assertThat(deleted.markers()).containsOnlyKeys(enabledEra, overwritten, onlyNull, writtenBetween)
        .allSatisfy((key, marker) -> assertThat(marker).isEqualTo("null"));
    MarkerRemoval behindIsTheDeleted = store.removeMarkerIfLatest(enabledEra, "null", keptEtag);
    MarkerRemoval older = store.removeMarkerIfLatest(overwritten, "null", newEtag);
    MarkerRemoval nothingBehind = store.removeMarkerIfLatest(onlyNull, "null", nullEtag);
    MarkerRemoval written = store.removeMarkerIfLatest(writtenBetween, "null", versionedEtag);

    for (MarkerRemoval left : List.of(behindIsTheDeleted, older, nothingBehind)) {
      assertThat(left.status()).isEqualTo(MarkerRemoval.Status.NOT_RESTORED);
      assertThat(left.detail()).startsWith("its delete marker has the id null (versioning was suspended when it was"
          + " deleted): a write since the delete would have that id too");
    }
    String behind = store.newestVersions(enabledEra, 2).get(1).versionId();
    assertThat(behindIsTheDeleted.detail()).endsWith("it stays deleted: to bring back the version behind the marker,"
        + " copy version " + behind + " (ETag " + keptEtag + ") onto the key once nothing else writes it");
    assertThat(nothingBehind.detail()).endsWith("it stays deleted (no version is behind the marker)");
    for (String key : List.of(enabledEra, overwritten, onlyNull)) {
      assertThat(store.read(key, 100)).as(key).isNull();
      assertThat(store.latestVersion(key).deleteMarker()).as("the marker of %s stays", key).isTrue();
    }
    // The write made after the delete is the file there again, untouched.
    assertThat(written.status()).isEqualTo(MarkerRemoval.Status.WRITTEN_SINCE);
    assertThat(store.read(writtenBetween, 100).object().etag()).isEqualTo(rewrittenEtag);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
