package io.statesweep.execute;

import java.util.List;

/**
 * Points where tests step into an execution: to change a key after it was verified, or to stop the
 * job after some batches as a crash would. The default does nothing.
 */
public interface ExecutionHook extends java.io.Serializable {
  ExecutionHook NONE = new ExecutionHook() {};

  /**
   * Where verified records start their deletes, before any of {@code keys} (their files) is sent: once per
   * group of records of a window that go together. Its time counts in the bound between a record's
   * verification and its deletes: a record that it made older than that is verified again, not deleted, and
   * named again where it then goes.
   */
  default void beforeDelete(List<String> keys) {}

  /** After each DeleteObjects request of this JVM's executors; {@code batches} counts them. */
  default void afterBatch(long batches) {}

  /** After a window's outcomes are recorded in the ledger, with the state files of its records. */
  default void afterWindow(List<String> stateFiles) {}
}
