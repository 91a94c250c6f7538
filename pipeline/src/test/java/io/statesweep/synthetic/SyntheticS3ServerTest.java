package io.statesweep.synthetic;

import static io.statesweep.testing.DatasetAssertions.assertSameRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.statesweep.api.PlanResult;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Layout;
import io.statesweep.store.FolderListing;
import io.statesweep.store.ListingDepth;
import io.statesweep.store.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3Settings;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoreException;
import io.statesweep.scan.BudgetedListing;
import io.statesweep.scan.ListingFanOut;
import io.statesweep.scan.ListingTask;
import io.statesweep.spark.TestActions;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The synthetic S3 endpoint answers as a real S3-protocol server does, for what statesweep uses. */
@ExtendWith(S3ServerExtension.class)
class SyntheticS3ServerTest {
  private static final SyntheticArchive SMALL = new SyntheticArchive("cogram/", 60, 3, 7, false, 4);

  private static ObjectStore store(String endpoint, String bucket) {
    return S3ObjectStore.open(S3Settings.defaults().withEndpoint(endpoint, true), bucket);
  }

  @Test
  void listsEveryGeneratedKeyInOrderAcrossPages() throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 700, 2, 100, false, 10);
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", archive, Duration.ZERO, 0)) {
      List<String> keys = new ArrayList<>();
      store(server.endpoint(), "synthetic").listAll("cogram/", object -> keys.add(object.key()));

      assertThat(keys).hasSize(2_100).isSorted();
      assertThat(keys.get(0)).isEqualTo("cogram/projects/p000000/documents/d000000000/f00.bin");
      assertThat(keys.get(2_099)).isEqualTo("cogram/projects/p000006/documents/d000000699/state.json");
      assertThat(server.requestCounts().get("LIST")).isEqualTo(3);
    }
  }

  @Test
  void delimiterListingGivesFoldersAndPrefixesNarrowTheListing() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      FolderListing projects = store.listFolder("cogram/projects/");
      List<String> oneRecord = new ArrayList<>();
      store.listAll("cogram/projects/p000001/documents/d000000008/", object -> oneRecord.add(object.key()));

      assertThat(projects.folders()).hasSize(9).first().isEqualTo("cogram/projects/p000000/");
      assertThat(projects.objects()).isEmpty();
      assertThat(store.listFolder("cogram/").folders()).containsExactly("cogram/projects/");
      assertThat(oneRecord).containsExactly("cogram/projects/p000001/documents/d000000008/f00.bin",
          "cogram/projects/p000001/documents/d000000008/f01.bin",
          "cogram/projects/p000001/documents/d000000008/f02.bin",
          "cogram/projects/p000001/documents/d000000008/state.json");
    }
  }

  @Test
  void conditionalReadsDeletesAndWritesBehaveLikeS3() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      String key = SMALL.key(4, 0);
      StoredObject object = store.head(key);

      assertThat(store.checkUnchanged(key, object.etag())).isEqualTo(StateCheck.UNCHANGED);
      assertThat(store.checkUnchanged(key, "0123")).isEqualTo(StateCheck.CHANGED);
      DeleteResult refused = store.delete(List.of(new DeleteTarget(key, "0123")));
      assertThat(refused.errors().get(key).code()).isEqualTo("PreconditionFailed");
      DeleteResult done = store.delete(List.of(new DeleteTarget(key, object.etag())));
      assertThat(done.deleted()).containsExactly(key);
      assertThat(store.head(key)).isNull();
      assertThat(store.checkUnchanged(key, object.etag())).isEqualTo(StateCheck.GONE);

      String lock = "cogram.statesweep/lock";
      var client = S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true));
      client.putObject(b -> b.bucket("synthetic").key(lock).ifNoneMatch("*"),
          software.amazon.awssdk.core.sync.RequestBody.fromString("one"));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.putObject(
              b -> b.bucket("synthetic").key(lock).ifNoneMatch("*"),
              software.amazon.awssdk.core.sync.RequestBody.fromString("two")))
          .isInstanceOf(S3Exception.class).extracting(e -> ((S3Exception) e).statusCode()).isEqualTo(412);
      String etag = client.headObject(b -> b.bucket("synthetic").key(lock)).eTag();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.putObject(
              b -> b.bucket("synthetic").key(lock).ifMatch("\"0123\""),
              software.amazon.awssdk.core.sync.RequestBody.fromString("three")))
          .isInstanceOf(S3Exception.class).extracting(e -> ((S3Exception) e).statusCode()).isEqualTo(412);
      client.putObject(b -> b.bucket("synthetic").key(lock).ifMatch(etag),
          software.amazon.awssdk.core.sync.RequestBody.fromString("four"));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.putObject(
              b -> b.bucket("synthetic").key("cogram.statesweep/none").ifMatch(etag),
              software.amazon.awssdk.core.sync.RequestBody.fromString("five")))
          .isInstanceOf(S3Exception.class).extracting(e -> ((S3Exception) e).statusCode()).isEqualTo(404);
      // The SDK sends a PUT over http as aws-chunked (signed chunks): what is stored is the payload.
      assertThat(store.read(lock, 100).bytes()).asString().isEqualTo("four");
      assertThat(new String(SyntheticS3Server.decodeAwsChunked(("3;chunk-signature=ab\r\nabc\r\n2;chunk-signature=cd\r\n"
          + "de\r\n0;chunk-signature=ef\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("abcde");
      List<String> keys = new ArrayList<>();
      store.listAll("", o -> keys.add(o.key()));
      assertThat(keys).contains(lock).doesNotContain(key).hasSize(240);
    }
  }

  @Test
  void answersSlowDownAboveItsPerPrefixRate() throws Exception {
    // The seconds the rate counts in are the test's: 20 requests in one second, however long they take.
    AtomicLong nanos = new AtomicLong(7_000_000_000L);
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 5).rateClock(nanos::get)) {
      HttpClient http = HttpClient.newHttpClient();
      URI key = URI.create(server.endpoint() + "/synthetic/" + SMALL.key(1, 0));
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        statuses.add(http.send(HttpRequest.newBuilder(key).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
      }
      assertThat(statuses.subList(0, 5)).containsOnly(200);
      assertThat(statuses.subList(5, 20)).containsOnly(503);
      assertThat(server.requestCounts()).containsEntry("SLOWDOWN", 15L);

      nanos.addAndGet(999_999_999L); // the last nanosecond of the same second
      assertThat(http.send(HttpRequest.newBuilder(key).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(503);
      nanos.incrementAndGet(); // the next second
      assertThat(http.send(HttpRequest.newBuilder(key).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  @Tag("slow")
  void theSameArchiveGivesTheSameListingAndPlanAsS3Proxy(LocalS3Server s3proxy, @TempDir Path warehouse)
      throws Exception {
    s3proxy.createBucket("synthetic-copy");
    ObjectStore copy = store(s3proxy.endpoint(), "synthetic-copy");
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      ObjectStore synthetic = store(server.endpoint(), "synthetic");
      Map<String, StoredObject> generated = new TreeMap<>();
      synthetic.listAll("", object -> generated.put(object.key(), object));
      for (String key : generated.keySet()) {
        copy.write(key, synthetic.read(key, 1 << 20).bytes());
      }
      Map<String, StoredObject> copied = new TreeMap<>();
      copy.listAll("", object -> copied.put(object.key(), object));

      assertThat(copied.keySet()).isEqualTo(generated.keySet());
      for (String key : generated.keySet()) {
        assertThat(copied.get(key).size()).as(key).isEqualTo(generated.get(key).size());
      }
      Dataset<Row> onSynthetic = plan(server.endpoint(), "synthetic", warehouse.resolve("a"));
      assertSameRows("the plan on S3Proxy", onSynthetic,
          plan(s3proxy.endpoint(), "synthetic-copy", warehouse.resolve("b")));
      assertThat(onSynthetic.count()).isEqualTo(60);
      assertThat(onSynthetic.filter("action = 'delete_record' and keys_to_delete = 4").count()).isPositive();
      assertThat(onSynthetic.filter("action = 'keep' and keys_to_delete = 0").count()).isPositive();
    }
  }

  @Test
  void answersWhatHadoopS3aAsksToListAndRead() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      org.apache.hadoop.conf.Configuration conf = s3a(server.endpoint());
      conf.set("fs.s3a.bucket.probe", "2"); // HEAD bucket when the file system starts
      try (org.apache.hadoop.fs.FileSystem fs = org.apache.hadoop.fs.FileSystem.newInstance(URI.create("s3a://synthetic/"),
          conf)) {
        String stateKey = SMALL.key(8, 3);
        byte[] document = SMALL.content(8, 3);
        org.apache.hadoop.fs.FileStatus prefix = fs.getFileStatus(new org.apache.hadoop.fs.Path("s3a://synthetic/cogram"));
        org.apache.hadoop.fs.FileStatus state = fs.getFileStatus(new org.apache.hadoop.fs.Path("s3a://synthetic/" + stateKey));
        org.apache.hadoop.fs.FileStatus[] projects = fs.listStatus(new org.apache.hadoop.fs.Path("s3a://synthetic/cogram/projects"));
        List<String> keys = new ArrayList<>();
        org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> files =
            fs.listFiles(new org.apache.hadoop.fs.Path("s3a://synthetic/cogram/"), true);
        while (files.hasNext()) {
          keys.add(files.next().getPath().toUri().getPath().substring(1));
        }
        byte[] read;
        byte[] tail = new byte[10];
        try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(state.getPath())) {
          read = in.readAllBytes();
          in.readFully(document.length - 10, tail); // a positioned read: a ranged GET
        }

        assertThat(prefix.isDirectory()).isTrue();
        assertThat(state.isFile()).isTrue();
        assertThat(state.getLen()).isEqualTo(document.length);
        assertThat(projects).hasSize(9).allMatch(org.apache.hadoop.fs.FileStatus::isDirectory);
        assertThat(keys).hasSize(240).isSorted().contains(stateKey);
        assertThat(read).isEqualTo(document);
        assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(document, document.length - 10, document.length));
        assertThat(server.requestCounts()).containsKeys("HEAD_BUCKET", "HEAD", "LIST", "GET")
            .doesNotContainKey("OTHER");
        assertThat(server.unsupportedRequests()).isEmpty();
      }
    }
  }

  @Test
  void bucketRequestsAreAnsweredAsS3Does() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      HttpResponse<String> head = send(server, "HEAD", "/synthetic", Map.of());
      HttpResponse<String> missing = send(server, "HEAD", "/other", Map.of());
      HttpResponse<String> location = send(server, "GET", "/synthetic?location", Map.of());
      HttpResponse<String> uploads = send(server, "GET", "/synthetic?uploads", Map.of());
      HttpResponse<String> buckets = send(server, "GET", "/", Map.of());
      HttpResponse<String> versioning = send(server, "GET", "/synthetic?versioning", Map.of());
      HttpResponse<String> tagging = send(server, "GET", "/synthetic?tagging", Map.of());
      var client = S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true));

      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.headers().firstValue("x-amz-bucket-region")).hasValue("us-east-1");
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(location.body()).contains("<LocationConstraint");
      assertThat(client.getBucketLocation(b -> b.bucket("synthetic")).locationConstraintAsString()).isEmpty();
      assertThat(client.headBucket(b -> b.bucket("synthetic")).sdkHttpResponse().isSuccessful()).isTrue();
      assertThat(uploads.body()).contains("<IsTruncated>false</IsTruncated>").doesNotContain("<Upload>");
      assertThat(buckets.body()).contains("<Name>synthetic</Name>");
      // A bucket whose versioning was never set: a configuration without a status, as S3 answers it.
      assertThat(versioning.statusCode()).isEqualTo(200);
      assertThat(versioning.body()).contains("<VersioningConfiguration").doesNotContain("<Status>");
      assertThat(client.getBucketVersioning(b -> b.bucket("synthetic")).status()).isNull();
      assertThat(tagging.statusCode()).isEqualTo(501);
      assertThat(server.unsupportedRequests()).containsExactly("GET /synthetic?tagging");
    }
  }

  @Test
  void listObjectsV1PagesWithMarkersAndUrlEncodingIsHonoured() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      var client = S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true));
      List<String> keys = new ArrayList<>();
      String marker = null;
      int pages = 0;
      do {
        String from = marker;
        var page = client.listObjects(b -> b.bucket("synthetic").prefix("cogram/").maxKeys(70).marker(from));
        page.contents().forEach(o -> keys.add(o.key()));
        marker = page.isTruncated() ? page.contents().get(page.contents().size() - 1).key() : null;
        pages++;
      } while (marker != null);
      List<String> projects = new ArrayList<>();
      String next = null;
      do {
        String from = next;
        var page = client.listObjects(b -> b.bucket("synthetic").prefix("cogram/projects/").delimiter("/").maxKeys(4)
            .marker(from));
        page.commonPrefixes().forEach(p -> projects.add(p.prefix()));
        next = page.isTruncated() ? page.nextMarker() : null;
      } while (next != null);
      String odd = "cogram/odd/a key+with%signs & <xml>.bin";
      server.put(odd, "x".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      HttpResponse<String> encoded = send(server, "GET", "/synthetic?list-type=2&prefix=cogram%2Fodd%2F&encoding-type=url",
          Map.of());
      var decoded = client.listObjectsV2(b -> b.bucket("synthetic").prefix("cogram/odd/").encodingType("url"));

      assertThat(keys).hasSize(240).isSorted().doesNotHaveDuplicates();
      assertThat(pages).isEqualTo(4);
      assertThat(projects).hasSize(9).doesNotHaveDuplicates().first().isEqualTo("cogram/projects/p000000/");
      assertThat(encoded.body()).contains("<Key>cogram/odd/a%20key%2Bwith%25signs%20%26%20%3Cxml%3E.bin</Key>")
          .contains("<EncodingType>url</EncodingType>");
      assertThat(decoded.contents()).extracting(o -> o.key()).containsExactly(odd);
      assertThat(client.headObject(b -> b.bucket("synthetic").key(odd)).contentLength()).isEqualTo(1);
    }
  }

  @Test
  void rangesAndIfNoneMatchAndSingleDeletesBehaveLikeS3() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      String key = SMALL.key(2, 3);
      String path = "/synthetic/" + key;
      byte[] content = SMALL.content(2, 3);
      String etag = "\"" + SMALL.etag(2, 3) + "\"";
      HttpResponse<String> first = send(server, "GET", path, Map.of("Range", "bytes=0-9"));
      HttpResponse<String> open = send(server, "GET", path, Map.of("Range", "bytes=5-"));
      HttpResponse<String> suffix = send(server, "GET", path, Map.of("Range", "bytes=-4"));
      HttpResponse<String> beyond = send(server, "GET", path, Map.of("Range", "bytes=" + content.length + "-"));
      HttpResponse<String> clipped = send(server, "GET", path, Map.of("Range", "bytes=0-99999"));
      HttpResponse<String> notModified = send(server, "GET", path, Map.of("If-None-Match", etag));
      HttpResponse<String> modified = send(server, "GET", path, Map.of("If-None-Match", "\"0123\""));
      HttpResponse<String> wrongDelete = send(server, "DELETE", path, Map.of("If-Match", "\"0123\""));
      HttpResponse<String> delete = send(server, "DELETE", path, Map.of("If-Match", etag));
      HttpResponse<String> goneWithIfMatch = send(server, "DELETE", path, Map.of("If-Match", etag));
      HttpResponse<String> gone = send(server, "DELETE", path, Map.of());
      String text = new String(content, java.nio.charset.StandardCharsets.UTF_8);

      assertThat(first.statusCode()).isEqualTo(206);
      assertThat(first.body()).isEqualTo(text.substring(0, 10));
      assertThat(first.headers().firstValue("Content-Range")).hasValue("bytes 0-9/" + content.length);
      assertThat(open.body()).isEqualTo(text.substring(5));
      assertThat(suffix.body()).isEqualTo(text.substring(text.length() - 4));
      assertThat(beyond.statusCode()).isEqualTo(416);
      assertThat(clipped.statusCode()).isEqualTo(206);
      assertThat(clipped.body()).isEqualTo(text);
      assertThat(notModified.statusCode()).isEqualTo(304);
      assertThat(modified.statusCode()).isEqualTo(200);
      assertThat(wrongDelete.statusCode()).isEqualTo(412);
      assertThat(delete.statusCode()).isEqualTo(204);
      assertThat(goneWithIfMatch.statusCode()).isEqualTo(404);
      assertThat(gone.statusCode()).isEqualTo(204);
      assertThat(send(server, "HEAD", path, Map.of()).statusCode()).isEqualTo(404);
      assertThat(SyntheticS3Server.range("bytes=5-3", 10)).isNull();
      assertThat(SyntheticS3Server.range("bytes=0-1,4-5", 10)).isNull();
    }
  }

  @Test
  @Tag("slow")
  void aStartAfterThatXmlCannotCarryIsEchoedAsS3DoesAndOnlyUrlEncodingReadsIt() throws Exception {
    // statesweep's listing splits start after "<covered prefix>\uffff" (BudgetedListing); S3 echoes it.
    String after = "cogram/projects/p000001/documents/d00000000\uffff";
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      var client = S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true));
      var lenient = client.listObjectsV2(b -> b.bucket("synthetic").prefix("cogram/").startAfter(after).maxKeys(1));
      server.echoXmlInvalidStartAfter(true);
      var encoded = client.listObjectsV2(b -> b.bucket("synthetic").prefix("cogram/").startAfter(after).maxKeys(1)
          .encodingType("url"));

      assertThat(lenient.startAfter()).isNull();
      assertThat(lenient.contents().get(0).key()).isEqualTo(SMALL.key(10, 0));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.listObjectsV2(
              b -> b.bucket("synthetic").prefix("cogram/").startAfter(after).maxKeys(1)))
          .hasMessageContaining("Could not parse XML response");
      assertThat(encoded.startAfter()).isEqualTo(after);
      assertThat(encoded.contents().get(0).key()).isEqualTo(SMALL.key(10, 0));
    }
  }

  @Test
  void listingsOverEmptyTruncatedPagesAndPagesOfFewerKeysMatchAPlainListingKeyForKey() throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 300, 2, 100, true, 10);
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", archive, Duration.ZERO, 0)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      Map<String, List<String>> plain = listings(store);
      long plainRequests = server.requestCounts().get("LIST");
      assertThat(plain.get("listAll")).hasSize(900);

      // {empty truncated pages before each page of keys, at most this many keys a page}
      int[][] modes = {{1, 0}, {0, 100}, {2, 250}};
      for (int[] mode : modes) {
        server.emptyTruncatedPages(mode[0]).shortPages(mode[1]).resetCounts();

        Map<String, List<String>> quirky = listings(store);

        assertThat(quirky).as("empty pages %d, short pages %d", mode[0], mode[1]).isEqualTo(plain);
        // The modes answered: more pages than a plain listing.
        assertThat(server.requestCounts().get("LIST")).isGreaterThan(plainRequests);
      }
    }
  }

  @Test
  void aTruncatedPageWithoutATokenOrWithARepeatedTokenFailsTheListingNamingThePrefix() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0).shortPages(50)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      server.continuationTokens(SyntheticS3Server.ContinuationTokens.MISSING);
      String missing = "Cannot list s3://synthetic/cogram/: page 1 is truncated but has no continuation token, so the keys"
          + " after it cannot be listed";

      assertThatThrownBy(() -> store.listAll("cogram/", object -> { })).isInstanceOf(StoreException.class)
          .hasMessage(missing);
      assertThatThrownBy(() -> store.iterate("cogram/", ListingDepth.RECURSIVE).forEachRemaining(object -> { }))
          .isInstanceOf(StoreException.class).hasMessage(missing);
      assertThatThrownBy(() -> new BudgetedListing(store::listPage, 10).list(
              new ListingTask("cogram/", ListingDepth.RECURSIVE), object -> { })).isInstanceOf(StoreException.class)
          .hasMessage("Cannot list cogram/: page 1 is truncated but has no continuation token, so the keys after it"
              + " cannot be listed");

      server.continuationTokens(SyntheticS3Server.ContinuationTokens.REPEATED);
      // The SDK's paginator asks again and again for a token it was given before: bounded, so that a
      // listing that loops fails this test rather than hang it.
      assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
        assertThatThrownBy(() -> store.listAll("cogram/", object -> { })).isInstanceOf(StoreException.class)
            .hasMessageStartingWith("Cannot list s3://synthetic/cogram/: page 2 answered the continuation token ")
            .hasMessageEndingWith(" a second time, so the listing would never end");
        assertThatThrownBy(() -> store.iterate("cogram/", ListingDepth.RECURSIVE).forEachRemaining(object -> { }))
            .isInstanceOf(StoreException.class)
            .hasMessageStartingWith("Cannot list s3://synthetic/cogram/: page 2 answered the continuation token ");
        server.shortPages(2); // a folder level of 7 records: more than one page
        assertThatThrownBy(() -> store.listFolder("cogram/projects/p000000/documents/")).isInstanceOf(StoreException.class)
            .hasMessageStartingWith("Cannot list s3://synthetic/cogram/projects/p000000/documents/: page 2 answered");
      });
      server.continuationTokens(SyntheticS3Server.ContinuationTokens.MISSING);
      assertThatThrownBy(() -> store.listFolder("cogram/projects/p000000/documents/")).isInstanceOf(StoreException.class)
          .hasMessage("Cannot list s3://synthetic/cogram/projects/p000000/documents/: page 1 is truncated but has no"
              + " continuation token, so the keys after it cannot be listed");
    }
  }

  /**
   * Every listing statesweep makes, key for key in the order listed: ObjectStore's paginated listings
   * (execute lists a record's folder with {@code iterate}) and the plan's fan-out: folder tasks, then
   * tasks of five pages each (short pages split them), split by BudgetedListing, as Listings.ListTasks runs them.
   */
  private static Map<String, List<String>> listings(ObjectStore store) {
    Map<String, List<String>> listings = new TreeMap<>();
    List<String> all = new ArrayList<>();
    store.listAll("cogram/", object -> all.add(object.key()));
    listings.put("listAll", all);
    FolderListing projects = store.listFolder("cogram/projects/");
    listings.put("listFolder", new ArrayList<>(projects.folders()));
    List<String> recursive = new ArrayList<>();
    store.iterate("cogram/projects/p000000/", ListingDepth.RECURSIVE).forEachRemaining(o -> recursive.add(o.key()));
    listings.put("iterate", recursive);
    List<String> direct = new ArrayList<>();
    store.iterate("cogram/projects/p000000/documents/d000000007/", ListingDepth.DIRECT)
        .forEachRemaining(o -> direct.add(o.key()));
    listings.put("iterateDirect", direct);

    KeyClassifier classifier = Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram/"));
    List<String> fanOut = new ArrayList<>();
    java.util.Deque<ListingTask> tasks = new java.util.ArrayDeque<>(new ListingFanOut(store, classifier).tasks());
    while (!tasks.isEmpty()) {
      ListingTask task = tasks.pop();
      if (task.depth() == ListingDepth.DIRECT) {
        store.iterate(task.prefix(), ListingDepth.DIRECT).forEachRemaining(o -> fanOut.add(o.key()));
      } else {
        tasks.addAll(new BudgetedListing(store::listPage, 5).list(task, o -> fanOut.add(o.key())).rest());
      }
    }
    java.util.Collections.sort(fanOut);
    listings.put("fanOut", fanOut);
    return listings;
  }

  @Test
  void runsInAProcessOfItsOwn() throws Exception {
    try (SyntheticS3Process process = SyntheticS3Process.start("synthetic", SMALL, Duration.ZERO, "128m")) {
      List<String> keys = new ArrayList<>();
      store(process.endpoint(), "synthetic").listAll("cogram/", object -> keys.add(object.key()));

      assertThat(keys).hasSize(240);
      assertThat(process.requestCounts()).containsEntry("LIST", 1L);
      process.resetCounts();
      assertThat(process.requestCounts()).isEmpty();
    }
  }

  @Test
  void aBigRecordListsEveryFileAndItsStateFileNamesThemAllInOneStreamedDocument() throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 40, 2, 10, false, 4).withBigRecords(2, 25_000);
    long[] big = archive.bigRecords();
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", archive, Duration.ZERO, 0)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      List<String> keys = new ArrayList<>();
      store.listAll("cogram/", object -> keys.add(object.key()));
      String folder = archive.folder(big[1]);
      String stateFile = folder + "state.json";
      HttpResponse<String> whole = send(server, "GET", "/synthetic/" + stateFile, Map.of());
      HttpResponse<String> slice = send(server, "GET", "/synthetic/" + stateFile, Map.of("Range", "bytes=1000000-1000099"));
      java.util.Map<?, ?> document = new com.fasterxml.jackson.databind.ObjectMapper().readValue(whole.body(),
          java.util.Map.class);

      assertThat(big).containsExactly(12, 24);
      assertThat(archive.isDue(big[0])).isTrue();
      assertThat(keys).hasSize((int) archive.keys()).hasSize(38 * 3 + 2 * 25_001).isSorted().doesNotHaveDuplicates();
      assertThat(keys).filteredOn(key -> key.startsWith(folder)).hasSize(25_001)
          .startsWith(folder + "big/f0000000.bin", folder + "big/f0000001.bin").endsWith(folder + "big/f0024999.bin",
              stateFile);
      assertThat(document.get("delete")).isEqualTo(true);
      assertThat((List<?>) document.get("files")).hasSize(25_000)
          .isEqualTo(keys.stream().filter(key -> key.startsWith(folder + "big/")).toList());
      assertThat((long) whole.body().length()).isEqualTo(archive.size(big[1], 25_000))
          .isEqualTo(store.head(stateFile).size());
      assertThat(slice.statusCode()).isEqualTo(206);
      assertThat(slice.body()).isEqualTo(whole.body().substring(1_000_000, 1_000_100));
      assertThat(archive.position(folder + "big/f0012345.bin")).isEqualTo(new SyntheticArchive.Position(big[1], 12_345));
      assertThat(archive.position(folder + "big/f0025000.bin")).isNull();
      assertThat(archive.position(archive.folder(4) + "big/f0000001.bin")).isNull();
      assertThat(archive.ceiling(folder + "big/f0012345.bin0")).isEqualTo(new SyntheticArchive.Position(big[1], 12_346));
    }
  }

  @Test
  void aVersionedBucketWritesAMarkerPerDeleteAndRemovingItMakesTheGeneratedVersionCurrentAgain() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)
        .versioning(SyntheticS3Server.Versioning.ENABLED)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      List<String> before = new ArrayList<>();
      store.listAll("cogram/", object -> before.add(object.key() + " " + object.etag()));
      List<DeleteTarget> targets = new ArrayList<>();
      for (int file = 0; file <= 3; file++) {
        targets.add(new DeleteTarget(SMALL.key(8, file), SMALL.etag(8, file)));
      }
      String written = SMALL.key(12, 0);

      DeleteResult deleted = store.delete(targets);
      server.put(written, "new bytes".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      DeleteResult again = store.delete(List.of(new DeleteTarget(written, null)));
      List<String> during = new ArrayList<>();
      store.listAll("cogram/", object -> during.add(object.key()));
      List<io.statesweep.store.ObjectVersion> versions = store.newestVersions(SMALL.key(8, 0), 2);
      KeyDigest whileDeleted = server.deletedKeys();

      assertThat(store.bucketVersioning().status()).isEqualTo("Enabled");
      assertThat(deleted.deleted()).hasSize(4);
      assertThat(deleted.markers()).hasSize(4).doesNotContainValue(null);
      assertThat(new java.util.HashSet<>(deleted.markers().values())).hasSize(4);
      assertThat(during).hasSize(before.size() - 5).doesNotContain(SMALL.key(8, 0), written);
      assertThat(versions).hasSize(2);
      assertThat(versions.get(0).deleteMarker()).isTrue();
      assertThat(versions.get(0).latest()).isTrue();
      assertThat(versions.get(0).versionId()).isEqualTo(deleted.markers().get(SMALL.key(8, 0)));
      assertThat(versions.get(1).etag()).isEqualTo(SMALL.etag(8, 0));
      assertThat(whileDeleted).isEqualTo(new KeyDigest().add(SMALL.key(8, 0)).add(SMALL.key(8, 1))
          .add(SMALL.key(8, 2)).add(SMALL.key(8, 3)).add(written));
      assertThat(store.head(SMALL.key(8, 3))).isNull();

      for (DeleteTarget target : targets) {
        io.statesweep.store.MarkerRemoval removal = store.removeMarkerIfLatest(target.key(),
            deleted.markers().get(target.key()), target.etag());
        assertThat(removal.status()).isEqualTo(io.statesweep.store.MarkerRemoval.Status.RESTORED);
        assertThat(removal.currentVersion()).startsWith("g");
        if (target.key().equals(SMALL.key(8, 0))) {
          assertThat(removal.currentVersion()).isEqualTo(versions.get(1).versionId());
        }
      }
      // Behind this marker is a version written since, not the one deleted: it stays.
      assertThat(store.removeMarkerIfLatest(written, again.markers().get(written), SMALL.etag(12, 0)).status())
          .isEqualTo(io.statesweep.store.MarkerRemoval.Status.NOT_RESTORED);
      List<String> after = new ArrayList<>();
      store.listAll("cogram/", object -> after.add(object.key() + " " + object.etag()));

      assertThat(after).hasSize(before.size() - 1).isSubsetOf(before);
      assertThat(server.deletedKeys()).isEqualTo(new KeyDigest().add(written));
      assertThat(store.head(SMALL.key(8, 3)).etag()).isEqualTo(SMALL.etag(8, 3));
      assertThat(store.newestVersions(SMALL.key(8, 3), 2)).singleElement()
          .satisfies(version -> assertThat(version.deleteMarker()).isFalse());
    }
  }

  @Test
  void listingVersionsPagesThroughGeneratedKeysTheirMarkersAndWrittenVersionsOnce() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)
        .versioning(SyntheticS3Server.Versioning.ENABLED)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      for (long record = 0; record < SMALL.records(); record += 3) {
        store.delete(List.of(new DeleteTarget(SMALL.key(record, 1), null), new DeleteTarget(SMALL.key(record, 3), null)));
      }
      server.put(SMALL.key(5, 0), new byte[] {1});
      server.put(SMALL.key(5, 0), new byte[] {2});
      var client = software.amazon.awssdk.services.s3.S3Client.builder()
          .endpointOverride(URI.create(server.endpoint())).forcePathStyle(true)
          .region(software.amazon.awssdk.regions.Region.US_EAST_1)
          .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
              software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("synthetic", "synthetic"))).build();

      List<String> seen = new ArrayList<>();
      long latestMarkers = 0;
      String keyMarker = null;
      String versionMarker = null;
      int pages = 0;
      while (true) {
        String km = keyMarker;
        String vm = versionMarker;
        var page = client.listObjectVersions(b -> b.bucket("synthetic").prefix("cogram/").maxKeys(7).keyMarker(km)
            .versionIdMarker(vm));
        pages++;
        page.versions().forEach(v -> seen.add(v.key() + "@" + v.versionId()));
        page.deleteMarkers().forEach(m -> seen.add(m.key() + "@" + m.versionId()));
        latestMarkers += page.deleteMarkers().stream().filter(m -> m.isLatest()).count();
        if (!page.isTruncated()) {
          break;
        }
        keyMarker = page.nextKeyMarker();
        versionMarker = page.nextVersionIdMarker();
      }
      client.close();

      // Every generated version once, a marker over 2 keys of every third record, two written versions of one key.
      assertThat(seen).doesNotHaveDuplicates().hasSize((int) SMALL.keys() + 2 * 20 + 2);
      assertThat(latestMarkers).isEqualTo(40);
      assertThat(pages).isEqualTo((seen.size() + 6) / 7);
      assertThat(server.deletedKeys().keys()).isEqualTo(40);
    }
  }

  /** Hadoop S3A pointed at a synthetic server, as a Spark user configures it for an S3-compatible store. */
  static org.apache.hadoop.conf.Configuration s3a(String endpoint) {
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
    conf.set("fs.s3a.endpoint", endpoint);
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.set("fs.s3a.path.style.access", "true");
    conf.set("fs.s3a.connection.ssl.enabled", "false");
    conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", "synthetic");
    conf.set("fs.s3a.secret.key", "synthetic");
    return conf;
  }

  private static HttpResponse<String> send(SyntheticS3Server server, String method, String pathAndQuery,
      Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.endpoint() + pathAndQuery))
        .method(method, HttpRequest.BodyPublishers.noBody());
    headers.forEach(request::header);
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Each record's action and number of keys to delete. */
  private static Dataset<Row> plan(String endpoint, String bucket, Path warehouse) {
    PlanResult result = TestActions.plan(SharedSpark.session(),
        TestOptions.of(endpoint, bucket, "cogram/", warehouse).options());
    assertThat(result.failure()).isNull();
    return TableReader.of(result.tables()).deletionPlan(result.runId())
        .select("state_file_key", "action", "keys_to_delete");
  }

}
