package io.statesweep.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.local.LocalS3Server;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link S3ObjectStore} against a real S3-protocol server, through the product's own client factory: what is
 * particular to S3 (its messages, keys XML cannot carry, the requests it counts). What every store answers is the
 * contract's ({@code io.statesweep.store.ObjectStoreContract}, run on S3Proxy by {@code S3ProxyObjectStoreTest}).
 *
 * <p>Among its cases: one key of each XML class deleted among normal keys on S3Proxy, which answers U+0001 in a
 * DeleteObjects body with {@code MalformedXML}, as S3 does: exactly those keys go, in one DeleteObjects request and
 * one DeleteObject per odd key, and the keys an XML parser or a repair would read instead stay.
 */
@ExtendWith(S3ServerExtension.class)
class ObjectStoreTest {
  private static final String BUCKET = "object-store-test";

  private static S3Client client;
  private static ObjectStore store;

  @BeforeAll
  static void startStore(LocalS3Server server) {
    server.createBucket(BUCKET);
    client = S3Clients.build(server.s3Settings());
    store = new S3ObjectStore(client, BUCKET);
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @Test
  void readsAnObjectWithTheVersionItRead() {
    String etag = write("read/doc.json", "{\"delete\":false}");

    ObjectContent content = store.read("read/doc.json", 1024);

    assertThat(new String(content.bytes(), StandardCharsets.UTF_8)).isEqualTo("{\"delete\":false}");
    assertThat(content.truncated()).isFalse();
    assertThat(content.object().key()).isEqualTo("read/doc.json");
    assertThat(content.object().etag()).isEqualTo(etag).doesNotContain("\"");
    assertThat(content.object().size()).isEqualTo(16);
    List<StoredObject> listed = new ArrayList<>();
    store.listAll("read/doc.json", listed::add);
    assertThat(listed).containsExactly(content.object());
  }

  @Test
  void namesTheOperationTheKeyAndTheCodeWhenTheBucketIsMissing() {
    ObjectStore missing = new S3ObjectStore(client, "no-such-bucket");

    assertThatThrownBy(() -> missing.read("a/state.json", 100))
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"))
        .hasMessageStartingWith("Cannot read s3://no-such-bucket/a/state.json: NoSuchBucket (404): ");
    assertThatThrownBy(() -> missing.listAll("a/", object -> { }))
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"))
        .hasMessageStartingWith("Cannot list s3://no-such-bucket/a/: NoSuchBucket (404): ");
    assertThatThrownBy(() -> missing.listFolder("a/"))
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"))
        .hasMessageStartingWith("Cannot list s3://no-such-bucket/a/: NoSuchBucket (404): ");
    assertThatThrownBy(() -> missing.write("a/b.txt", new byte[] {1}))
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"))
        .hasMessageStartingWith("Cannot write s3://no-such-bucket/a/b.txt: NoSuchBucket (404): ");
  }

  /**
   * One key per class of characters XML cannot carry or carries altered, each among normal keys in one
   * delete: every key goes (its own DeleteObject where XML cannot carry it), exactly that key (the
   * keys that an XML parser or a "repair" would turn it into stay), and the normal keys go in one
   * DeleteObjects request that no odd key can fail.
   */
  @Test
  void deletesKeysThatXmlCannotCarryAloneAndExactlyThoseKeys() {
    Map<String, List<String>> oddKeysAndLookAlikes = new LinkedHashMap<>();
    oddKeysAndLookAlikes.put("xml/a\u0001b.pdf", List.of("xml/ab.pdf", "xml/a b.pdf", "xml/a\ufffdb.pdf"));
    oddKeysAndLookAlikes.put("xml/cr\rcr.pdf", List.of("xml/cr\ncr.pdf", "xml/cr cr.pdf", "xml/crcr.pdf"));
    oddKeysAndLookAlikes.put("xml/crlf\r\ncrlf.pdf", List.of("xml/crlf\ncrlf.pdf", "xml/crlf  crlf.pdf"));
    oddKeysAndLookAlikes.put("xml/lf\nlf.pdf", List.of("xml/lf lf.pdf"));
    oddKeysAndLookAlikes.put("xml/tab\ttab.pdf", List.of("xml/tab tab.pdf"));
    oddKeysAndLookAlikes.put("xml/del\u007fc1\u0085.pdf", List.of("xml/del\u007fc1\n.pdf"));
    oddKeysAndLookAlikes.put("xml/nonchar\uffff.pdf", List.of("xml/nonchar\ufffd.pdf"));
    oddKeysAndLookAlikes.put("xml/escaped &amp; <tag> \"q\" 'a'.pdf", List.of("xml/escaped & <tag> \"q\" 'a'.pdf"));
    List<String> normal = IntStream.range(0, 20).mapToObj(i -> "xml/normal-" + i + ".pdf").toList();
    List<DeleteTarget> targets = new ArrayList<>();
    for (String key : normal) {
      targets.add(new DeleteTarget(key, write(key, key)));
    }
    oddKeysAndLookAlikes.forEach((key, lookAlikes) -> {
      targets.add(new DeleteTarget(key, write(key, "odd")));
      lookAlikes.forEach(lookAlike -> write(lookAlike, "look-alike"));
    });
    List<StoredObject> before = new ArrayList<>();
    store.listAll("xml/", before::add);
    assertThat(before).extracting(StoredObject::key).containsAll(oddKeysAndLookAlikes.keySet());
    S3ObjectStore counted = new S3ObjectStore(client, BUCKET);

    DeleteResult result = counted.delete(targets);

    assertThat(result.errors()).isEmpty();
    assertThat(result.deleted()).containsExactlyInAnyOrderElementsOf(targets.stream().map(DeleteTarget::key).toList());
    List<String> left = new ArrayList<>();
    store.listAll("xml/", object -> left.add(object.key()));
    assertThat(left).containsExactlyInAnyOrderElementsOf(
        oddKeysAndLookAlikes.values().stream().flatMap(List::stream).toList());
    assertThat(counted.requestCounts().snapshot())
        .containsEntry("DeleteObjects.calls", 1L)
        .containsEntry("DeleteObject.calls", 7L);
  }

  @Test
  void aKeyXmlCannotCarryIsDeletedOnlyWhileItHasItsETag() {
    String key = "xml-etag/a\u0001b.pdf";
    String old = write(key, "first");
    write(key, "second");

    DeleteResult result = store.delete(List.of(new DeleteTarget(key, old), new DeleteTarget("xml-etag/missing\u0002", "x")));

    assertThat(result.errors()).containsOnlyKeys(key);
    assertThat(result.errors().get(key).code()).isEqualTo("PreconditionFailed");
    assertThat(result.deleted()).containsExactly("xml-etag/missing\u0002");
    assertThat(store.read(key, 100).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("second");
  }

  private static String write(String key, String content) {
    return store.write(key, content.getBytes(StandardCharsets.UTF_8));
  }
}
