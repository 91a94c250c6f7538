package io.statesweep.store;

import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.synthetic.SyntheticArchive;
import io.statesweep.synthetic.SyntheticS3Server;
import io.statesweep.testing.S3ServerExtension;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store contract on {@link S3ObjectStore} against the synthetic S3 endpoint of the scale benchmark, so that
 * what the benchmark measures is what S3 would answer. Its generated archive lies under {@code generated/}, apart
 * from the contract's folders; what the contract writes is the endpoint's overlay. The S3Proxy extension only sets
 * the SDK's credentials: the endpoint does not check signatures.
 */
@ExtendWith(S3ServerExtension.class)
class SyntheticEndpointObjectStoreTest extends ObjectStoreContract {
  private static final String BUCKET = "synthetic";

  private static SyntheticS3Server server;
  private static ObjectStore store;
  private static ObjectStore missing;

  @BeforeAll
  static void startServer() throws IOException {
    server = new SyntheticS3Server(BUCKET, new SyntheticArchive("generated/", 1, 1, 1, false, 1), Duration.ZERO, 0);
    S3Settings s3 = S3Settings.defaults().withEndpoint(server.endpoint(), true);
    store = S3ObjectStore.open(s3, BUCKET);
    missing = S3ObjectStore.open(s3, "no-such-bucket");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected ObjectStore storeOfAMissingBucket() {
    return missing;
  }

  /** The endpoint's bucket was never versioned: GetBucketVersioning answers no status, as S3 does. */
  @Override
  protected String versioningStatus() {
    return BucketVersioning.OFF;
  }
}
