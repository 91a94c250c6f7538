package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The once-per-attempt probes of conditional deletes and reads, on one object, on a real S3-protocol server. */
@ExtendWith(S3ServerExtension.class)
class ConditionalDeleteProbeTest {
  private static final String PROBE = "cogram.statesweep/probe-20261201T120000Z-000001";

  @Test
  void findsThatTheStoreHonoursTheEtagOfADeleteAndIfMatchOfAGetAndLeavesNoProbeBehind(LocalS3Server server) {
    server.createBucket("probe-honoured");
    S3ObjectStore store = S3ObjectStore.open(server.s3Settings(), "probe-honoured");

    ConditionalDeleteProbe.Findings findings = ConditionalDeleteProbe.detect(store, PROBE,
        ConditionalMode.AUTO);

    assertThat(findings.deletes().describe()).isEqualTo("on (detected: the store refused a delete with a wrong ETag)");
    assertThat(findings.reads().verdict()).isEqualTo(ConditionProbe.Verdict.HONOURED);
    assertThat(store.requestCounts().calls()).isEqualTo(Map.of("PutObject", 1L, "GetObject", 1L, "DeleteObjects", 2L));
    assertThat(store.read(PROBE, 1024)).isNull();
  }

  @Test
  void withConditionalDeletesSetOnlyTheReadsAreProbed(LocalS3Server server) throws Exception {
    server.createBucket("probe-set");
    try (FaultProxy proxy = new FaultProxy(server.endpoint()).signingWith(server.accessKey(), server.secretKey())) {
      proxy.plan(FaultProxy.ignoresConditionalReads());
      S3ObjectStore store = S3ObjectStore.open(server.s3Settings().withEndpoint(proxy.endpoint(), true),
          "probe-set");

      ConditionalDeleteProbe.Findings findings = ConditionalDeleteProbe.detect(store, PROBE,
          ConditionalMode.OFF);

      assertThat(findings.deletes().describe()).isEqualTo("off (set)");
      assertThat(findings.reads().verdict()).isEqualTo(ConditionProbe.Verdict.IGNORED);
      assertThat(store.requestCounts().calls()).isEqualTo(Map.of("PutObject", 1L, "GetObject", 1L, "DeleteObjects", 1L));
      assertThat(store.read(PROBE, 1024)).isNull();
    }
  }

  @Test
  void withoutPutObjectItSendsConditionsUnverifiedAndNamesTheMissingPermission(LocalS3Server server) throws Exception {
    server.createBucket("probe-denied");
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(FaultProxy.deniedPuts("/probe-denied/cogram.statesweep/"));
      S3ObjectStore store = S3ObjectStore.open(server.s3Settings().withEndpoint(proxy.endpoint(), true),
          "probe-denied");

      ConditionalDeleteProbe.Findings findings = ConditionalDeleteProbe.detect(store, PROBE,
          ConditionalMode.AUTO);

      assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.ACCESS_DENIED, 1L);
      String cannotWrite = "cannot write the probe " + PROBE + ": AccessDenied; it needs s3:PutObject on that key (and"
          + " kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS)";
      assertThat(findings.deletes().mode()).isEqualTo(ConditionalDeletes.ON);
      assertThat(findings.deletes().reason()).isEqualTo("unverified: " + cannotWrite);
      assertThat(findings.reads()).isEqualTo(ConditionProbe.unverified(cannotWrite));
      assertThat(store.requestCounts().calls()).isEqualTo(Map.of("PutObject", 1L));
    }
  }
}
