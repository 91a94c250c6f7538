package io.statesweep.execute;

import java.util.List;

/**
 * Points where tests step into an execution: to change a key after it was verified, or to stop the
 * job after some batches as a crash would. The default does nothing.
 */
public interface ExecutionHook extends java.io.Serializable {
  ExecutionHook NONE = new ExecutionHook() {};

  /** After the records of a window are verified, before any of their keys is deleted. */
  default void beforeDelete(List<String> keys) {}

  /** After each DeleteObjects request of this JVM's executors; {@code batches} counts them. */
  default void afterBatch(long batches) {}

  /** After a window's outcomes are recorded in the ledger, with the state files of its records. */
  default void afterWindow(List<String> stateFiles) {}
}
