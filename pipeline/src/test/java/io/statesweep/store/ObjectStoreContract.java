package io.statesweep.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * What the core relies on of an {@link ObjectStore}, whichever store answers: listings in key order, paged by
 * start-after and continuation token; a listed object's LastModified as the listing has it; reads on condition
 * (If-Match) that tell a changed or gone object; per-key results of a delete, an ETag that no longer holds among
 * them; conditional creates and replaces; missing keys and missing buckets. pipeline/README.md, "Deleting" says why
 * each answer matters.
 *
 * <p>Each implementation runs it against one bucket that all its tests share, each test under a folder of its
 * own. Where a store does not do what S3 does, its subclass says so ({@link #unlikeS3}) and the tests that need it
 * are skipped with that reason, never passed.
 */
public abstract class ObjectStoreContract {
  /** What S3 does and a store under test may not. */
  public enum Behaviour {
    /** DeleteObjects and DeleteObject refuse a key whose ETag is not the one given (PreconditionFailed). */
    CONDITIONAL_DELETES,
    /** GET with If-Match refuses an object whose ETag is another (412). */
    CONDITIONAL_READS,
    /** PutObject with If-None-Match: * or If-Match refuses when the condition does not hold. */
    CONDITIONAL_WRITES
  }

  /** The store under test: one bucket, shared by this class's tests. */
  protected abstract ObjectStore store();

  /** A store of a bucket that does not exist, or null where there are no other buckets (say why in a subclass). */
  protected abstract ObjectStore storeOfAMissingBucket();

  /** Why this store cannot be asked for a bucket that does not exist; read when there is none. */
  protected String whyNoMissingBucket() {
    return "this store has no other buckets";
  }

  /**
   * A store of a bucket with versioning enabled, or null where the store has no versioning (say why in a subclass):
   * there a delete writes a marker, and the result names it, the version a deleted file could be brought back from.
   */
  protected ObjectStore storeOfAVersionedBucket() {
    return null;
  }

  /** Why this store cannot be asked for a versioned bucket; read when there is none. */
  protected String whyNoVersionedBucket() {
    return "this store has no versioning";
  }

  /** The versioning status the store answers for its bucket ({@code Off}, or {@code unknown} with why). */
  protected abstract String versioningStatus();

  /** Why this store does not do {@code behaviour} as S3 does, or null when it does. */
  protected String unlikeS3(Behaviour behaviour) {
    return null;
  }

  private void assumeLikeS3(Behaviour behaviour) {
    String why = unlikeS3(behaviour);
    assumeTrue(why == null, () -> getClass().getSimpleName() + " does not do " + behaviour + " as S3 does: " + why);
  }

  @Test
  void listsTheSubFoldersAndTheDirectObjectsOfAFolder() {
    write("folder/a/1.txt", "1");
    write("folder/a/2.txt", "2");
    write("folder/b/deep/3.txt", "3");
    write("folder/top.json", "{}");
    write("folder-sibling/x.txt", "x");

    FolderListing listing = store().listFolder("folder/");
    List<String> subFolders = new ArrayList<>();
    long objects = store().listLevel("folder/", subFolders::add);
    List<String> direct = new ArrayList<>();
    store().iterate("folder/", ListingDepth.DIRECT).forEachRemaining(object -> direct.add(object.key()));

    assertThat(listing.folders()).containsExactly("folder/a/", "folder/b/");
    assertThat(subFolders).containsExactly("folder/a/", "folder/b/");
    assertThat(objects).isEqualTo(1);
    assertThat(listing.objects()).extracting(StoredObject::key).containsExactly("folder/top.json");
    assertThat(listing.objects().get(0).size()).isEqualTo(2);
    assertThat(direct).containsExactly("folder/top.json");
  }

  @Test
  void listsNothingUnderAFolderThatDoesNotExist() {
    FolderListing listing = store().listFolder("no-such-folder/");

    assertThat(listing.folders()).isEmpty();
    assertThat(listing.objects()).isEmpty();
    assertThat(store().listLevel("no-such-folder/", folder -> { })).isZero();
    assertThat(store().iterate("no-such-folder/", ListingDepth.RECURSIVE)).isExhausted();
    ListingPage page = store().listPage("no-such-folder/", null, null);
    assertThat(page.objects()).isEmpty();
    assertThat(page.truncated()).isFalse();
    assertThat(page.nextToken()).isNull();
  }

  @Test
  void listsEveryObjectAcrossPagesInKeyOrder() throws Exception {
    List<String> keys = IntStream.range(0, 1_200).mapToObj(i -> String.format("many/%04d.txt", i)).toList();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<String>> writes = new ArrayList<>();
      for (String key : keys) {
        writes.add(pool.submit(() -> store().write(key, key.getBytes(StandardCharsets.UTF_8))));
      }
      for (Future<String> write : writes) {
        write.get();
      }
    } finally {
      pool.shutdownNow();
    }

    List<StoredObject> listed = new ArrayList<>();
    store().listAll("many/", listed::add);
    List<String> iterated = new ArrayList<>();
    store().iterate("many/", ListingDepth.RECURSIVE).forEachRemaining(object -> iterated.add(object.key()));
    // One level a page at a time, its objects counted (the listing fan-out holds none of them).
    List<String> subFolders = new ArrayList<>();
    long direct = store().listLevel("many/", subFolders::add);
    // Page by page as a listing task does: after a key first, then by the continuation token.
    ListingPage first = store().listPage("many/", "many/0099.txt", null);
    ListingPage second = store().listPage("many/", "many/0099.txt", first.nextToken());

    assertThat(listed).extracting(StoredObject::key).containsExactlyElementsOf(keys);
    assertThat(iterated).containsExactlyElementsOf(keys);
    assertThat(direct).isEqualTo(1_200);
    assertThat(subFolders).isEmpty();
    assertThat(first.truncated()).isTrue();
    assertThat(first.nextToken()).isNotEmpty();
    assertThat(first.objects()).extracting(StoredObject::key).containsExactlyElementsOf(keys.subList(100, 1_100));
    assertThat(second.truncated()).isFalse();
    assertThat(second.nextToken()).isNull();
    assertThat(second.objects()).extracting(StoredObject::key).containsExactlyElementsOf(keys.subList(1_100, 1_200));
    assertThat(listed).allSatisfy(object -> {
      assertThat(object.etag()).isNotEmpty().doesNotContain("\"");
      assertThat(object.size()).isEqualTo(13);
    });
    // Every listing of one version says the same of it, LastModified included.
    List<StoredObject> paged = new ArrayList<>(store().listPage("many/", null, null).objects());
    paged.addAll(store().listPage("many/", null, store().listPage("many/", null, null).nextToken()).objects());
    for (int i = 0; i < keys.size(); i++) {
      assertThat(paged.get(i).lastModified()).isEqualTo(listed.get(i).lastModified());
    }
  }

  /**
   * A listed object is the version the listings show, to their precision (milliseconds on S3): the key itself,
   * never another key it prefixes, and none when there is no such key.
   */
  @Test
  void aListedObjectHasTheListingsLastModified() {
    String etag = write("listed/doc.json", "{\"a\": 1}");
    write("listed/doc.json.old", "{}");
    write("listed/docs/inner.json", "{}");
    List<StoredObject> listing = new ArrayList<>();
    store().listAll("listed/", listing::add);

    StoredObject listed = store().listedObject("listed/doc.json");

    assertThat(listed).isEqualTo(listing.get(0));
    assertThat(listed.key()).isEqualTo("listed/doc.json");
    assertThat(listed.etag()).isEqualTo(etag);
    assertThat(listed.lastModified()).isEqualTo(listing.get(0).lastModified());
    assertThat(listed.size()).isEqualTo(8);
    assertThat(store().listedObject("listed/doc")).isNull();
    assertThat(store().listedObject("listed/none.json")).isNull();
  }

  /**
   * A read gives the version it read: its key, ETag and size as the listing's; its LastModified is the answer's
   * header, whole seconds on S3 where a listing has milliseconds (so nothing decides on a read's time).
   */
  @Test
  void readsAnObjectWithTheVersionItRead() {
    String etag = write("read/doc.json", "{\"delete\":false}");

    ObjectContent content = store().read("read/doc.json", 1024);
    StoredObject head = store().head("read/doc.json");
    StoredObject listed = store().listedObject("read/doc.json");

    assertThat(new String(content.bytes(), StandardCharsets.UTF_8)).isEqualTo("{\"delete\":false}");
    assertThat(content.truncated()).isFalse();
    for (StoredObject read : List.of(content.object(), head)) {
      assertThat(read.key()).isEqualTo("read/doc.json");
      assertThat(read.etag()).isEqualTo(etag).doesNotContain("\"");
      assertThat(read.size()).isEqualTo(16);
      assertThat(read.lastModified().truncatedTo(ChronoUnit.SECONDS))
          .isEqualTo(listed.lastModified().truncatedTo(ChronoUnit.SECONDS));
    }
  }

  @Test
  void readsAMissingKeyAsNull() {
    assertThat(store().read("read/missing.json", 1024)).isNull();
    assertThat(store().head("read/missing.json")).isNull();
    assertThat(store().listedObject("read/missing.json")).isNull();
  }

  @Test
  void flagsAReadAsTruncatedOnlyWhenTheObjectHasMoreBytes() {
    write("read/ten.txt", "0123456789");

    ObjectContent shorter = store().read("read/ten.txt", 4);
    ObjectContent exact = store().read("read/ten.txt", 10);
    ObjectContent longer = store().read("read/ten.txt", 11);

    assertThat(new String(shorter.bytes(), StandardCharsets.UTF_8)).isEqualTo("0123");
    assertThat(shorter.truncated()).isTrue();
    assertThat(shorter.object().size()).isEqualTo(10);
    assertThat(exact.bytes()).hasSize(10);
    assertThat(exact.truncated()).isFalse();
    assertThat(longer.bytes()).hasSize(10);
    assertThat(longer.truncated()).isFalse();
  }

  /** The read execution decides on again: unchanged with its bytes, changed once rewritten, gone once deleted. */
  @Test
  void aConditionalReadTellsAnUnchangedAChangedAndAGoneObject() {
    assumeLikeS3(Behaviour.CONDITIONAL_READS);
    String key = "conditional/state.json";
    String planned = write(key, "{\"v\": 1}");

    ConditionalRead unchanged = store().readIfMatch(key, planned, 1024);
    ConditionalRead cut = store().readIfMatch(key, planned, 3);
    StateCheck before = store().checkUnchanged(key, planned);
    boolean refuses = store().refusesGetIfMatch(key, ConditionProbe.WRONG_ETAG);
    write(key, "{\"v\": 2}");
    ConditionalRead changed = store().readIfMatch(key, planned, 1024);
    StateCheck afterRewrite = store().checkUnchanged(key, planned);
    store().delete(List.of(new DeleteTarget(key, null)));
    ConditionalRead gone = store().readIfMatch(key, planned, 1024);
    StateCheck afterDelete = store().checkUnchanged(key, planned);

    assertThat(unchanged.check()).isEqualTo(StateCheck.UNCHANGED);
    assertThat(unchanged.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("{\"v\": 1}");
    assertThat(unchanged.truncated()).isFalse();
    assertThat(cut.check()).isEqualTo(StateCheck.UNCHANGED);
    assertThat(cut.bytes()).hasSize(3);
    assertThat(cut.truncated()).isTrue();
    assertThat(before).isEqualTo(StateCheck.UNCHANGED);
    assertThat(refuses).isTrue();
    assertThat(changed.check()).isEqualTo(StateCheck.CHANGED);
    assertThat(changed.bytes()).isEmpty();
    assertThat(afterRewrite).isEqualTo(StateCheck.CHANGED);
    assertThat(gone.check()).isEqualTo(StateCheck.GONE);
    assertThat(afterDelete).isEqualTo(StateCheck.GONE);
  }

  @Test
  void deletesTheKeysItNamesAndCountsAMissingKeyAsDeleted() {
    String etag = write("delete/a.pdf", "a");
    write("delete/b.pdf", "b");
    write("delete/kept.pdf", "kept");

    DeleteResult result = store().delete(List.of(new DeleteTarget("delete/a.pdf", etag),
        new DeleteTarget("delete/b.pdf", null), new DeleteTarget("delete/never-existed.pdf", null)));

    assertThat(result.errors()).isEmpty();
    assertThat(result.deleted()).containsExactlyInAnyOrder("delete/a.pdf", "delete/b.pdf", "delete/never-existed.pdf");
    List<String> left = new ArrayList<>();
    store().listAll("delete/", object -> left.add(object.key()));
    assertThat(left).containsExactly("delete/kept.pdf");
    assertThatThrownBy(() -> store().delete(IntStream.range(0, 1_001)
        .mapToObj(i -> new DeleteTarget("delete/" + i, null)).toList()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("DeleteObjects takes at most 1000 keys, not 1001");
  }

  @Test
  void eachKeyOfADeleteObjectsRequestCountsAsDeletedOnlyWhenTheAnswerSaysSo() {
    assumeLikeS3(Behaviour.CONDITIONAL_DELETES);
    String kept = "verbose/changed.pdf";
    String oldEtag = write(kept, "first");
    write(kept, "second");
    String plain = "verbose/plain.pdf";
    String plainEtag = write(plain, "plain");

    DeleteResult result = store().delete(List.of(new DeleteTarget(kept, oldEtag), new DeleteTarget(plain, plainEtag),
        new DeleteTarget("verbose/never-existed.pdf", null)));

    assertThat(result.deleted()).containsExactlyInAnyOrder(plain, "verbose/never-existed.pdf");
    assertThat(result.errors()).containsOnlyKeys(kept);
    assertThat(result.errors().get(kept).isPreconditionFailed()).isTrue();
    assertThat(store().read(kept, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("second");
  }

  @Test
  void aDeleteOnABucketWithoutVersioningWritesNoMarker() {
    write("unversioned/a.pdf", "a");

    DeleteResult result = store().delete(List.of(new DeleteTarget("unversioned/a.pdf", null)));

    assertThat(result.deleted()).containsExactly("unversioned/a.pdf");
    assertThat(result.markers()).isEmpty();
  }

  @Test
  void aDeleteOnAVersionedBucketNamesTheMarkerItWroteForEachKey() {
    ObjectStore versioned = storeOfAVersionedBucket();
    assumeTrue(versioned != null, () -> getClass().getSimpleName() + ": " + whyNoVersionedBucket());
    String inXml = "markers/a.pdf";
    // A key XML cannot carry goes alone, by DeleteObject: its answer names the marker in headers.
    String alone = "markers/tab\tname.pdf";
    String etag = versioned.write(inXml, bytes("a"));
    versioned.write(alone, bytes("b"));
    String stale = versioned.write("markers/changed.pdf", bytes("first"));
    versioned.write("markers/changed.pdf", bytes("second"));

    DeleteResult result = versioned.delete(List.of(new DeleteTarget(inXml, etag), new DeleteTarget(alone, null),
        new DeleteTarget("markers/changed.pdf", stale)));

    assertThat(result.deleted()).containsExactlyInAnyOrder(inXml, alone);
    assertThat(result.markers()).containsOnlyKeys(inXml, alone);
    assertThat(result.markers().values()).allSatisfy(marker -> assertThat(marker).isNotBlank())
        .doesNotHaveDuplicates();
    assertThat(result.errors().get("markers/changed.pdf").isPreconditionFailed()).isTrue();
    assertThat(versioned.read(inXml, 100)).isNull();
    assertThat(versioned.read("markers/changed.pdf", 100).bytes()).asString(StandardCharsets.UTF_8)
        .isEqualTo("second");
  }

  /**
   * statesweep's own delete marker goes only while it is the key's latest version: removed, the version it hid is
   * current again; with a version written above it, or another marker, it stays; the key under a hostile name too.
   */
  @Test
  void removesItsOwnDeleteMarkerOnlyWhileItIsTheLatestVersion() {
    ObjectStore versioned = storeOfAVersionedBucket();
    assumeTrue(versioned != null, () -> getClass().getSimpleName() + ": " + whyNoVersionedBucket());
    String hidden = "undo/a.pdf";
    String hostile = "undo/line\nsummary: dry_run=false <x>&.pdf";
    String rewritten = "undo/rewritten.pdf";
    String deletedAgain = "undo/deleted-again.pdf";
    String longerKey = "undo/a.pdf.bak";
    String hiddenEtag = versioned.write(hidden, bytes("hidden"));
    versioned.write(longerKey, bytes("other key"));
    String hostileEtag = versioned.write(hostile, bytes("hostile"));
    String rewrittenEtag = versioned.write(rewritten, bytes("first"));
    String deletedAgainEtag = versioned.write(deletedAgain, bytes("first"));
    java.util.Map<String, String> markers = versioned.delete(List.of(new DeleteTarget(hidden, null),
        new DeleteTarget(hostile, null), new DeleteTarget(rewritten, null), new DeleteTarget(deletedAgain, null)))
        .markers();
    String afterMarker = versioned.write(rewritten, bytes("second"));
    String otherMarker = versioned.delete(List.of(new DeleteTarget(deletedAgain, null))).markers().get(deletedAgain);

    io.statesweep.store.ObjectVersion latest = versioned.latestVersion(hidden);
    io.statesweep.store.MarkerRemoval otherBytes = versioned.removeMarkerIfLatest(hidden, markers.get(hidden),
        hostileEtag);
    io.statesweep.store.MarkerRemoval restored = versioned.removeMarkerIfLatest(hidden, markers.get(hidden),
        hiddenEtag);
    io.statesweep.store.MarkerRemoval restoredHostile = versioned.removeMarkerIfLatest(hostile, markers.get(hostile),
        null);
    io.statesweep.store.MarkerRemoval written = versioned.removeMarkerIfLatest(rewritten, markers.get(rewritten),
        rewrittenEtag);
    io.statesweep.store.MarkerRemoval notOurs = versioned.removeMarkerIfLatest(deletedAgain, markers.get(deletedAgain),
        deletedAgainEtag);
    io.statesweep.store.MarkerRemoval again = versioned.removeMarkerIfLatest(hidden, markers.get(hidden), hiddenEtag);
    io.statesweep.store.MarkerRemoval neverWritten = versioned.removeMarkerIfLatest("undo/never.pdf", "v1", null);

    assertThat(latest.deleteMarker()).isTrue();
    assertThat(otherBytes.status()).as("the version behind has other bytes than the one deleted")
        .isEqualTo(io.statesweep.store.MarkerRemoval.Status.NOT_RESTORED);
    assertThat(otherBytes.detail()).contains("is not the one deleted (ETag " + hostileEtag + ")");
    assertThat(latest.versionId()).isEqualTo(markers.get(hidden));
    assertThat(restored.status()).isEqualTo(io.statesweep.store.MarkerRemoval.Status.RESTORED);
    assertThat(versioned.read(hidden, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("hidden");
    assertThat(restored.currentVersion()).isEqualTo(versioned.latestVersion(hidden).versionId());
    assertThat(restoredHostile.status()).isEqualTo(io.statesweep.store.MarkerRemoval.Status.RESTORED);
    assertThat(versioned.read(hostile, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("hostile");
    assertThat(written.status()).isEqualTo(io.statesweep.store.MarkerRemoval.Status.WRITTEN_SINCE);
    assertThat(written.currentVersion()).isEqualTo(versioned.latestVersion(rewritten).versionId());
    assertThat(versioned.read(rewritten, 100).object().etag()).isEqualTo(afterMarker);
    assertThat(notOurs.status()).isEqualTo(io.statesweep.store.MarkerRemoval.Status.NOT_RESTORED);
    assertThat(notOurs.detail()).contains(otherMarker).contains(markers.get(deletedAgain));
    assertThat(versioned.read(deletedAgain, 100)).as("another run's marker stays").isNull();
    assertThat(versioned.latestVersion(deletedAgain).versionId()).isEqualTo(otherMarker);
    assertThat(again.status()).as("the marker is gone: the file is current")
        .isEqualTo(io.statesweep.store.MarkerRemoval.Status.WRITTEN_SINCE);
    assertThat(neverWritten.status()).isEqualTo(io.statesweep.store.MarkerRemoval.Status.NOT_RESTORED);
    assertThat(neverWritten.detail()).isEqualTo("no version of it is left");
    assertThat(versioned.read(longerKey, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("other key");
  }

  /**
   * What a restore in batches walks and removes: ListObjectVersions by pages under a prefix, from a key marker (and
   * within a key, a version marker), keys in S3's order and each key's latest first, every entry once; DeleteObjects
   * of versions removes delete markers so that the versions behind them are current again, a key that cannot travel
   * in XML included, and writes no marker.
   */
  @Test
  void walksVersionsByPagesAndRemovesVersionsInOneRequest() {
    ObjectStore versioned = storeOfAVersionedBucket();
    assumeTrue(versioned != null, () -> getClass().getSimpleName() + ": " + whyNoVersionedBucket());
    String twice = "walk/a.pdf";
    String hostile = "walk/b\n.pdf";
    String once = "walk/b.pdf";
    String kept = "walk/c.pdf";
    versioned.write(twice, bytes("first"));
    String secondEtag = versioned.write(twice, bytes("second"));
    versioned.write(hostile, bytes("hostile"));
    versioned.write(once, bytes("once"));
    versioned.write(kept, bytes("kept"));
    versioned.write("walked/outside.pdf", bytes("outside the prefix"));
    java.util.Map<String, String> markers = versioned.delete(List.of(new DeleteTarget(twice, null),
        new DeleteTarget(hostile, null), new DeleteTarget(once, null))).markers();

    List<io.statesweep.store.ObjectVersion> walked = new ArrayList<>();
    List<Integer> pageSizes = new ArrayList<>();
    String keyMarker = null;
    String versionIdMarker = null;
    do {
      io.statesweep.store.ObjectVersion.Page page = versioned.listVersions("walk/", keyMarker, versionIdMarker, 2);
      walked.addAll(page.versions());
      pageSizes.add(page.versions().size());
      keyMarker = page.nextKeyMarker();
      versionIdMarker = page.nextVersionIdMarker();
    } while (keyMarker != null);
    io.statesweep.store.ObjectVersion.Page fromMarker = versioned.listVersions("walk/", twice, null, 1000);
    DeleteResult removed = versioned.deleteVersions(java.util.Map.of(twice, markers.get(twice), hostile,
        markers.get(hostile), once, markers.get(once)));

    assertThat(walked).extracting(io.statesweep.store.ObjectVersion::key).containsExactly(twice, twice, twice,
        hostile, hostile, once, once, kept);
    assertThat(walked).extracting(io.statesweep.store.ObjectVersion::deleteMarker).containsExactly(true, false, false,
        true, false, true, false, false);
    assertThat(walked).extracting(io.statesweep.store.ObjectVersion::latest).containsExactly(true, false, false,
        true, false, true, false, true);
    assertThat(walked.get(0).versionId()).isEqualTo(markers.get(twice));
    assertThat(walked.get(1).etag()).as("newest first behind the marker").isEqualTo(secondEtag);
    assertThat(pageSizes).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(2));
    assertThat(fromMarker.versions()).extracting(io.statesweep.store.ObjectVersion::key).first().isEqualTo(hostile);
    assertThat(removed.deleted()).containsExactlyInAnyOrder(twice, hostile, once);
    assertThat(removed.errors()).isEmpty();
    assertThat(removed.markers()).as("a removal writes no marker").isEmpty();
    assertThat(versioned.read(twice, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("second");
    assertThat(versioned.read(hostile, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("hostile");
    assertThat(versioned.read(once, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("once");
  }

  /** What the run lock rests on: a create that only one writer wins, a replace only of the version seen. */
  @Test
  void createsOnlyWhatIsAbsentAndReplacesOnlyTheVersionSeen() {
    assumeLikeS3(Behaviour.CONDITIONAL_WRITES);
    String key = "lock/run.lock";

    String created = store().createIfAbsent(key, bytes("first"));
    String again = store().createIfAbsent(key, bytes("second"));
    String stale = store().replaceIfMatch(key, bytes("stale"), ConditionProbe.WRONG_ETAG);
    String replaced = store().replaceIfMatch(key, bytes("replaced"), created);
    String ofMissing = store().replaceIfMatch("lock/missing.lock", bytes("x"), created);

    assertThat(created).isNotEmpty().doesNotContain("\"");
    assertThat(again).isNull();
    assertThat(stale).isNull();
    assertThat(replaced).isNotEmpty().isNotEqualTo(created);
    assertThat(ofMissing).isNull();
    assertThat(store().read(key, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("replaced");
    assertThat(store().read(key, 100).object().etag()).isEqualTo(replaced);
    assertThat(store().read("lock/missing.lock", 100)).isNull();
  }

  /** A missing bucket says nothing of a key: every operation fails naming it, none reads as a missing key. */
  @Test
  void aMissingBucketIsAnErrorNeverAMissingKey() {
    ObjectStore missing = storeOfAMissingBucket();
    assumeTrue(missing != null, this::whyNoMissingBucket);

    assertNoSuchBucket(() -> missing.read("a/state.json", 100));
    assertNoSuchBucket(() -> missing.checkUnchanged("a/state.json", ConditionProbe.WRONG_ETAG));
    assertNoSuchBucket(() -> missing.listAll("a/", object -> { }));
    assertNoSuchBucket(() -> missing.listFolder("a/"));
    assertNoSuchBucket(() -> missing.listedObject("a/state.json"));
    assertNoSuchBucket(() -> missing.write("a/b.txt", new byte[] {1}));
    assertNoSuchBucket(() -> missing.createIfAbsent("a/b.txt", new byte[] {1}));
  }

  @Test
  void answersTheVersioningOfItsBucket() {
    BucketVersioning versioning = store().bucketVersioning();

    assertThat(versioning.status()).isEqualTo(versioningStatus());
    assertThat(versioning.keepsNoncurrentVersions()).isFalse();
    if (versioning.status().equals(BucketVersioning.UNKNOWN)) {
      assertThat(versioning.unknownBecause()).isNotBlank();
    }
  }

  private static void assertNoSuchBucket(ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StoreException.class,
        e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"));
  }

  private String write(String key, String content) {
    return store().write(key, bytes(content));
  }

  private static byte[] bytes(String content) {
    return content.getBytes(StandardCharsets.UTF_8);
  }
}
