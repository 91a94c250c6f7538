package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.failures.RunLockException;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.s3.RunLock;
import io.statesweep.testing.OtherRun;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Another run takes the lock over in the middle of an execute (pipeline/README.md, "One run at a time"): the execute
 * sends no DeleteObjects request after it learns it lost the lock, beyond one in flight per running task, and ends
 * failed (exit 1, {@code complete=false}) with its summary and a line saying why; every key it deleted before is in its
 * rows of executions and counted in its summary. Every request goes through a proxy that sees when each arrives, and
 * holds the execute's DeleteObjects requests, from the first on, until the run learned of the loss and its delete job
 * ended (cancelled): what the tasks send after that is what the run lets through once it cancelled them, whether the
 * machine is fast or busy, and however late the cancellation reaches the tasks after the loss.
 *
 * <p>The lock is lost twice ({@code --lock-ttl 12s}, every request through the fault proxy): once another run replaces
 * the lock object, once another run takes it when it expired while this run's renewals failed. At most one
 * DeleteObjects request per running task reaches the store after the loss (measured: 0 of 1 or 2, the held ones
 * before it; without the cancellation the hold ends after 50 s and every remaining delete follows); the run ends with
 * code 1, {@code complete=false} and the lost-lock line; the keys its rows of {@code executions} name are exactly the
 * keys gone, and its summary counts them.
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class LockLossTest {
  private static final String LOCK = RunLock.keyFor("cogram/");
  /**
   * The execute's {@code --lock-ttl}, renewed every third of it: long enough that no pause of a busy machine lets the
   * lock expire before the first delete, the moment of the takeover. REPLACED loses it at the next renewal after
   * that (4 s at most), EXPIRED the margin before it expires (10 s at most); the deletes are held meanwhile.
   */
  private static final String LOCK_TTL = "12s";

  /** How the other run gets the lock. */
  enum Takeover {
    /** It replaces the lock object while this run holds it: this run's next renewal finds it. */
    REPLACED,
    /** This run's renewals fail from the first delete on; the other run takes the lock when it expires. */
    EXPIRED
  }

  @ParameterizedTest
  @EnumSource(Takeover.class)
  void anExecuteWhoseLockIsTakenOverStopsDeletingAtOnce(Takeover takeover, LocalS3Server server,
      @TempDir Path warehouse) throws Exception {
    String bucket = "lock-lost-" + takeover.name().toLowerCase(java.util.Locale.ROOT);
    server.createBucket(bucket);
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 60, 5L, Instant.now());
    Set<String> before = keys(store);
    String planned = run(environment(bucket, server.endpoint(), warehouse), "plan").text();
    String runId = planned.replaceAll("(?s).*run_id=(\\S+).*", "$1");
    assertThat(manifest.expectedDeletes()).as("deletes enough to take a while at 4 keys/s").hasSizeGreaterThan(30);

    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      List<FaultProxy.Request> deletes = new CopyOnWriteArrayList<>();
      AtomicBoolean triggered = new AtomicBoolean();
      // The request after which this run knew: the count of requests when its RunLock logged the loss,
      // which it does on the thread that found it, right before it calls the lock's loss listeners.
      AtomicLong lossSeen = new AtomicLong(Long.MAX_VALUE);
      AtomicReference<String> otherHolder = new AtomicReference<>();
      // Opens once the run logged the loss and then a job of its delete phase ended: the deletes were cancelled.
      CountDownLatch cancelled = new CountDownLatch(1);
      CountDownLatch firstDelete = new CountDownLatch(1);
      String lockPath = "/" + bucket + "/" + LOCK;
      proxy.plan(request -> {
        if (request.isDeleteObjects() && request.deleteKeys().stream().anyMatch(key -> key.startsWith("cogram/"))) {
          deletes.add(request);
          if (!triggered.getAndSet(true) && takeover == Takeover.REPLACED) {
            otherHolder.set(OtherRun.replaceLock(store, LOCK));
          }
          firstDelete.countDown();
          // From the first delete on, each one waits until the run learned of the loss and cancelled its delete
          // job: the requests in flight then are all it deletes before the cancellation, however fast the machine
          // deletes, however late its renewer runs and however long the cancellation takes to reach the tasks.
          awaitCancelled(cancelled);
        }
        if (triggered.get() && (request.target().equals(lockPath) || request.target().startsWith(lockPath + "?"))) {
          if (takeover == Takeover.EXPIRED && request.method().equals("PUT")) {
            return FaultProxy.Fault.INTERNAL_ERROR;
          }
        }
        return null;
      });
      Thread other = null;
      if (takeover == Takeover.EXPIRED) {
        // The other run tries for the lock from the first delete on, and gets it once it has expired.
        other = new Thread(() -> takeOnceExpired(store, firstDelete, otherHolder), "other-run");
        other.start();
      }

      CommandOutput execute;
      SparkContext context = SparkSession.active().sparkContext();
      DeleteJobsWatch jobs = new DeleteJobsWatch(() -> lossSeen.get() != Long.MAX_VALUE, cancelled);
      context.addSparkListener(jobs);
      try (LossWatch watch = LossWatch.attach(() -> lossSeen.compareAndSet(Long.MAX_VALUE, proxy.requests()))) {
        execute = run(environment(bucket, proxy.endpoint(), warehouse), "execute", "--run-id", runId,
            "--skip-approval", "true", "--max-deletes-per-second", "4", "--batch-size", "2", "--lock-ttl",
            LOCK_TTL);
      } finally {
        context.removeSparkListener(jobs);
      }
      if (other != null) {
        // It takes the lock once it expired, whenever this run ended: waited for, not raced.
        other.join(TimeUnit.MINUTES.toMillis(2));
        other.interrupt();
        other.join(10_000);
      }

      assertThat(otherHolder.get()).as("the other run has the lock").isNotNull();
      assertThat(lossSeen.get()).as("the run logged the loss of its lock").isNotEqualTo(Long.MAX_VALUE);
      long after = deletes.stream().filter(request -> request.sequence() > lossSeen.get()).count();
      int tasks = SparkSession.active().sparkContext().defaultParallelism();
      assertThat(after).as("DeleteObjects requests after the loss (of " + deletes.size() + "): at most the one in"
          + " flight per running task (" + tasks + ")").isLessThanOrEqualTo(tasks);
      Set<String> gone = new TreeSet<>(before);
      gone.removeAll(keys(store));
      assertThat(manifest.expectedDeletes()).as("nothing outside the plan is gone").containsAll(gone);
      assertThat(gone.size()).as("the deletes stopped before the end").isLessThan(manifest.expectedDeletes().size());
      assertThat(new String(store.read(LOCK, 4096).bytes(), StandardCharsets.UTF_8))
          .as("the other run's lock is left alone").contains("\"owner\":\"statesweep execute (pid 2)\"");

      assertThat(execute.code()).as(execute.text() + execute.errors()).isEqualTo(StatesweepCli.RUN_FAILED);
      String lostLine = execute.lines().stream().filter(line -> line.startsWith("statesweep: lost the run lock "))
          .findFirst().orElseThrow(() -> new AssertionError("no lost-lock line in " + execute.text()));
      String reason = takeover == Takeover.REPLACED
          ? "another run took it over: " + otherHolder.get()
          : "it could not be renewed by ";
      assertThat(lostLine).startsWith("statesweep: lost the run lock cogram.statesweep/lock during the run: " + reason);
      if (takeover == Takeover.EXPIRED) {
        assertThat(lostLine).containsPattern("2000 ms before it expires at \\S+(\\s\\(.*\\))?, so another run may take it"
            + " over from \\S+$");
      }
      assertThat(execute.text()).containsPattern("run " + runId + " attempt \\S+ did not complete: its deletes were"
          + " cancelled: lost the run lock cogram\\.statesweep/lock: " + java.util.regex.Pattern.quote(reason));
      assertThat(execute.lastLine()).startsWith("summary: dry_run=false complete=false ").endsWith(" run_lock=lost");
      // Its deletes were cancelled, yet each key they removed is on the record, and the summary counts them.
      String attemptId = execute.lastLine().replaceAll(".* attempt_id=(\\S+).*", "$1");
      List<String> recorded = TableReader.of(SparkSession.active(), warehouse).executions()
          .filter("attempt_id = '" + attemptId + "'").selectExpr("explode(deleted_keys)")
          .as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
      assertThat(new TreeSet<>(recorded)).as("the keys executions says the attempt deleted").isEqualTo(gone);
      assertThat(recorded).hasSize(gone.size());
      System.out.printf("ledger, the lock lost mid-window (%s): %d keys deleted, %d recorded; %d of %d DeleteObjects"
          + " after the loss%n", takeover, gone.size(), recorded.size(), after, deletes.size());
      assertThat(pair(execute.lastLine(), "records_deleted") + pair(execute.lastLine(), "child_keys_deleted"))
          .isEqualTo(gone.size());
      // A run that lost its lock holds the intents of its windows whose answers never came (a delete it sent may
      // still be answered): the next recording adds what went, and removes them once they are old.
      assertThat(TestArchive.keys(store, "cogram.statesweep/journal/")).as("the ledger, once executions holds it")
          .allSatisfy(key -> assertThat(key).contains("/" + attemptId + "/").contains("-intent"));
    }
  }

  /** Until the run cancelled its deletes after the loss of its lock; 50 s at most, under the SDK's 60 s per attempt. */
  private static void awaitCancelled(CountDownLatch cancelled) {
    try {
      cancelled.await(50, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The other run of the expired case: from the first delete on it asks for the lock (straight to the store, not
   * through the proxy) until it holds it, which it does once the lock expired; a request the store fails is asked
   * again, as a held lock is. Interrupted, it stops.
   */
  private static void takeOnceExpired(ObjectStore store, CountDownLatch firstDelete,
      AtomicReference<String> otherHolder) {
    try {
      firstDelete.await();
      while (!Thread.currentThread().isInterrupted()) {
        try {
          RunLock taken = RunLock.acquire(store, LOCK, "statesweep execute (pid 2)", "host-b", Duration.ofMinutes(10),
              Clock.systemUTC());
          otherHolder.set(taken.holder().owner());
          return; // held, never released: the test ends with it
        } catch (RunLockException.Held | RunLockException.Unavailable e) {
          // not yet expired, or the store did not answer: the lock's expiry is a time, so ask again shortly
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Opens {@code cancelled} when a job of the execute's delete phase (tagged {@code statesweep-delete-<attempt>})
   * ends once {@code lost} says the run logged the loss: the run has cancelled its delete job.
   */
  private static final class DeleteJobsWatch extends SparkListener {
    private final BooleanSupplier lost;
    private final CountDownLatch cancelled;
    private final Set<Integer> deleteJobs = ConcurrentHashMap.newKeySet();

    DeleteJobsWatch(BooleanSupplier lost, CountDownLatch cancelled) {
      this.lost = lost;
      this.cancelled = cancelled;
    }

    @Override
    public void onJobStart(SparkListenerJobStart jobStart) {
      String tags = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.job.tags");
      if (tags != null && Arrays.stream(tags.split(",")).anyMatch(tag -> tag.startsWith("statesweep-delete-"))) {
        deleteJobs.add(jobStart.jobId());
      }
    }

    @Override
    public void onJobEnd(SparkListenerJobEnd jobEnd) {
      if (deleteJobs.contains(jobEnd.jobId()) && lost.getAsBoolean()) {
        cancelled.countDown();
      }
    }
  }

  private static long pair(String summary, String name) {
    return Long.parseLong(summary.replaceAll(".* " + name + "=(\\d+).*", "$1"));
  }

  /**
   * Calls {@code onLoss} on the thread where {@link RunLock} logs "Lost the lock": the moment the run
   * knows, before the lock's listeners cancel its deletes. An appender on RunLock's logger for the time
   * of the test.
   */
  private static final class LossWatch extends AbstractAppender implements AutoCloseable {
    private final Runnable onLoss;

    private LossWatch(Runnable onLoss) {
      super("statesweep-lock-loss-watch", null, null, true, Property.EMPTY_ARRAY);
      this.onLoss = onLoss;
    }

    static LossWatch attach(Runnable onLoss) {
      LossWatch watch = new LossWatch(onLoss);
      watch.start();
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      LoggerConfig logger = new LoggerConfig(RunLock.class.getName(), Level.ERROR, true);
      logger.addAppender(watch, Level.ERROR, null);
      context.getConfiguration().addLogger(RunLock.class.getName(), logger);
      context.updateLoggers();
      return watch;
    }

    @Override
    public void append(LogEvent event) {
      if (event.getMessage().getFormattedMessage().startsWith("Lost the lock ")) {
        onLoss.run();
      }
    }

    @Override
    public void close() {
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      context.getConfiguration().removeLogger(RunLock.class.getName());
      context.updateLoggers();
      stop();
    }
  }

  private static Map<String, String> environment(String bucket, String endpoint, Path warehouse) {
    return Map.of("COGRAM_CLEANUP_BUCKET", bucket, "COGRAM_CLEANUP_PREFIX", "cogram/", "STATESWEEP_ENDPOINT", endpoint,
        "STATESWEEP_WAREHOUSE", warehouse.toString());
  }

  private static Set<String> keys(ObjectStore store) {
    return TestArchive.keys(store, "cogram/");
  }
}
