package io.statesweep.config;

import static java.util.Objects.requireNonNull;

import io.statesweep.execute.ConditionalMode;
import io.statesweep.execute.PacedLane;
import java.io.Serializable;

/**
 * How the commands that delete (run and execute) delete: the batches, the conditions, the pace and the run's bounds.
 * A plan holds them too, as the deletes its cost prices ({@link PlanOptions#deletes()}).
 *
 * @param batchSize keys per DeleteObjects request
 * @param conditionalDeletes whether each key is deleted only if its ETag is still the one verified
 * @param maxDeletesPerSecond the pace of the whole run, shared by its delete tasks (0: no limit)
 * @param unsafeLock whether a run that deletes takes the run lock on a store that ignores PutObject
 *     {@code If-None-Match: *} ({@code --unsafe-lock-without-conditional-writes}) instead of refusing it
 * @param maxDeletes at most this many keys deleted per run, whole records (0: no bound)
 * @param maxBytes at most this many bytes deleted per run, whole records (0: no bound)
 * @param pacing how each lane's deletes are paced (null: not paced, only {@code maxDeletesPerSecond} holds)
 * @param laneDepth folders below the prefix that name a lane ({@link PacedLane#of})
 */
public record DeleteOptions(
    int batchSize,
    ConditionalMode conditionalDeletes,
    int maxDeletesPerSecond,
    boolean unsafeLock,
    long maxDeletes,
    long maxBytes,
    PacedLane.Pacing pacing,
    int laneDepth) implements Serializable {

  public DeleteOptions {
    requireNonNull(conditionalDeletes, "conditionalDeletes is null");
    if (laneDepth < 1) {
      throw new IllegalArgumentException("laneDepth must be at least 1: " + laneDepth);
    }
    if (maxDeletes < 0 || maxBytes < 0) {
      throw new IllegalArgumentException("a run's bounds are 0 (none) or more: " + maxDeletes + ", " + maxBytes);
    }
  }

  static DeleteOptions from(Settings settings) {
    return new DeleteOptions(settings.get(Settings.BATCH_SIZE), settings.get(Settings.CONDITIONAL_DELETES),
        settings.get(Settings.MAX_DELETES_PER_SECOND), settings.bool(Settings.UNSAFE_LOCK),
        settings.get(Settings.MAX_DELETES), settings.get(Settings.MAX_BYTES),
        settings.get(Settings.PACING) ? PacedLane.Pacing.s3(settings.get(Settings.PARTITION_DELETES_PER_SECOND),
            settings.get(Settings.EXPORTER_MARGIN) / 100.0) : null,
        settings.get(Settings.LANE_DEPTH));
  }
}
