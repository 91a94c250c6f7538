package io.statesweep.s3;

import static java.util.Objects.requireNonNull;

import io.statesweep.layout.Keys;
import io.statesweep.store.BucketVersioning;
import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.FolderListing;
import io.statesweep.store.ListingContinuation;
import io.statesweep.store.ListingDepth;
import io.statesweep.store.ListingPage;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.ObjectVersion;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The {@link ObjectStore} of an S3 bucket (or of a store that speaks S3): the one place that speaks to S3 for
 * object operations. SDK exceptions become {@link StoreException}s that name the operation and the key; every
 * request is counted ({@link #requestCounts()}).
 */
public final class S3ObjectStore implements ObjectStore {
  private static final int PAGE_SIZE = 1000;
  /** Reads of a GET's body, the first included, before a broken-off body is an error. */
  private static final int BODY_ATTEMPTS = 5;

  private final S3Client client;
  private final String bucket;
  private final RequestCounts counts = new RequestCounts();

  public S3ObjectStore(S3Client client, String bucket) {
    this.client = requireNonNull(client, "client is null");
    this.bucket = requireNonNull(bucket, "bucket is null");
  }

  /** The store of {@code bucket} with the settings' shared client ({@link S3Clients#shared}). */
  public static S3ObjectStore open(S3Settings s3, String bucket) {
    return new S3ObjectStore(S3Clients.shared(s3), bucket);
  }

  /** The requests this store made so far, by operation. */
  public RequestCounts requestCounts() {
    return counts;
  }

  private void counted(AwsRequestOverrideConfiguration.Builder override) {
    override.putExecutionAttribute(RequestCounts.ATTRIBUTE, counts);
  }

  @Override
  public String bucket() {
    return bucket;
  }

  /*
   * Listings page by continuation token: the SDK's paginator asks for the next page while the last one
   * carried a token, so an empty truncated page goes on; each page is also checked
   * (ListingContinuation), because the paginator would end quietly at a truncated page without a
   * token and loop forever on a token it was given before.
   */

  @Override
  public FolderListing listFolder(String folder) {
    List<String> folders = new ArrayList<>();
    List<StoredObject> objects = new ArrayList<>();
    levelPages(folder, page -> {
      for (CommonPrefix common : page.commonPrefixes()) {
        folders.add(common.prefix());
      }
      for (S3Object object : page.contents()) {
        objects.add(toStoredObject(object));
      }
    });
    return new FolderListing(folders, objects);
  }

  @Override
  public long listLevel(String folder, Consumer<String> subFolders) {
    long[] objects = {0};
    levelPages(folder, page -> {
      for (CommonPrefix common : page.commonPrefixes()) {
        subFolders.accept(common.prefix());
      }
      objects[0] += page.contents().size();
    });
    return objects[0];
  }

  private void levelPages(String folder, Consumer<ListObjectsV2Response> each) {
    ListObjectsV2Request request = ListObjectsV2Request.builder().overrideConfiguration(this::counted).encodingType(EncodingType.URL)
        .bucket(bucket).prefix(folder).delimiter("/").maxKeys(PAGE_SIZE).build();
    ListingContinuation continuation = continuation(folder);
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        continuation.next(Boolean.TRUE.equals(page.isTruncated()), page.nextContinuationToken());
        each.accept(page);
      }
    } catch (SdkException e) {
      throw translate("list", folder, e);
    }
  }

  @Override
  public void listAll(String prefix, Consumer<StoredObject> consumer) {
    ListObjectsV2Request request = ListObjectsV2Request.builder().overrideConfiguration(this::counted).encodingType(EncodingType.URL)
        .bucket(bucket).prefix(prefix).maxKeys(PAGE_SIZE).build();
    ListingContinuation continuation = continuation(prefix);
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        continuation.next(Boolean.TRUE.equals(page.isTruncated()), page.nextContinuationToken());
        for (S3Object object : page.contents()) {
          consumer.accept(toStoredObject(object));
        }
      }
    } catch (SdkException e) {
      throw translate("list", prefix, e);
    }
  }

  /** With {@link ListingDepth#DIRECT}, the listing's delimiter is '/'. */
  @Override
  public java.util.Iterator<StoredObject> iterate(String prefix, ListingDepth depth) {
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().overrideConfiguration(this::counted).encodingType(EncodingType.URL)
        .bucket(bucket).prefix(prefix).maxKeys(PAGE_SIZE);
    if (depth == ListingDepth.DIRECT) {
      request.delimiter("/");
    }
    java.util.Iterator<ListObjectsV2Response> pages = client.listObjectsV2Paginator(request.build()).iterator();
    ListingContinuation continuation = continuation(prefix);
    return new java.util.Iterator<>() {
      private java.util.Iterator<S3Object> objects = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        try {
          // Pages without keys (truncated or not) are passed over.
          while (!objects.hasNext() && pages.hasNext()) {
            ListObjectsV2Response page = pages.next();
            continuation.next(Boolean.TRUE.equals(page.isTruncated()), page.nextContinuationToken());
            objects = page.contents().iterator();
          }
          return objects.hasNext();
        } catch (SdkException e) {
          throw translate("list", prefix, e);
        }
      }

      @Override
      public StoredObject next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException("no more objects under " + prefix);
        }
        return toStoredObject(objects.next());
      }
    };
  }

  @Override
  public ListingPage listPage(String prefix, String startAfter, String continuationToken) {
    try {
      ListObjectsV2Response response = client.listObjectsV2(b -> {
        // URL-encoded answers: S3 echoes StartAfter, and keys may hold characters XML cannot carry
        // (the split after prefix + U+FFFF); the SDK decodes them.
        b.overrideConfiguration(this::counted).encodingType(EncodingType.URL);
        b.bucket(bucket).prefix(prefix).maxKeys(PAGE_SIZE);
        if (continuationToken != null) {
          b.continuationToken(continuationToken);
        } else if (startAfter != null) {
          b.startAfter(startAfter);
        }
      });
      List<StoredObject> objects = new ArrayList<>(response.contents().size());
      for (S3Object object : response.contents()) {
        objects.add(toStoredObject(object));
      }
      return new ListingPage(objects, Boolean.TRUE.equals(response.isTruncated()), response.nextContinuationToken());
    } catch (SdkException e) {
      throw translate("list", prefix + (startAfter == null ? "" : " after " + startAfter), e);
    }
  }

  private ListingContinuation continuation(String prefix) {
    return new ListingContinuation("s3://" + bucket + "/" + prefix);
  }

  @Override
  public ObjectContent read(String key, int maxBytes) {
    return retryingBody(key, () -> readOnce(key, maxBytes));
  }

  private ObjectContent readOnce(String key, int maxBytes) throws IOException {
    try (ResponseInputStream<GetObjectResponse> in = client.getObject(b -> b.overrideConfiguration(this::counted).bucket(bucket).key(key))) {
      GetObjectResponse response = in.response();
      byte[] bytes = readAtMost(in, maxBytes);
      boolean truncated = bytes.length == maxBytes && in.read() != -1;
      StoredObject object = new StoredObject(key, unquote(response.eTag()), response.lastModified(),
          response.contentLength() == null ? bytes.length : response.contentLength());
      if (truncated) {
        in.abort();
      }
      return new ObjectContent(object, bytes, truncated);
    } catch (NoSuchKeyException e) {
      return null;
    } catch (SdkException e) {
      throw translate("read", key, e);
    }
  }

  /**
   * A 412 answer is {@link StateCheck#CHANGED}, a 404 NoSuchKey {@link StateCheck#GONE}; any other 404
   * (NoSuchBucket) says nothing of the key: it fails, naming the code.
   */
  @Override
  public StateCheck checkUnchanged(String key, String etag) {
    requireNonNull(etag, "etag is null");
    // The body is drained, not kept: the connection goes back to the pool.
    return retryingBody(key, () -> readIfMatchOnce(key, etag, -1)).check();
  }

  @Override
  public ConditionalRead readIfMatch(String key, String etag, int maxBytes) {
    requireNonNull(etag, "etag is null");
    return retryingBody(key, () -> readIfMatchOnce(key, etag, maxBytes));
  }

  private ConditionalRead readIfMatchOnce(String key, String etag, int maxBytes) throws IOException {
    try (ResponseInputStream<GetObjectResponse> in =
        client.getObject(b -> b.overrideConfiguration(this::counted).bucket(bucket).key(key).ifMatch(quote(etag)))) {
      // The bytes and this ETag come from one answer: comparing them is the check If-Match asked for.
      if (!unquote(in.response().eTag()).equals(unquote(etag))) {
        in.abort();
        return ConditionalRead.of(StateCheck.CHANGED);
      }
      if (maxBytes < 0) {
        in.transferTo(OutputStream.nullOutputStream());
        return ConditionalRead.of(StateCheck.UNCHANGED);
      }
      byte[] bytes = readAtMost(in, maxBytes);
      boolean truncated = in.read() != -1;
      if (truncated) {
        in.abort();
      }
      return new ConditionalRead(StateCheck.UNCHANGED, bytes, truncated);
    } catch (S3Exception e) {
      if (e.statusCode() == 412) {
        return ConditionalRead.of(StateCheck.CHANGED);
      }
      if (isNoSuchKey(e)) {
        return ConditionalRead.of(StateCheck.GONE);
      }
      throw translate("read", key, e);
    } catch (SdkException e) {
      throw translate("read", key, e);
    }
  }

  @Override
  public boolean refusesGetIfMatch(String key, String otherEtag) {
    try (ResponseInputStream<GetObjectResponse> in =
        client.getObject(b -> b.overrideConfiguration(this::counted).bucket(bucket).key(key).ifMatch(quote(otherEtag)))) {
      in.abort(); // the answer is what the probe needs, not the bytes
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 412) {
        return true;
      }
      throw translate("read", key, e);
    } catch (SdkException e) {
      throw translate("read", key, e);
    } catch (IOException e) {
      throw new StoreException("Cannot read s3://" + bucket + "/" + key + ": " + e.getMessage(),
          e.getClass().getSimpleName(), e);
    }
  }

  /**
   * A 404 that says the key does not exist: NoSuchKey, and nothing else. NoSuchBucket (a missing bucket, a
   * request sent to the wrong place) or any other code says nothing of the key, so it never counts as gone.
   */
  private static boolean isNoSuchKey(S3Exception e) {
    return e instanceof NoSuchKeyException
        || e.statusCode() == 404 && e.awsErrorDetails() != null && "NoSuchKey".equals(e.awsErrorDetails().errorCode());
  }

  /**
   * A HEAD's 404 has no body, so a missing bucket reads as a missing key here too: execution never decides on a
   * HEAD (it uses listings).
   */
  @Override
  public StoredObject head(String key) {
    try {
      HeadObjectResponse response = client.headObject(b -> b.overrideConfiguration(this::counted).bucket(bucket).key(key));
      return new StoredObject(key, unquote(response.eTag()), response.lastModified(),
          response.contentLength() == null ? 0L : response.contentLength());
    } catch (NoSuchKeyException e) {
      return null;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return null;
      }
      throw translate("head", key, e);
    } catch (SdkException e) {
      throw translate("head", key, e);
    }
  }

  /**
   * A ListObjectsV2 of prefix {@code key}, where the key itself sorts before every other key it prefixes; its
   * LastModified has milliseconds on S3 (whole seconds in a HEAD's header). A truncated page with no keys (S3
   * returns them over delete markers) goes on, one without a token fails rather than say the key does not exist.
   */
  @Override
  public StoredObject listedObject(String key) {
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key is empty");
    }
    ListingContinuation continuation = continuation(key);
    String token = null;
    try {
      while (true) {
        String pageToken = token;
        ListObjectsV2Response page = client.listObjectsV2(b -> {
          b.overrideConfiguration(this::counted).encodingType(EncodingType.URL).bucket(bucket).prefix(key).maxKeys(1);
          if (pageToken != null) {
            b.continuationToken(pageToken);
          }
        });
        if (!page.contents().isEmpty()) {
          S3Object first = page.contents().get(0);
          return first.key().equals(key) ? toStoredObject(first) : null;
        }
        token = continuation.next(Boolean.TRUE.equals(page.isTruncated()), page.nextContinuationToken());
        if (token == null) {
          return null;
        }
      }
    } catch (SdkException e) {
      throw translate("list", key, e);
    }
  }

  /**
   * The keys XML can carry go in one DeleteObjects request, each other key alone with DeleteObject (its key
   * travels in the URL; see {@link XmlKeys}), so that one odd key can never fail the request of other records'
   * keys. DeleteObjects is sent in verbose mode (not quiet), so that its answer names each key it deleted.
   */
  @Override
  public DeleteResult delete(List<DeleteTarget> targets) {
    if (targets.size() > 1000) {
      throw new IllegalArgumentException("DeleteObjects takes at most 1000 keys, not " + targets.size());
    }
    java.util.Set<String> deleted = new java.util.LinkedHashSet<>();
    java.util.Map<String, DeleteResult.KeyError> errors = new java.util.LinkedHashMap<>();
    java.util.Map<String, String> markers = new java.util.LinkedHashMap<>();
    java.util.concurrent.atomic.AtomicInteger throttled = new java.util.concurrent.atomic.AtomicInteger();
    List<DeleteTarget> inXml = new ArrayList<>(targets.size());
    for (DeleteTarget target : targets) {
      if (XmlKeys.canTravelInXml(target.key())) {
        inXml.add(target);
      } else {
        deleteAlone(target, deleted, errors, markers, throttled);
      }
    }
    if (!inXml.isEmpty()) {
      deleteInOneRequest(inXml, deleted, errors, markers, throttled);
    }
    return new DeleteResult(deleted, errors, markers, throttled.get());
  }

  /** A delete counted in the store's requests and in {@code throttled}, its own SlowDown answers. */
  private void countedDelete(AwsRequestOverrideConfiguration.Builder override,
      java.util.concurrent.atomic.AtomicInteger throttled) {
    counted(override);
    override.putExecutionAttribute(RequestCounts.CALL_THROTTLED, throttled);
  }

  private void deleteInOneRequest(List<DeleteTarget> targets, java.util.Set<String> deleted,
      java.util.Map<String, DeleteResult.KeyError> errors, java.util.Map<String, String> markers,
      java.util.concurrent.atomic.AtomicInteger throttled) {
    List<ObjectIdentifier> identifiers = new ArrayList<>(targets.size());
    for (DeleteTarget target : targets) {
      ObjectIdentifier.Builder identifier = ObjectIdentifier.builder().key(target.key());
      if (target.etag() != null) {
        identifier.eTag(quote(target.etag()));
      }
      identifiers.add(identifier.build());
    }
    DeleteObjectsResponse response;
    try {
      response = client.deleteObjects(b -> b.overrideConfiguration(o -> countedDelete(o, throttled)).bucket(bucket)
          .delete(Delete.builder().objects(identifiers).quiet(false).build()));
    } catch (SdkException e) {
      StoreException failure = translate("delete", targets.get(0).key() + " and " + (targets.size() - 1)
          + " more keys", e);
      throw new StoreException(failure.getMessage(), failure.errorCode(), e, throttled.get());
    }
    java.util.Set<String> asked = new java.util.HashSet<>();
    targets.forEach(target -> asked.add(target.key()));
    java.util.Set<String> answered = new java.util.HashSet<>();
    java.util.Map<String, String> answeredMarkers = new java.util.HashMap<>();
    for (DeletedObject object : response.deleted()) {
      answered.add(object.key());
      String marker = markerOf(object.deleteMarker(), object.deleteMarkerVersionId());
      if (marker != null) {
        answeredMarkers.put(object.key(), marker);
      }
    }
    for (S3Error error : response.errors()) {
      if (!asked.contains(error.key())) {
        continue; // an answer for a key nobody asked about says nothing of the keys asked
      }
      if ("NoSuchKey".equals(error.code())) {
        answered.add(error.key());
      } else {
        if ("SlowDown".equals(error.code())) {
          throttled.incrementAndGet(); // a key the answer refused for the partition's rate
        }
        errors.put(error.key(), new DeleteResult.KeyError(error.code(), error.message()));
      }
    }
    settle(targets.stream().map(DeleteTarget::key).toList(), answered, deleted, errors);
    answeredMarkers.forEach((key, marker) -> {
      if (asked.contains(key) && deleted.contains(key)) {
        markers.put(key, marker);
      }
    });
  }

  /**
   * Each key {@code asked} of a DeleteObjects that its answer did not list as an error: deleted when the answer lists
   * it as such ({@code answered}), else an error of its own, since the answer said nothing of it.
   */
  private static void settle(java.util.Collection<String> asked, java.util.Set<String> answered,
      java.util.Set<String> deleted, java.util.Map<String, DeleteResult.KeyError> errors) {
    for (String key : asked) {
      if (errors.containsKey(key)) {
        continue;
      }
      if (answered.contains(key)) {
        deleted.add(key);
      } else {
        errors.put(key, new DeleteResult.KeyError(NO_ANSWER,
            "the DeleteObjects answer lists this key neither as deleted nor as an error"));
      }
    }
  }

  /** The version id of the delete marker an answer says it wrote, or null where it wrote none (no versioning). */
  private static String markerOf(Boolean deleteMarker, String versionId) {
    return Boolean.TRUE.equals(deleteMarker) && versionId != null && !versionId.isBlank() ? versionId : null;
  }

  /**
   * DeleteObject for one key, with If-Match when an ETag is given; a key already gone (204, or 404
   * NoSuchKey) counts as deleted. Any other 404, such as NoSuchBucket, is an error: nothing was deleted.
   */
  private void deleteAlone(DeleteTarget target, java.util.Set<String> deleted,
      java.util.Map<String, DeleteResult.KeyError> errors, java.util.Map<String, String> markers,
      java.util.concurrent.atomic.AtomicInteger throttled) {
    try {
      DeleteObjectResponse answer = client.deleteObject(b -> {
        b.overrideConfiguration(o -> countedDelete(o, throttled)).bucket(bucket).key(target.key());
        if (target.etag() != null) {
          b.ifMatch(quote(target.etag()));
        }
      });
      deleted.add(target.key());
      // On a versioned bucket the answer names the delete marker it wrote (x-amz-delete-marker, x-amz-version-id).
      String marker = markerOf(answer.deleteMarker(), answer.versionId());
      if (marker != null) {
        markers.put(target.key(), marker);
      }
    } catch (S3Exception e) {
      if (isNoSuchKey(e)) {
        deleted.add(target.key());
      } else if (e.statusCode() == 412) {
        errors.put(target.key(), new DeleteResult.KeyError("PreconditionFailed",
            "the object no longer has the ETag it was verified with"));
      } else {
        StoreException failure = translate("delete", target.key(), e);
        errors.put(target.key(), new DeleteResult.KeyError(failure.errorCode(), failure.getMessage()));
      }
    } catch (SdkException e) {
      StoreException failure = translate("delete", target.key(), e);
      errors.put(target.key(), new DeleteResult.KeyError(failure.errorCode(), failure.getMessage()));
    }
  }

  @Override
  public String write(String key, byte[] content) {
    try {
      PutObjectResponse response = client.putObject(b -> b.overrideConfiguration(this::counted).bucket(bucket).key(key), RequestBody.fromBytes(content));
      return unquote(response.eTag());
    } catch (SdkException e) {
      throw translate("write", key, e);
    }
  }

  @Override
  public String createIfAbsent(String key, byte[] content) {
    return conditionalPut(key, content, null);
  }

  @Override
  public String replaceIfMatch(String key, byte[] content, String etag) {
    return conditionalPut(key, content, requireNonNull(etag, "etag is null"));
  }

  private String conditionalPut(String key, byte[] content, String etag) {
    try {
      PutObjectResponse response = client.putObject(b -> {
        b.overrideConfiguration(this::counted).bucket(bucket).key(key);
        if (etag == null) {
          b.ifNoneMatch("*");
        } else {
          b.ifMatch(quote(etag));
        }
      }, RequestBody.fromBytes(content));
      return unquote(response.eTag());
    } catch (S3Exception e) {
      // 412: the condition failed; 409: a concurrent conditional write to the same key won; 404 NoSuchKey:
      // gone. Any other 404 (a missing bucket) is no answer about the key.
      if (e.statusCode() == 412 || e.statusCode() == 409 || isNoSuchKey(e)) {
        return null;
      }
      throw translate("write", key, e);
    } catch (SdkException e) {
      throw translate("write", key, e);
    }
  }

  /** A GET whose body is read after the SDK returned: a body cut off midway is not the SDK's to retry. */
  @FunctionalInterface
  private interface BodyRead<T> {
    T read() throws IOException;
  }

  /**
   * Repeats a GET whose answer's body broke off (a connection reset while reading it), with a short
   * backoff, up to {@link #BODY_ATTEMPTS} times; then fails naming the key.
   */
  private <T> T retryingBody(String key, BodyRead<T> read) {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.read();
      } catch (IOException e) {
        if (attempt >= BODY_ATTEMPTS) {
          throw new StoreException("Cannot read s3://" + bucket + "/" + key + ": " + e.getMessage() + " ("
              + attempt + " attempts)", e.getClass().getSimpleName(), e);
        }
        try {
          Thread.sleep(Math.min(2_000L, 50L << attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new StoreException("Interrupted while reading s3://" + bucket + "/" + key, "Interrupted", interrupted);
        }
      }
    }
  }

  private static byte[] readAtMost(InputStream in, int maxBytes) throws IOException {
    return in.readNBytes(maxBytes);
  }

  static StoredObject toStoredObject(S3Object object) {
    // A listing without a StorageClass (some S3-compatible stores) means Standard, as S3's own default.
    String storageClass = object.storageClassAsString();
    return new StoredObject(object.key(), unquote(object.eTag()), object.lastModified(),
        object.size() == null ? 0L : object.size(),
        storageClass == null || storageClass.isEmpty() ? STANDARD : storageClass);
  }

  /** GetBucketVersioning. */
  @Override
  public BucketVersioning bucketVersioning() {
    try {
      software.amazon.awssdk.services.s3.model.GetBucketVersioningResponse response =
          client.getBucketVersioning(b -> b.overrideConfiguration(this::counted).bucket(bucket));
      String status = response.statusAsString();
      return status == null || status.isEmpty() ? new BucketVersioning(BucketVersioning.OFF, null)
          : new BucketVersioning(status, null);
    } catch (SdkException e) {
      StoreException failure = translate("read the versioning of", "", e);
      String why = failure.isAccessDenied()
          ? failure.getMessage() + "; it needs s3:GetBucketVersioning on arn:aws:s3:::" + bucket
          : failure.getMessage();
      return new BucketVersioning(BucketVersioning.UNKNOWN, why);
    }
  }

  /**
   * ListObjectVersions of {@code most} entries from {@code key}: versions list by key, newest first, so the first are
   * the key's newest when it has any (a longer key that starts with it sorts after it).
   */
  @Override
  public List<ObjectVersion> newestVersions(String key, int most) {
    if (most < 1 || most > 1000) {
      throw new IllegalArgumentException("most must be 1 to 1000: " + most);
    }
    List<ObjectVersion> versions = new ArrayList<>();
    for (ObjectVersion version : listVersions(key, null, null, most).versions()) {
      if (version.key().equals(key)) {
        versions.add(version);
      }
    }
    return versions;
  }

  /**
   * The SDK answers a page's versions and delete markers in two lists: the page is both, merged back into S3's order
   * (keys in UTF-8 order; within a key the latest, then the others newest first).
   */
  @Override
  public ObjectVersion.Page listVersions(String prefix, String keyMarker, String versionIdMarker, int maxKeys) {
    requireNonNull(prefix, "prefix is null");
    if (maxKeys < 1 || maxKeys > 1000) {
      throw new IllegalArgumentException("maxKeys must be 1 to 1000: " + maxKeys);
    }
    software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse response;
    try {
      response = client.listObjectVersions(b -> b.overrideConfiguration(this::counted).encodingType(EncodingType.URL)
          .bucket(bucket).prefix(prefix).keyMarker(keyMarker).versionIdMarker(keyMarker == null ? null
              : versionIdMarker).maxKeys(maxKeys));
    } catch (SdkException e) {
      StoreException failure = translate("list the versions of", prefix, e);
      if (failure.isAccessDenied()) {
        throw new StoreException(failure.getMessage() + "; it needs s3:ListBucketVersions on arn:aws:s3:::" + bucket,
            failure.errorCode(), e);
      }
      throw failure;
    }
    List<ObjectVersion> versions = new ArrayList<>();
    for (software.amazon.awssdk.services.s3.model.ObjectVersion version : response.versions()) {
      if (version.versionId() != null && !version.versionId().isEmpty()) {
        versions.add(new ObjectVersion(version.key(), version.versionId(), false,
            Boolean.TRUE.equals(version.isLatest()), unquote(version.eTag()), version.lastModified()));
      }
    }
    for (software.amazon.awssdk.services.s3.model.DeleteMarkerEntry marker : response.deleteMarkers()) {
      if (marker.versionId() != null && !marker.versionId().isEmpty()) {
        versions.add(new ObjectVersion(marker.key(), marker.versionId(), true, Boolean.TRUE.equals(marker.isLatest()),
            null, marker.lastModified()));
      }
    }
    versions.sort(java.util.Comparator.comparing(ObjectVersion::key, Keys.UTF8_ORDER)
        .thenComparing(ObjectVersion::latest, java.util.Comparator.reverseOrder())
        .thenComparing(ObjectVersion::lastModified, java.util.Comparator.nullsLast(java.util.Comparator.reverseOrder())));
    boolean truncated = Boolean.TRUE.equals(response.isTruncated()) && response.nextKeyMarker() != null
        && !response.nextKeyMarker().isEmpty();
    return new ObjectVersion.Page(versions, truncated ? response.nextKeyMarker() : null,
        truncated ? emptyToNull(response.nextVersionIdMarker()) : null);
  }

  private static String emptyToNull(String text) {
    return text == null || text.isEmpty() ? null : text;
  }

  /**
   * DeleteObjects with a VersionId per key, in one request for the keys that can travel in its XML body and one
   * DeleteObject each for the others; the answer's DeleteMarker fields name the version removed, not a marker
   * written, so the result has no markers.
   */
  @Override
  public DeleteResult deleteVersions(java.util.Map<String, String> versions) {
    if (versions.size() > 1000) {
      throw new IllegalArgumentException("DeleteObjects takes at most 1000 keys, not " + versions.size());
    }
    java.util.Set<String> deleted = new java.util.LinkedHashSet<>();
    java.util.Map<String, DeleteResult.KeyError> errors = new java.util.LinkedHashMap<>();
    List<ObjectIdentifier> identifiers = new ArrayList<>(versions.size());
    versions.forEach((key, versionId) -> {
      requireNonNull(versionId, "the version id of " + key + " is null");
      if (XmlKeys.canTravelInXml(key)) {
        identifiers.add(ObjectIdentifier.builder().key(key).versionId(versionId).build());
        return;
      }
      try {
        deleteVersion(key, versionId);
        deleted.add(key);
      } catch (StoreException e) {
        errors.put(key, new DeleteResult.KeyError(e.errorCode(), e.getMessage()));
      }
    });
    if (identifiers.isEmpty()) {
      return new DeleteResult(deleted, errors);
    }
    DeleteObjectsResponse response;
    try {
      response = client.deleteObjects(b -> b.overrideConfiguration(this::counted).bucket(bucket)
          .delete(Delete.builder().objects(identifiers).quiet(false).build()));
    } catch (SdkException e) {
      StoreException failure = translate("delete versions of", identifiers.get(0).key() + " and "
          + (identifiers.size() - 1) + " more keys", e);
      if (failure.isAccessDenied()) {
        throw new StoreException(failure.getMessage() + "; it needs s3:DeleteObjectVersion on arn:aws:s3:::" + bucket
            + "/*", failure.errorCode(), e);
      }
      throw failure;
    }
    java.util.Set<String> answered = new java.util.HashSet<>();
    response.deleted().forEach(object -> answered.add(object.key()));
    for (S3Error error : response.errors()) {
      if (versions.containsKey(error.key())) {
        errors.put(error.key(), new DeleteResult.KeyError(error.code(), error.message()));
      }
    }
    settle(identifiers.stream().map(ObjectIdentifier::key).toList(), answered, deleted, errors);
    return new DeleteResult(deleted, errors);
  }

  /** DeleteObject with a VersionId: that version is gone for good (a delete marker's removal writes nothing). */
  @Override
  public void deleteVersion(String key, String versionId) {
    requireNonNull(versionId, "versionId is null");
    try {
      client.deleteObject(b -> b.overrideConfiguration(this::counted).bucket(bucket).key(key).versionId(versionId));
    } catch (SdkException e) {
      StoreException failure = translate("delete version " + versionId + " of", key, e);
      if (failure.isAccessDenied()) {
        throw new StoreException(failure.getMessage() + "; it needs s3:DeleteObjectVersion on arn:aws:s3:::" + bucket
            + "/" + key, failure.errorCode(), e);
      }
      throw failure;
    }
  }

  static String quote(String etag) {
    return etag.startsWith("\"") ? etag : "\"" + etag + "\"";
  }

  /** ETags without their quotes, as the plan stores them. */
  static String unquote(String etag) {
    if (etag == null) {
      return "";
    }
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
        ? etag.substring(1, etag.length() - 1)
        : etag;
  }

  private StoreException translate(String operation, String key, SdkException e) {
    String code;
    String detail;
    if (e instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
      code = s3.awsErrorDetails().errorCode();
      detail = code + " (" + s3.statusCode() + "): " + s3.awsErrorDetails().errorMessage();
    } else if (e instanceof S3Exception s3) {
      code = "HTTP " + s3.statusCode();
      detail = code;
    } else {
      code = e.getClass().getSimpleName();
      detail = e.getMessage();
    }
    return new StoreException(
        "Cannot " + operation + " s3://" + bucket + "/" + key + ": " + detail, code, e);
  }
}
