package io.statesweep.s3;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.StoredObject;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The one place that speaks to S3 for object operations: list, read, write. Everything else speaks
 * in {@link StoredObject}s. SDK exceptions become {@link StoreException}s that name the operation and
 * the key.
 */
public final class ObjectStore {
  private static final int PAGE_SIZE = 1000;

  private final S3Client client;
  private final String bucket;

  public ObjectStore(S3Client client, String bucket) {
    this.client = requireNonNull(client, "client is null");
    this.bucket = requireNonNull(bucket, "bucket is null");
  }

  public String bucket() {
    return bucket;
  }

  /** Lists one level under {@code folder} (a prefix ending with '/' or empty): sub-folders and direct objects. */
  public FolderListing listFolder(String folder) {
    List<String> folders = new ArrayList<>();
    List<StoredObject> objects = new ArrayList<>();
    ListObjectsV2Request request = ListObjectsV2Request.builder()
        .bucket(bucket).prefix(folder).delimiter("/").maxKeys(PAGE_SIZE).build();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        for (CommonPrefix common : page.commonPrefixes()) {
          folders.add(common.prefix());
        }
        for (S3Object object : page.contents()) {
          objects.add(toStoredObject(object));
        }
      }
    } catch (SdkException e) {
      throw translate("list", folder, e);
    }
    return new FolderListing(folders, objects);
  }

  /** Lists every object under {@code prefix}, page by page, in key order. */
  public void listAll(String prefix, Consumer<StoredObject> consumer) {
    ListObjectsV2Request request = ListObjectsV2Request.builder()
        .bucket(bucket).prefix(prefix).maxKeys(PAGE_SIZE).build();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        for (S3Object object : page.contents()) {
          consumer.accept(toStoredObject(object));
        }
      }
    } catch (SdkException e) {
      throw translate("list", prefix, e);
    }
  }

  /**
   * Iterates over every object under {@code prefix} (with {@code delimiter} '/', only the objects
   * directly in it), fetching one page at a time as the iterator advances: memory stays one page.
   * A failed request surfaces as a {@link StoreException} from {@code hasNext()}/{@code next()}.
   */
  public java.util.Iterator<StoredObject> iterate(String prefix, ListingDepth depth) {
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder()
        .bucket(bucket).prefix(prefix).maxKeys(PAGE_SIZE);
    if (depth == ListingDepth.DIRECT) {
      request.delimiter("/");
    }
    java.util.Iterator<S3Object> pages = client.listObjectsV2Paginator(request.build()).contents().iterator();
    return new java.util.Iterator<>() {
      @Override
      public boolean hasNext() {
        try {
          return pages.hasNext();
        } catch (SdkException e) {
          throw translate("list", prefix, e);
        }
      }

      @Override
      public StoredObject next() {
        try {
          return toStoredObject(pages.next());
        } catch (SdkException e) {
          throw translate("list", prefix, e);
        }
      }
    };
  }

  /**
   * Reads an object, at most {@code maxBytes} of it ({@code truncated} says when there was more).
   * Returns null when the key does not exist.
   */
  public ObjectContent read(String key, int maxBytes) {
    try (ResponseInputStream<GetObjectResponse> in = client.getObject(b -> b.bucket(bucket).key(key))) {
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
    } catch (IOException e) {
      throw new StoreException("Cannot read s3://" + bucket + "/" + key + ": " + e.getMessage(),
          e.getClass().getSimpleName(), e);
    }
  }

  /** Writes an object; returns its ETag. */
  public String write(String key, byte[] content) {
    try {
      PutObjectResponse response = client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(content));
      return unquote(response.eTag());
    } catch (SdkException e) {
      throw translate("write", key, e);
    }
  }

  private static byte[] readAtMost(InputStream in, int maxBytes) throws IOException {
    return in.readNBytes(maxBytes);
  }

  static StoredObject toStoredObject(S3Object object) {
    return new StoredObject(object.key(), unquote(object.eTag()), object.lastModified(),
        object.size() == null ? 0L : object.size());
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
