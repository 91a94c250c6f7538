package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A progress line on the driver every N seconds while a command runs: the phase, the counters of
 * {@link RunMetrics}, the rate of the phase's own counter, and an ETA when the phase's total is known
 * (state files to read, records to execute). Counters advance as Spark tasks finish.
 */
public final class Progress implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Progress.class);

  private final RunMetrics metrics;
  private final String runId;
  private final ScheduledExecutorService timer;
  private volatile String phase = "start";
  private volatile String counter;
  private volatile long total = -1;
  private volatile long phaseStartNanos = System.nanoTime();
  private volatile long phaseStartCount;

  private Progress(RunMetrics metrics, String runId, int seconds) {
    this.metrics = requireNonNull(metrics, "metrics is null");
    this.runId = requireNonNull(runId, "runId is null");
    if (seconds <= 0) {
      timer = null;
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "statesweep-progress");
      thread.setDaemon(true);
      return thread;
    });
    timer.scheduleAtFixedRate(this::logQuietly, seconds, seconds, TimeUnit.SECONDS);
  }

  /** Reports every {@code seconds}; 0 for never. */
  public static Progress every(int seconds, RunMetrics metrics, String runId) {
    return new Progress(metrics, runId, seconds);
  }

  /**
   * A new phase; {@code counter} is the counter it advances (a key of {@link RunMetrics#counters()}) or
   * null, {@code total} its total when known, else -1.
   */
  public void phase(String name, String counter, long total) {
    this.phase = name;
    this.counter = counter;
    this.total = total;
    this.phaseStartNanos = System.nanoTime();
    this.phaseStartCount = counter == null ? 0 : metrics.counters().getOrDefault(counter, 0L);
  }

  public String line() {
    Map<String, Long> counters = metrics.counters();
    StringBuilder line = new StringBuilder("progress run=" + runId + " phase=" + phase);
    counters.forEach((name, value) -> line.append(' ').append(name).append('=').append(value));
    if (counter != null) {
      long done = counters.getOrDefault(counter, 0L) - phaseStartCount;
      double seconds = (System.nanoTime() - phaseStartNanos) / 1e9;
      double rate = seconds > 0 ? done / seconds : 0;
      line.append(String.format(" rate=%.1f/s", rate));
      if (total >= 0) {
        line.append(" of=").append(total);
        if (rate > 0 && done < total) {
          line.append(" eta=").append(Math.round((total - done) / rate)).append('s');
        }
      }
    }
    return line.toString();
  }

  private void logQuietly() {
    try {
      LOG.info(line());
    } catch (RuntimeException e) {
      LOG.debug("progress line failed: {}", e.getMessage());
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
