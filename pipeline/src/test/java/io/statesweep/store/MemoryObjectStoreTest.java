package io.statesweep.store;

/** The store contract on {@link MemoryObjectStore}, so that tests of the core on it stand for S3's answers. */
class MemoryObjectStoreTest extends ObjectStoreContract {
  private final MemoryObjectStore store = new MemoryObjectStore("memory");

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected ObjectStore storeOfAMissingBucket() {
    return null;
  }

  @Override
  protected String whyNoMissingBucket() {
    return "the in-memory store is one bucket; there is no other to ask for";
  }

  @Override
  protected String versioningStatus() {
    return BucketVersioning.OFF;
  }
}
