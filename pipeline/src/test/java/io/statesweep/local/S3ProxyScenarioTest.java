package io.statesweep.local;

import io.statesweep.testing.S3ServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The versioning scenario on the S3Proxy release the build fetches (in memory), the server of statesweep's tests and
 * the very one they share: measured here, it versions as S3 documents, so tests of versioned buckets may run on it; a
 * release that stopped doing so fails this class before it fails them.
 */
@ExtendWith(S3ServerExtension.class)
class S3ProxyScenarioTest extends VersioningScenario {
  private final LocalS3Server server;

  S3ProxyScenarioTest(LocalS3Server server) {
    this.server = server;
  }

  @Override
  protected S3Client startServer() {
    return LocalS3Server.client(server.endpoint(), server.accessKey(), server.secretKey());
  }

  @Override
  protected void stopServer() {
    // The shared server: the extension stops it when every class is done.
  }
}
