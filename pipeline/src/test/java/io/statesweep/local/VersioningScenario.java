package io.statesweep.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Error;

/**
 * What S3 documents of a versioned bucket, asked of a test server before any test of statesweep trusts it with
 * versions: a server that answered a delete marker's id wrongly would let a test of "remove our own marker" pass while
 * it destroyed the data. A server class extends this with its server; every check is one test, so a report names
 * each deviation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class VersioningScenario {
  private static final String BUCKET = "versioned-scenario";

  private S3Client s3;

  /** A client of the server under test, which this scenario closes. */
  protected abstract S3Client startServer();

  /** Stops the server under test. */
  protected abstract void stopServer();

  @BeforeAll
  void versionedBucket() {
    s3 = startServer();
    s3.createBucket(b -> b.bucket(BUCKET));
    s3.putBucketVersioning(b -> b.bucket(BUCKET).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
  }

  @AfterAll
  void close() {
    if (s3 != null) {
      s3.close();
    }
    stopServer();
  }

  private static String fresh(String name) {
    return "scenario/" + UUID.randomUUID() + "/" + name;
  }

  private PutObjectResponse put(String key, String text) {
    return s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString(text, StandardCharsets.UTF_8));
  }

  private String read(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String();
  }

  private ListObjectVersionsResponse versions(String key) {
    return s3.listObjectVersions(b -> b.bucket(BUCKET).prefix(key));
  }

  private boolean listed(String key) {
    return s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(key)).contents().stream().anyMatch(o -> o.key().equals(key));
  }

  @Test
  void theBucketSaysItIsVersioned() {
    assertThat(s3.getBucketVersioning(b -> b.bucket(BUCKET)).status()).isEqualTo(BucketVersioningStatus.ENABLED);
  }

  @Test
  void twoPutsOfTheSameBytesAreTwoVersionsWithOneEtag() {
    String key = fresh("same.json");
    PutObjectResponse first = put(key, "{}");
    PutObjectResponse second = put(key, "{}");

    assertThat(first.versionId()).isNotBlank().isNotEqualTo(second.versionId());
    assertThat(second.versionId()).isNotBlank();
    assertThat(first.eTag()).isEqualTo(second.eTag());
  }

  @Test
  void aConditionalDeleteOfManyKeysWritesAMarkerAndNamesIt() {
    String key = fresh("file.txt");
    PutObjectResponse v1 = put(key, "one");
    PutObjectResponse v2 = put(key, "two");

    DeleteObjectsResponse answer = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.quiet(false)
        .objects(ObjectIdentifier.builder().key(key).eTag(v2.eTag()).build())));

    assertThat(answer.errors()).isEmpty();
    DeletedObject deleted = answer.deleted().get(0);
    assertThat(deleted.key()).isEqualTo(key);
    assertThat(deleted.deleteMarker()).as("DeleteMarker").isTrue();
    assertThat(deleted.deleteMarkerVersionId()).as("DeleteMarkerVersionId").isNotBlank()
        .isNotIn(v1.versionId(), v2.versionId());
    assertThatThrownBy(() -> read(key)).isInstanceOf(NoSuchKeyException.class);
    assertThat(listed(key)).as("ListObjectsV2 shows a key whose latest version is a marker").isFalse();
    ListObjectVersionsResponse versions = versions(key);
    assertThat(versions.versions()).extracting(ObjectVersion::versionId)
        .containsExactlyInAnyOrder(v1.versionId(), v2.versionId());
    assertThat(versions.versions()).noneMatch(ObjectVersion::isLatest);
    assertThat(versions.deleteMarkers()).singleElement().satisfies(marker -> {
      assertThat(marker.versionId()).isEqualTo(deleted.deleteMarkerVersionId());
      assertThat(marker.isLatest()).isTrue();
    });
  }

  @Test
  void removingTheMarkerMakesThePreviousVersionCurrent() {
    String key = fresh("file.txt");
    put(key, "one");
    PutObjectResponse v2 = put(key, "two");
    String marker = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.quiet(false)
        .objects(ObjectIdentifier.builder().key(key).build()))).deleted().get(0).deleteMarkerVersionId();

    DeleteObjectResponse removed = s3.deleteObject(b -> b.bucket(BUCKET).key(key).versionId(marker));

    assertThat(removed.versionId()).isEqualTo(marker);
    assertThat(read(key)).isEqualTo("two");
    assertThat(listed(key)).isTrue();
    assertThat(versions(key).versions()).filteredOn(ObjectVersion::isLatest).singleElement()
        .extracting(ObjectVersion::versionId).isEqualTo(v2.versionId());
    assertThat(versions(key).deleteMarkers()).isEmpty();
  }

  @Test
  void aStaleEtagDeletesNothingAndSaysPreconditionFailed() {
    String key = fresh("file.txt");
    PutObjectResponse v1 = put(key, "one");
    put(key, "two");

    DeleteObjectsResponse answer = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.quiet(false)
        .objects(ObjectIdentifier.builder().key(key).eTag(v1.eTag()).build())));

    assertThat(answer.deleted()).isEmpty();
    assertThat(answer.errors()).extracting(S3Error::key, S3Error::code).containsExactly(
        org.assertj.core.groups.Tuple.tuple(key, "PreconditionFailed"));
    assertThat(read(key)).isEqualTo("two");
    assertThat(versions(key).deleteMarkers()).isEmpty();
  }

  @Test
  void deletingAVersionRemovesItForGoodAndTheOneBeforeIsCurrent() {
    String key = fresh("file.txt");
    put(key, "one");
    PutObjectResponse v2 = put(key, "two");

    s3.deleteObject(b -> b.bucket(BUCKET).key(key).versionId(v2.versionId()));

    assertThat(read(key)).isEqualTo("one");
    assertThat(versions(key).versions()).extracting(ObjectVersion::versionId).doesNotContain(v2.versionId());
    assertThat(versions(key).deleteMarkers()).isEmpty();
  }

  @Test
  void aPlainDeleteAnswersItsMarkersId() {
    String key = fresh("file.txt");
    PutObjectResponse v1 = put(key, "one");

    DeleteObjectResponse answer = s3.deleteObject(b -> b.bucket(BUCKET).key(key));

    assertThat(answer.deleteMarker()).as("x-amz-delete-marker").isTrue();
    assertThat(answer.versionId()).as("x-amz-version-id").isNotBlank().isNotEqualTo(v1.versionId());
    assertThat(versions(key).deleteMarkers()).extracting(DeleteMarkerEntry::versionId)
        .containsExactly(answer.versionId());
  }

  @Test
  void aSuspendedBucketWritesNullVersionsAndANullMarker() {
    String bucket = "suspended-scenario";
    s3.createBucket(b -> b.bucket(bucket));
    s3.putBucketVersioning(b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
    String key = fresh("file.txt");
    PutObjectResponse kept = s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("versioned"));
    s3.putBucketVersioning(b -> b.bucket(bucket)
        .versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED)));

    PutObjectResponse put = s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("suspended"));
    DeleteObjectResponse deleted = s3.deleteObject(b -> b.bucket(bucket).key(key));

    assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isEqualTo(BucketVersioningStatus.SUSPENDED);
    assertThat(put.versionId()).as("a PUT while suspended").isIn(null, "null");
    assertThat(deleted.deleteMarker()).isTrue();
    assertThat(deleted.versionId()).as("the marker of a delete while suspended").isIn(null, "null");
    ListObjectVersionsResponse versions = s3.listObjectVersions(b -> b.bucket(bucket).prefix(key));
    // The null version the PUT wrote is replaced by the null marker; the version from before stays.
    assertThat(versions.versions()).extracting(ObjectVersion::versionId).containsExactly(kept.versionId());
    assertThat(versions.deleteMarkers()).singleElement().satisfies(marker -> {
      assertThat(marker.versionId()).isEqualTo("null");
      assertThat(marker.isLatest()).isTrue();
    });
  }

  @Test
  void listingVersionsPagesThroughEveryEntryOnce() {
    String prefix = fresh("");
    Set<String> written = new HashSet<>();
    for (int k = 0; k < 3; k++) {
      String key = prefix + "k" + k;
      for (int v = 0; v < 3; v++) {
        written.add(key + "@" + put(key, "v" + v).versionId());
      }
      written.add(key + "@" + s3.deleteObject(b -> b.bucket(BUCKET).key(key)).versionId());
    }

    List<String> seen = new ArrayList<>();
    String keyMarker = null;
    String versionMarker = null;
    for (int page = 0; page < 100; page++) {
      String km = keyMarker;
      String vm = versionMarker;
      ListObjectVersionsResponse answer = s3.listObjectVersions(b -> b.bucket(BUCKET).prefix(prefix).maxKeys(5)
          .keyMarker(km).versionIdMarker(vm));
      answer.versions().forEach(v -> seen.add(v.key() + "@" + v.versionId()));
      answer.deleteMarkers().forEach(m -> seen.add(m.key() + "@" + m.versionId()));
      if (!Boolean.TRUE.equals(answer.isTruncated())) {
        break;
      }
      keyMarker = answer.nextKeyMarker();
      versionMarker = answer.nextVersionIdMarker();
    }

    assertThat(seen).hasSize(12).doesNotHaveDuplicates();
    assertThat(new HashSet<>(seen)).isEqualTo(written);
  }
}
