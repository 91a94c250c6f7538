package io.statesweep.execute;

import io.statesweep.store.StoredObject;
import java.time.Instant;

/** The record-store contract on {@link FakeRecordStore}, the executor's tests' store. */
class FakeRecordStoreTest extends RecordStoreContract {
  private final FakeRecordStore fake = new FakeRecordStore();
  private Instant clock = Instant.parse("2026-06-01T00:00:00Z");

  @Override
  protected RecordStore records() {
    return fake;
  }

  @Override
  protected StoredObject put(String key, String json) {
    return fake.putState(key, tick(), json);
  }

  @Override
  protected StoredObject rewrite(String key, String json) {
    StoredObject rewritten = fake.rewrite(key, tick());
    fake.describe(rewritten, json);
    return rewritten;
  }

  @Override
  protected void remove(String key) {
    fake.remove(key);
  }

  private Instant tick() {
    clock = clock.plusMillis(1);
    return clock;
  }
}
