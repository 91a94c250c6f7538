package io.statesweep.local;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The versioning scenario on S3Proxy built from its main branch, which versions as S3 documents (S3Proxy's releases
 * on Maven Central do not version). The build names the jar with {@value #JAR_PROPERTY}; where it is absent, the
 * scenario is skipped and says so.
 */
class VersionedS3ProxyScenarioTest extends VersioningScenario {
  /** The system property that names a jar of S3Proxy with versioning. */
  static final String JAR_PROPERTY = "statesweep.versioned.s3proxy.jar";

  private LocalS3Server server;

  @Override
  protected S3Client startServer() {
    String jar = System.getProperty(JAR_PROPERTY, "");
    assumeTrue(!jar.isBlank() && Files.isRegularFile(Path.of(jar)),
        "no S3Proxy with versioning at " + JAR_PROPERTY + " = '" + jar + "'");
    server = LocalS3Server.builder().jar(Path.of(jar)).inMemory().start();
    return LocalS3Server.client(server.endpoint(), server.accessKey(), server.secretKey());
  }

  @Override
  protected void stopServer() {
    if (server != null) {
      server.close();
    }
  }
}
