package io.statesweep.local;

import software.amazon.awssdk.services.s3.S3Client;

/**
 * The versioning scenario on the S3Proxy release the build fetches (in memory), the server of statesweep's tests:
 * measured here, it versions as S3 documents, so tests of versioned buckets may run on it; a release that stopped
 * doing so fails this class before it fails them.
 */
class S3ProxyScenarioTest extends VersioningScenario {
  private LocalS3Server server;

  @Override
  protected S3Client startServer() {
    server = LocalS3Server.builder().inMemory().start();
    return LocalS3Server.client(server.endpoint(), server.accessKey(), server.secretKey());
  }

  @Override
  protected void stopServer() {
    if (server != null) {
      server.close();
    }
  }
}
