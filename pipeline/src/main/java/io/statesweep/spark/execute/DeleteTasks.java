package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * The tasks of an execute attempt's delete phase (its jobs carry the attempt's tag), so that the driver records the
 * attempt's ledger only once none of them runs: a job that failed or was cancelled ends while its other tasks may
 * still be finishing a window, and a speculative copy is killed only after the job it belonged to ended.
 */
public final class DeleteTasks extends SparkListener {
  private final String tag;
  private final Set<Integer> stages = ConcurrentHashMap.newKeySet();
  private final AtomicInteger running = new AtomicInteger();

  private DeleteTasks(String tag) {
    this.tag = requireNonNull(tag, "tag is null");
  }

  /** Watches the jobs tagged {@code tag} from now on; {@link #close} stops watching. */
  public static DeleteTasks watch(SparkContext spark, String tag) {
    DeleteTasks tasks = new DeleteTasks(tag);
    spark.addSparkListener(tasks);
    return tasks;
  }

  @Override
  public void onJobStart(SparkListenerJobStart jobStart) {
    String tags = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.job.tags");
    if (tags != null && Arrays.asList(tags.split(",")).contains(tag)) {
      scala.collection.Iterator<Object> ids = jobStart.stageIds().iterator();
      while (ids.hasNext()) {
        stages.add((Integer) ids.next());
      }
    }
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart taskStart) {
    if (stages.contains(taskStart.stageId())) {
      running.incrementAndGet();
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
    if (stages.contains(taskEnd.stageId())) {
      running.decrementAndGet();
    }
  }

  /**
   * Waits until every task of the watched jobs has ended (the listener bus drained first, so that no start is still
   * on its way); returns false when some still run after {@code timeout}.
   */
  public boolean awaitEnded(SparkContext spark, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      try {
        spark.listenerBus().waitUntilEmpty(left);
      } catch (TimeoutException e) {
        return false;
      }
      if (running.get() <= 0) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /** Tasks that started and have not ended. */
  public int running() {
    return running.get();
  }

  public void close(SparkContext spark) {
    spark.removeSparkListener(this);
  }

  /**
   * Cancels each job tagged {@code tag} that starts once {@code cancelledBecause} gives a reason (the reason): a
   * cancellation by tag finds only the jobs running at that moment. Added to {@code spark} until it is removed.
   */
  public static SparkListener cancelWhenStarted(SparkContext spark, String tag, Supplier<String> cancelledBecause) {
    requireNonNull(tag, "tag is null");
    requireNonNull(cancelledBecause, "cancelledBecause is null");
    SparkListener lateJobs = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart jobStart) {
        String why = cancelledBecause.get();
        String tags = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.job.tags");
        if (why != null && tags != null && Arrays.asList(tags.split(",")).contains(tag)) {
          spark.cancelJob(jobStart.jobId(), why);
        }
      }
    };
    spark.addSparkListener(lateJobs);
    return lateJobs;
  }

  /** The delete phase's tasks: twice the cores, or as many as the keys per second of a lower ceiling. */
  public static int deletePartitions(int parallelism, int ceiling) {
    return deletePartitions(parallelism, ceiling, false);
  }

  /**
   * As above; deletes paced per partition of the key space ({@code paced}) take one task per core, so that the tasks
   * running at once cover the whole key space: each task takes a range of the plan in key order, and with twice the
   * cores the first wave would cover only the first half of the keys, leaving the other half's S3 partitions idle.
   */
  public static int deletePartitions(int parallelism, int ceiling, boolean paced) {
    return ceiling > 0 && ceiling < parallelism ? ceiling : paced ? parallelism : parallelism * 2;
  }

  /** Each task's share of {@code --max-deletes-per-second} (0: no ceiling). */
  public static double keysPerSecondPerTask(int parallelism, int ceiling) {
    return ceiling == 0 ? 0 : (double) ceiling / Math.min(parallelism, deletePartitions(parallelism, ceiling));
  }
}
