package io.statesweep.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ConditionalRead;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StateCheck;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The probes of the conditions statesweep trusts (pipeline/README.md, "Deleting" and "One run at a time"), on S3Proxy,
 * which honours them, and on S3Proxy behind a proxy that strips them, as a store that ignores them would: PutObject
 * If-None-Match: * (the run lock) and GET If-Match (execute's reads of state files).
 *
 * <p>The ignoring store is S3Proxy behind the fault proxy, which strips the conditions from the request and signs it
 * again. The lock's probe (two PutObject, one DeleteObjects, nothing left behind) finds {@code If-None-Match: *}
 * honoured, ignored, or unverified when AccessDenied (one request); the read probe finds GET {@code If-Match}
 * honoured or ignored (one GetObject); and on the ignoring store a state file rewritten since the plan is still
 * {@code CHANGED}.
 */
@ExtendWith(S3ServerExtension.class)
class ConditionProbeTest {
  private static final String PROBE = "cogram.statesweep/probe-lock-20261201T120000Z-0000abcd";

  @Test
  void findsThatTheStoreHonoursIfNoneMatchWithTwoWritesAndADeleteAndLeavesNoProbeBehind(LocalS3Server server) {
    S3ObjectStore store = store(server, server.endpoint(), "probe-writes-honoured");

    ConditionProbe writes = ConditionProbe.conditionalWrites(store, PROBE);

    assertThat(writes.describe()).isEqualTo("honoured (the store refused to write " + PROBE
        + " a second time with If-None-Match: *)");
    assertThat(store.requestCounts().calls()).isEqualTo(Map.of("DeleteObjects", 1L, "PutObject", 2L));
    assertThat(store.read(PROBE, 1024)).as("the probe deleted").isNull();
  }

  @Test
  void findsThatAStoreIgnoresIfNoneMatchWhenItWritesTheProbeASecondTime(LocalS3Server server) throws Exception {
    try (FaultProxy proxy = ignoring(server, FaultProxy.ignoresConditionalWrites())) {
      S3ObjectStore store = store(server, proxy.endpoint(), "probe-writes-ignored");

      ConditionProbe writes = ConditionProbe.conditionalWrites(store, PROBE);

      assertThat(writes.verdict()).isEqualTo(ConditionProbe.Verdict.IGNORED);
      assertThat(writes.reason()).isEqualTo("the store wrote " + PROBE
          + " a second time although PutObject said If-None-Match: *");
      assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.IGNORE_CONDITIONS, 2L);
      assertThat(store.requestCounts().calls()).isEqualTo(Map.of("DeleteObjects", 1L, "PutObject", 2L));
      assertThat(store.read(PROBE, 1024)).as("the probe deleted").isNull();
    }
  }

  @Test
  void aProbeThatCannotBeWrittenIsUnverifiedNamesThePermissionAndSendsNothingMore(LocalS3Server server)
      throws Exception {
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(FaultProxy.deniedPuts("/"));
      S3ObjectStore store = store(server, proxy.endpoint(), "probe-writes-denied");

      ConditionProbe writes = ConditionProbe.conditionalWrites(store, PROBE);

      assertThat(writes.describe()).isEqualTo("unverified (cannot write the probe " + PROBE + ": AccessDenied; it"
          + " needs s3:PutObject on that key (and kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS))");
      assertThat(store.requestCounts().calls()).isEqualTo(Map.of("PutObject", 1L));
    }
  }

  @Test
  void findsWhetherTheStoreHonoursGetIfMatchWithOneGet(LocalS3Server server) throws Exception {
    S3ObjectStore honest = store(server, server.endpoint(), "probe-reads");
    honest.write(PROBE, "probe".getBytes(StandardCharsets.UTF_8));
    try (FaultProxy proxy = ignoring(server, FaultProxy.ignoresConditionalReads())) {
      S3ObjectStore ignoring = through(server, proxy.endpoint(), "probe-reads");

      ConditionProbe honoured = ConditionProbe.conditionalReads(honest, PROBE);
      ConditionProbe ignored = ConditionProbe.conditionalReads(ignoring, PROBE);

      assertThat(honoured.describe()).isEqualTo("honoured (the store refused a GET of " + PROBE
          + " whose If-Match named another ETag)");
      assertThat(ignored.describe()).isEqualTo("ignored (the store answered a GET of " + PROBE
          + " whose If-Match named another ETag with the object)");
      assertThat(honest.requestCounts().calls()).containsEntry("GetObject", 1L);
      assertThat(ignoring.requestCounts().calls()).isEqualTo(Map.of("GetObject", 1L));
    }
  }

  /**
   * On a store that ignores If-Match, a read of a state file rewritten since the plan must still not be taken
   * for the planned one: the answer's own ETag is compared.
   */
  @Test
  void aConditionalReadOnAStoreThatIgnoresIfMatchStillSeesThatTheStateFileChanged(LocalS3Server server)
      throws Exception {
    S3ObjectStore honest = store(server, server.endpoint(), "reads-ignored");
    String key = "cogram/projects/p1/state.json";
    String planned = honest.write(key, "{\"delete\": true, \"files\": []}".getBytes(StandardCharsets.UTF_8));
    String now = honest.write(key, "{\"delete\": true, \"files\": [], \"status\": \"x\"}"
        .getBytes(StandardCharsets.UTF_8));
    try (FaultProxy proxy = ignoring(server, FaultProxy.ignoresConditionalReads())) {
      S3ObjectStore ignoring = through(server, proxy.endpoint(), "reads-ignored");

      ConditionalRead stale = ignoring.readIfMatch(key, planned, 1024);
      StateCheck staleCheck = ignoring.checkUnchanged(key, planned);
      ConditionalRead current = ignoring.readIfMatch(key, now, 1024);

      assertThat(proxy.injected()).containsEntry(FaultProxy.Fault.IGNORE_CONDITIONS, 3L);
      assertThat(stale.check()).isEqualTo(StateCheck.CHANGED);
      assertThat(stale.bytes()).isEmpty();
      assertThat(staleCheck).isEqualTo(StateCheck.CHANGED);
      assertThat(current.check()).isEqualTo(StateCheck.UNCHANGED);
      assertThat(current.bytes()).asString(StandardCharsets.UTF_8).contains("\"status\"");
    }
  }

  private static FaultProxy ignoring(LocalS3Server server, FaultProxy.FaultPlan plan) throws Exception {
    return new FaultProxy(server.endpoint()).signingWith(server.accessKey(), server.secretKey()).plan(plan);
  }

  /** A new bucket, and a store of it that goes through {@code endpoint}. */
  private static S3ObjectStore store(LocalS3Server server, String endpoint, String bucket) {
    server.createBucket(bucket);
    return through(server, endpoint, bucket);
  }

  private static S3ObjectStore through(LocalS3Server server, String endpoint, String bucket) {
    return S3ObjectStore.open(server.s3Settings().withEndpoint(endpoint, true), bucket);
  }
}
