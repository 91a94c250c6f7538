package io.statesweep.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.local.LocalS3Server;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoreException;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A 404 says that a key is gone only when its code is NoSuchKey: a NoSuchBucket (a request sent to the wrong
 * place, a bucket being recreated) says nothing of the key, and must never count as a deletion or make a
 * state file look deleted already. The proxy answers NoSuchBucket itself; S3Proxy still holds every key.
 */
@ExtendWith(S3ServerExtension.class)
class NotFoundAnswersTest {
  private static final String BUCKET = "not-found";

  @Test
  void aDeleteObjectAnsweredNoSuchBucketIsAnErrorNotADeletion(LocalS3Server server) throws Exception {
    ObjectStore direct = bucket(server);
    // XML cannot carry U+0001: the key goes alone, in a DeleteObject.
    String odd = "nf/a\u0001b.pdf";
    String etag = direct.write(odd, "odd".getBytes(StandardCharsets.UTF_8));
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(request -> request.method().equals("DELETE") ? FaultProxy.Fault.NO_SUCH_BUCKET : null);
      ObjectStore store = through(server, proxy);

      DeleteResult result = store.delete(List.of(new DeleteTarget(odd, etag), new DeleteTarget("nf/gone\u0002", null)));

      assertThat(result.deleted()).isEmpty();
      assertThat(result.errors()).containsOnlyKeys(odd, "nf/gone\u0002");
      assertThat(result.errors().get(odd).code()).isEqualTo("NoSuchBucket");
      assertThat(result.errors().get(odd).message()).startsWith("Cannot delete s3://" + BUCKET + "/" + odd
          + ": NoSuchBucket (404): ");
      assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.NO_SUCH_BUCKET, 2L);
    }
    assertThat(direct.read(odd, 100)).as("the key is still there").isNotNull();
  }

  @Test
  void aConditionalReadAnsweredNoSuchBucketFailsAndNeverSaysTheStateFileIsGone(LocalS3Server server)
      throws Exception {
    ObjectStore direct = bucket(server);
    String key = "nf/projects/p1/state.json";
    String etag = direct.write(key, "{\"delete\": true}".getBytes(StandardCharsets.UTF_8));
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(request -> request.method().equals("GET") ? FaultProxy.Fault.NO_SUCH_BUCKET : null);
      ObjectStore store = through(server, proxy);

      assertThatThrownBy(() -> store.readIfMatch(key, etag, 1024))
          .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"))
          .hasMessageStartingWith("Cannot read s3://" + BUCKET + "/" + key + ": NoSuchBucket (404): ");
      assertThatThrownBy(() -> store.checkUnchanged(key, etag))
          .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.errorCode()).isEqualTo("NoSuchBucket"));
    }
    // A key that is really gone still is: NoSuchKey.
    assertThat(direct.readIfMatch("nf/projects/p2/state.json", etag, 1024).check()).isEqualTo(StateCheck.GONE);
    assertThat(direct.delete(List.of(new DeleteTarget("nf/never\u0001", etag))).deleted())
        .containsExactly("nf/never\u0001");
  }

  private static ObjectStore bucket(LocalS3Server server) {
    return S3ObjectStore.open(server.s3Settings(), server.createBucket(BUCKET));
  }

  private static ObjectStore through(LocalS3Server server, FaultProxy proxy) {
    return S3ObjectStore.open(server.s3Settings().withEndpoint(proxy.endpoint(), true), BUCKET);
  }
}
