package io.statesweep.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.store.ObjectStore;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each store counts its own S3 requests by operation, with retries and throttled answers (on the
 * synthetic endpoint, which answers 503 SlowDown above a request rate; the extension provides the
 * credentials the default chain reads).
 */
@org.junit.jupiter.api.extension.ExtendWith(io.statesweep.testing.S3ServerExtension.class)
class RequestCountsTest {

  @Test
  void countsCallsAttemptsAndThrottledAnswersPerStore() throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 50, 2, 10, false, 10);
    // A ceiling of 5 requests per second and prefix: 40 GETs in a burst are throttled, then retried.
    try (SyntheticS3Server server = new SyntheticS3Server("counted", archive, Duration.ZERO, 5)) {
      S3Settings settings = S3Settings.defaults().withEndpoint(server.endpoint(), true);
      S3ObjectStore store = S3ObjectStore.open(settings, "counted");
      S3ObjectStore other = S3ObjectStore.open(settings, "counted");
      List<String> keys = new ArrayList<>();
      store.listAll("cogram/", object -> keys.add(object.key()));
      for (String key : keys.subList(0, 40)) {
        assertThat(store.read(key, 1024)).isNotNull();
      }
      other.head(keys.get(0));

      Map<String, Long> counts = store.requestCounts().snapshot();
      Map<String, Long> served = server.requestCounts();

      assertThat(counts).containsEntry("ListObjectsV2.calls", 1L).containsEntry("GetObject.calls", 40L)
          .doesNotContainKey("HeadObject.calls");
      assertThat(counts.get("GetObject.throttled")).isPositive();
      assertThat(counts.get("GetObject.attempts")).isEqualTo(40L + counts.get("GetObject.throttled"));
      assertThat(counts.get("GetObject.attempts") + counts.get("ListObjectsV2.attempts"))
          .as("every attempt the server saw").isEqualTo(served.get("GET") + served.get("LIST")
              + served.getOrDefault("SLOWDOWN", 0L));
      assertThat(other.requestCounts().snapshot()).containsEntry("HeadObject.calls", 1L);
    }
  }
}
