package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The once-per-run probe of conditional deletes, on a real S3-protocol server. */
@ExtendWith(S3ServerExtension.class)
class ConditionalDeleteProbeTest {
  private static final String PROBE = "cogram.statesweep/probe-20261201T120000Z-000001";

  @Test
  void findsThatTheStoreHonoursTheEtagOfADeleteAndLeavesNoProbeBehind(LocalS3Server server) {
    server.createBucket("probe-honoured");
    ObjectStore store = new ObjectStore(S3Clients.shared(server.s3Settings()), "probe-honoured");

    ConditionalDeleteProbe.Answer answer = ConditionalDeleteProbe.detect(store, PROBE);

    assertThat(answer.describe()).isEqualTo("on (detected: the store refused a delete with a wrong ETag)");
    assertThat(store.read(PROBE, 1024)).isNull();
  }

  @Test
  void withoutPutObjectItSendsConditionsUnverifiedAndNamesTheMissingPermission(LocalS3Server server) throws Exception {
    server.createBucket("probe-denied");
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(FaultProxy.deniedPuts("/probe-denied/cogram.statesweep/"));
      ObjectStore store = new ObjectStore(S3Clients.shared(server.s3Settings().withEndpoint(proxy.endpoint(), true)),
          "probe-denied");

      ConditionalDeleteProbe.Answer answer = ConditionalDeleteProbe.detect(store, PROBE);

      assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.ACCESS_DENIED, 1L);
      assertThat(answer.mode()).isEqualTo(ConditionalDeletes.ON);
      assertThat(answer.reason()).isEqualTo("unverified: cannot write the probe " + PROBE + ": AccessDenied; it needs"
          + " s3:PutObject on that key (and kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS)");
    }
  }
}
