package io.statesweep.store;

import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store contract on {@link S3ObjectStore} against S3Proxy, a real S3-protocol server. */
@ExtendWith(S3ServerExtension.class)
class S3ProxyObjectStoreTest extends ObjectStoreContract {
  private static final String BUCKET = "store-contract";

  private static ObjectStore store;
  private static ObjectStore missing;
  private static ObjectStore versioned;

  @BeforeAll
  static void openStores(LocalS3Server server) {
    server.createBucket(BUCKET);
    store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    missing = S3ObjectStore.open(server.s3Settings(), "no-such-bucket");
    server.createBucket(BUCKET + "-versioned");
    server.enableVersioning(BUCKET + "-versioned");
    versioned = S3ObjectStore.open(server.s3Settings(), BUCKET + "-versioned");
  }

  @Override
  protected ObjectStore storeOfAVersionedBucket() {
    return versioned;
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected ObjectStore storeOfAMissingBucket() {
    return missing;
  }

  @Override
  protected String versioningStatus() {
    return BucketVersioning.OFF;
  }
}
