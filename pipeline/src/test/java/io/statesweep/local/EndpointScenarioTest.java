package io.statesweep.local;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import software.amazon.awssdk.services.s3.S3Client;

/**
 * The versioning scenario on any S3 endpoint, to measure a server before a test trusts it (or to hold a test server
 * against AWS itself): {@code STATESWEEP_SCENARIO_ENDPOINT=http://127.0.0.1:9000} in the environment, with
 * {@code STATESWEEP_SCENARIO_ACCESS_KEY} and {@code STATESWEEP_SCENARIO_SECRET_KEY}; the endpoint must let the
 * scenario create its bucket. Skipped without an endpoint.
 */
class EndpointScenarioTest extends VersioningScenario {

  @Override
  protected S3Client startServer() {
    String endpoint = System.getenv().getOrDefault("STATESWEEP_SCENARIO_ENDPOINT", "");
    assumeTrue(!endpoint.isBlank(), "no STATESWEEP_SCENARIO_ENDPOINT to measure");
    return LocalS3Server.client(endpoint, System.getenv().getOrDefault("STATESWEEP_SCENARIO_ACCESS_KEY", "local"),
        System.getenv().getOrDefault("STATESWEEP_SCENARIO_SECRET_KEY", "local-secret"));
  }

  @Override
  protected void stopServer() {
    // Not ours to stop.
  }
}
