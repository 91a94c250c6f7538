package io.statesweep.local;

import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The versioning scenario on the synthetic S3 endpoint (test scope), whose versioned mode runs statesweep's versioned
 * benchmarks at millions of keys: the scenario's keys go beside a small generated archive, so its answers come from the
 * same merge of generated keys and written ones that a benchmark's do.
 */
class SyntheticScenarioTest extends VersioningScenario {
  private SyntheticS3Server server;

  @Override
  protected S3Client startServer() {
    try {
      server = new SyntheticS3Server("versioned-scenario", new SyntheticArchive("cogram/", 20, 2, 5, false, 3),
          Duration.ZERO, 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return LocalS3Server.client(server.endpoint(), "synthetic", "synthetic");
  }

  @Override
  protected void stopServer() {
    if (server != null) {
      server.close();
    }
  }
}
