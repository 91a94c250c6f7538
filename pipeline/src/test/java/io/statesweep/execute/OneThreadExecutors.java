package io.statesweep.execute;

import io.statesweep.plan.Planner;
import io.statesweep.state.StateParser;
import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * A {@link RecordExecutor} of one verifying thread on a time source of the test's, for tests outside this
 * package. With one verifying thread the executor never waits in real time (it verifies the next record
 * instead), so that time source alone decides which records are fresh, gathered or verified again.
 */
public final class OneThreadExecutors {
  private OneThreadExecutors() {}

  public static RecordExecutor onTimeSource(RecordStore store, Planner planner, StateParser parser, Clock clock,
      LongSupplier nanoTime) {
    return new RecordExecutor(store, planner, parser, 1000, ConditionalDeletes.ON, DeleteThrottle.none(),
        ExecutionHook.NONE, clock, 1, DeleteJournal.NONE, nanoTime);
  }
}
