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
 * statesweep's delete markers on a bucket whose versioning is suspended, as S3 documents it (README, "Versioned
 * buckets"): a delete writes a marker with the version id {@code null} and removes the {@code null} version for good.
 * A marker goes only when the version behind it is the one deleted: never one that would bring back older bytes, nor
 * one that hides nothing. On S3Proxy, which passes the versioning scenario ({@code local/VersioningScenario}).
 */
@ExtendWith(S3ServerExtension.class)
class SuspendedVersioningMarkersTest {
  private static final String BUCKET = "markers-suspended";

  @Test
  void aMarkerWrittenWhileSuspendedGoesOnlyWhenTheVersionBehindItIsTheOneDeleted(LocalS3Server server) {
    server.createBucket(BUCKET);
    server.enableVersioning(BUCKET);
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    String enabledEra = "suspended/kept.pdf";
    String overwritten = "suspended/overwritten.pdf";
    String onlyNull = "suspended/only-null.pdf";
    String keptEtag = store.write(enabledEra, bytes("written while enabled"));
    String oldEtag = store.write(overwritten, bytes("old bytes, written while enabled"));
    server.suspendVersioning(BUCKET);
    String newEtag = store.write(overwritten, bytes("new bytes, the null version"));
    String nullEtag = store.write(onlyNull, bytes("only a null version"));

    DeleteResult deleted = store.delete(List.of(new DeleteTarget(enabledEra, keptEtag),
        new DeleteTarget(overwritten, newEtag), new DeleteTarget(onlyNull, nullEtag)));

    assertThat(deleted.markers()).containsOnlyKeys(enabledEra, overwritten, onlyNull)
        .allSatisfy((key, marker) -> assertThat(marker).isEqualTo("null"));
    MarkerRemoval older = store.removeMarkerIfLatest(overwritten, "null", newEtag);
    MarkerRemoval olderUnknown = store.removeMarkerIfLatest(overwritten, "null", null);
    MarkerRemoval nothingBehind = store.removeMarkerIfLatest(onlyNull, "null", nullEtag);
    MarkerRemoval restored = store.removeMarkerIfLatest(enabledEra, "null", keptEtag);

    // The null version deleted is gone for good: the version behind the marker has older bytes, and it stays hidden.
    assertThat(older.status()).isEqualTo(MarkerRemoval.Status.NOT_RESTORED);
    assertThat(older.detail()).contains(", ETag " + oldEtag + ") is not the one deleted (ETag " + newEtag + ")");
    assertThat(olderUnknown.status()).isEqualTo(MarkerRemoval.Status.NOT_RESTORED);
    assertThat(olderUnknown.detail()).startsWith("it was deleted while versioning was suspended and the ETag deleted"
        + " is not recorded");
    assertThat(store.read(overwritten, 100)).isNull();
    assertThat(store.latestVersion(overwritten).versionId()).isEqualTo("null");
    assertThat(nothingBehind.status()).isEqualTo(MarkerRemoval.Status.NOT_RESTORED);
    assertThat(nothingBehind.detail()).startsWith("no version is behind its delete marker");
    assertThat(store.latestVersion(onlyNull).deleteMarker()).as("the marker stays").isTrue();
    // A version written while versioning was enabled stays behind the null marker: removed, it is current again.
    assertThat(restored.status()).isEqualTo(MarkerRemoval.Status.RESTORED);
    assertThat(store.read(enabledEra, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("written while enabled");
    assertThat(restored.currentVersion()).isEqualTo(store.latestVersion(enabledEra).versionId()).isNotEqualTo("null");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
