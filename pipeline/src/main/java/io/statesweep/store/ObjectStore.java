package io.statesweep.store;

import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;

/**
 * One bucket of an object store, as statesweep uses it: list, read (on condition), write (on condition), delete.
 * Everything speaks in {@link StoredObject}s, with ETags unquoted as the plan stores them; a request that fails
 * throws a {@link StoreException} naming the operation, the key and the store's error code. The AWS implementation
 * is {@code io.statesweep.s3.S3ObjectStore}; the stages take the narrow views they need of it (the execute's
 * {@code RecordStore}, the ledger's {@code LedgerStore}, the listing's {@code PageSource}). What every
 * implementation must answer is pinned by the contract tests ({@code ObjectStoreContract}); pipeline/README.md,
 * "Deleting" says why each answer matters.
 */
public interface ObjectStore {
  /** The error code of a key that a DeleteObjects answer does not mention. */
  String NO_ANSWER = "NoAnswer";
  /** S3's default storage class, and the class of a listed key whose listing names none. */
  String STANDARD = "STANDARD";

  /** The bucket this store reads and writes. */
  String bucket();

  /** Lists one level under {@code folder} (a prefix ending with '/' or empty): sub-folders and direct objects. */
  FolderListing listFolder(String folder);

  /**
   * Lists one level under {@code folder} (a prefix ending with '/' or empty) a page at a time: each sub-folder
   * (with its trailing slash) goes to {@code subFolders} as its page arrives, and the objects directly in it are
   * counted, not kept, so memory stays one page however many there are.
   *
   * @return how many objects are directly in {@code folder}
   */
  long listLevel(String folder, Consumer<String> subFolders);

  /** Lists every object under {@code prefix}, page by page, in key order. */
  default void listAll(String prefix, Consumer<StoredObject> consumer) {
    iterate(prefix, ListingDepth.RECURSIVE).forEachRemaining(consumer);
  }

  /**
   * Iterates over every object under {@code prefix} (with {@link ListingDepth#DIRECT}, only the objects directly
   * in it), in key order, fetching one page at a time as the iterator advances: memory stays one page. A failed
   * request surfaces as a {@link StoreException} from {@code hasNext()}/{@code next()}.
   */
  Iterator<StoredObject> iterate(String prefix, ListingDepth depth);

  /**
   * One page (up to 1,000 keys, maybe none) of the objects under {@code prefix}: the first page of a
   * listing after {@code startAfter}, a later one at {@code continuationToken} (the page before's
   * {@link ListingPage#nextToken()}). The caller checks the tokens ({@link ListingContinuation}).
   */
  ListingPage listPage(String prefix, String startAfter, String continuationToken);

  /**
   * Reads an object, at most {@code maxBytes} of it ({@code truncated} says when there was more).
   * Returns null when the key does not exist.
   */
  ObjectContent read(String key, int maxBytes);

  /**
   * Whether the object still has {@code etag} (GET with If-Match), so that nothing is done on an old plan: a
   * refusal of the condition, or an answer whose own ETag is another (a store that ignores If-Match answers with
   * the version it has: pipeline/README.md, "Deleting"), is {@link StateCheck#CHANGED}; a key that does not exist is
   * {@link StateCheck#GONE}. An answer that says nothing of the key (a missing bucket) fails, naming the code.
   */
  StateCheck checkUnchanged(String key, String etag);

  /**
   * {@link #checkUnchanged}, keeping at most {@code maxBytes} of the document when it is unchanged
   * ({@code truncated} says when there was more): what execution decides on again.
   */
  ConditionalRead readIfMatch(String key, String etag, int maxBytes);

  /**
   * Whether the store refuses a GET of {@code key} whose If-Match names {@code otherEtag}, an ETag the object
   * does not have (412), as S3 does; false when it answers with the object. The conditional-read probe
   * ({@link ConditionProbe}).
   */
  boolean refusesGetIfMatch(String key, String otherEtag);

  /**
   * The object's current version (HEAD), or null when it does not exist. Its LastModified may have a coarser
   * precision than a listing's: execution never decides on a HEAD (it uses {@link #listedObject}).
   */
  StoredObject head(String key);

  /**
   * The object's current version as a listing shows it, or null when it does not exist. Unlike {@link #head},
   * its LastModified has the listing's precision, so it compares with times of other listings; its pages follow
   * {@link ListingContinuation} as every listing's do.
   */
  StoredObject listedObject(String key);

  /**
   * Deletes up to 1,000 keys, each conditional on its ETag where one is given. A key counts as deleted only when
   * the store says so: a key its answer does not mention is an error ({@link #NO_ANSWER}), never a deletion; a key
   * the store reports missing counts as deleted (it is gone either way); a key whose ETag no longer holds is a
   * {@code PreconditionFailed} error, and stays. Per-key errors are returned, never thrown; a failure of the whole
   * request throws.
   */
  DeleteResult delete(List<DeleteTarget> targets);

  /** Writes an object; returns its ETag. */
  String write(String key, byte[] content);

  /**
   * Creates an object only if the key does not exist (PutObject {@code If-None-Match: *}); returns its
   * ETag, or null when the key exists or another writer won a concurrent create.
   */
  String createIfAbsent(String key, byte[] content);

  /**
   * Replaces an object only if it still has {@code etag} (PutObject {@code If-Match}); returns the new
   * ETag, or null when the object changed or is gone.
   */
  String replaceIfMatch(String key, byte[] content, String etag);

  /**
   * The bucket's versioning: {@code Enabled}, {@code Suspended}, or {@code Off} for a bucket where it was never
   * enabled. A call that is denied or that the store does not support is no failure: the answer is
   * {@code unknown}, with why (the permission it needs, or the store's error).
   */
  BucketVersioning bucketVersioning();

  /**
   * The newest versions of {@code key}, at most {@code most}, the latest first (its current version, or the delete
   * marker that hides it), then the one behind it: ListObjectVersions of {@code most} entries from the key; empty when
   * the key has no version at all. A store without versioning throws {@link UnsupportedOperationException}.
   */
  default java.util.List<ObjectVersion> newestVersions(String key, int most) {
    throw new UnsupportedOperationException("this store keeps no versions");
  }

  /**
   * One page of ListObjectVersions under {@code prefix}, after {@code keyMarker} (and, within that key, after version
   * {@code versionIdMarker}), at most {@code maxKeys} entries: keys in UTF-8 order, each key's versions and delete
   * markers latest first. A store without versioning throws {@link UnsupportedOperationException}.
   *
   * @param keyMarker null to list from the prefix's first key
   * @param versionIdMarker null unless {@code keyMarker} is given and the page before ended within that key
   */
  default ObjectVersion.Page listVersions(String prefix, String keyMarker, String versionIdMarker, int maxKeys) {
    throw new UnsupportedOperationException("this store keeps no versions");
  }

  /** The latest version of {@code key} ({@link #newestVersions}), or null when it has none. */
  default ObjectVersion latestVersion(String key) {
    java.util.List<ObjectVersion> newest = newestVersions(key, 1);
    return newest.isEmpty() ? null : newest.get(0);
  }

  /**
   * DeleteObject of one version of {@code key} ({@code versionId}): the version is gone for good; removing a delete
   * marker that is the latest version makes the version before it current again. A store without versioning throws
   * {@link UnsupportedOperationException}.
   */
  default void deleteVersion(String key, String versionId) {
    throw new UnsupportedOperationException("this store keeps no versions");
  }

  /**
   * DeleteObjects of versions, key to version id, at most 1,000 keys: each version is gone for good (a delete marker's
   * removal makes the version before it current again while the marker was latest). The result names the keys whose
   * version the store answered as removed and the errors of the others; it writes no marker. A store without
   * versioning throws {@link UnsupportedOperationException}.
   */
  default DeleteResult deleteVersions(java.util.Map<String, String> versions) {
    throw new UnsupportedOperationException("this store keeps no versions");
  }

  /**
   * Removes statesweep's own delete marker {@code markerVersionId} of {@code key} only while it is the key's latest
   * version and the version behind it is the one deleted ({@code deletedEtag}; pipeline/README.md, "Versioned
   * buckets"), so that this version is current again: {@link MarkerRemoval#decide} says what is left alone and why. The
   * look and the removal are two requests: a version written between them leaves the marker noncurrent when it goes,
   * which changes nothing of the key's current version. Failures are answers ({@link
   * MarkerRemoval.Status#NOT_RESTORED}), never thrown.
   *
   * @param deletedEtag the ETag of the version the delete removed, as verified; null or empty when unknown
   */
  default MarkerRemoval removeMarkerIfLatest(String key, String markerVersionId, String deletedEtag) {
    java.util.Objects.requireNonNull(key, "key is null");
    java.util.Objects.requireNonNull(markerVersionId, "markerVersionId is null");
    try {
      MarkerRemoval.Decision decision = MarkerRemoval.decide(newestVersions(key, 2), markerVersionId, deletedEtag);
      if (decision.leftAlone() != null) {
        return decision.leftAlone();
      }
      deleteVersion(key, markerVersionId);
      return MarkerRemoval.afterRemoval(markerVersionId, latestVersion(key));
    } catch (UnsupportedOperationException e) {
      return MarkerRemoval.notRestored("the store keeps no versions");
    } catch (StoreException e) {
      return MarkerRemoval.notRestored(MarkerRemoval.FAILED + markerVersionId + ": " + e.getMessage());
    }
  }
}
