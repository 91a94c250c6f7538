package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.LockOutcome;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RunResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.RunLockException;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.plan.Action;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.s3.RunLock;
import io.statesweep.testing.OtherRun;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.JobSucceeded$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run lock and the approval check belong to the actions, not to the command line (issue 14): a
 * program that calls {@link SparkPlanAction} or {@link SparkExecuteAction} itself, such as a notebook, gets
 * both. No command line is involved here.
 *
 * <p>The cases: a lock another run holds, an unapproved plan, a lock taken over mid-execute. And another run's lock on a
 * store that ignores conditions (S3Proxy behind the fault proxy, stripping them): the plan goes on without the lock
 * and leaves that lock alone ({@code conditional_writes=ignored run_lock=none}); the execute is refused having sent
 * only the probe; with {@code --unsafe-lock-without-conditional-writes} it is still kept out by the lock in place,
 * and once that is gone it deletes the plan but for a record whose state file was rewritten after the plan ({@code
 * state_changed}, {@code conditional_reads=ignored}, {@code run_lock=unsafe}).
 */
@ExtendWith(S3ServerExtension.class)
class RunLockInActionsTest {
  private static final String P = "cogram/";
  private static final String LOCK = RunLock.keyFor(P);
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final String PID = Long.toString(ProcessHandle.current().pid());

  private final SparkSession spark = SharedSpark.session();
  private LocalS3Server server;
  private String bucket;
  private ObjectStore store;
  @TempDir
  Path warehouse;

  @BeforeEach
  void bucket(LocalS3Server server) {
    this.server = server;
    bucket = server.createBucket("actions-lock-" + BUCKETS.incrementAndGet());
    store = S3ObjectStore.open(server.s3Settings(), bucket);
  }

  @Test
  void anExecuteCalledDirectlyWhileAnotherRunHoldsTheLockIsRefusedAndDeletesNothing() {
    SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 3L, Instant.now());
    String runId = plan(server.endpoint()).runId();
    Set<String> before = keys();

    try (RunLock other = RunLock.acquire(store, LOCK, "statesweep run (pid 1)", "host-b", Duration.ofMinutes(10),
        Clock.systemUTC())) {
      SparkExecuteAction execute = new SparkExecuteAction(spark, options(server.endpoint(),
          Map.of("--dry-run", "false", "--skip-approval", "true")).execute(), runId);

      assertThatThrownBy(execute::execute)
          .isInstanceOf(RunLockException.Held.class)
          .hasMessageStartingWith("Another statesweep run holds the lock s3://" + bucket + "/" + LOCK
              + ": statesweep run (pid 1) on host-b since " + other.holder().startedAt() + " (lock valid until "
              + other.holder().expiresAt() + ", renewed while that run lasts). Wait for it to finish");
      assertThat(lockOwner()).as("the other run's lock is left alone").isEqualTo("statesweep run (pid 1)");
    }
    assertThat(keys()).as("nothing deleted").isEqualTo(before);
    assertThat(attemptsRecorded()).as("no attempt recorded").isZero();
  }

  @Test
  void anExecuteCalledDirectlyOnAnUnapprovedPlanIsRefusedUnderTheLockAndDeletesNothing() throws Exception {
    SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 4L, Instant.now());
    String runId = plan(server.endpoint()).runId();
    Set<String> before = keys();

    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      List<FaultProxy.Request> requests = new CopyOnWriteArrayList<>();
      proxy.plan(request -> {
        requests.add(request);
        return null;
      });
      SparkExecuteAction execute = new SparkExecuteAction(spark, options(proxy.endpoint(), Map.of("--dry-run",
          "false")).execute(), runId);

      assertThatThrownBy(execute::execute)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("The plan of run " + runId + " has not been approved. Review it (table " + warehouse
              + "/deletion_plan, view plan_summary, notebooks/), then record the approval with: statesweep approve"
              + " --run-id " + runId + " --by <your name> --warehouse " + warehouse + "; or execute with"
              + " --skip-approval");
      String lockPath = "/" + bucket + "/" + LOCK;
      assertThat(requests).as("the execute took the run lock before it read the plan")
          .anyMatch(request -> request.method().equals("PUT") && request.target().startsWith(lockPath));
      assertThat(requests).as("and released it").anyMatch(request -> request.isDeleteObjects()
          && request.deleteKeys().contains(LOCK));
    }
    assertThat(store.read(LOCK, 4096)).as("the lock released").isNull();
    assertThat(keys()).as("nothing deleted").isEqualTo(before);
  }

  @Test
  void anExecuteOfAPlanNotMadeInThisJobNeedsAnApprovalEvenWhenTheCallerSaysOtherwise() {
    SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 5L, Instant.now());
    PlanResult madeHere = plan(server.endpoint());
    String runId = madeHere.runId();
    Set<String> before = keys();
    // The caller's own PlanResult with the run id of that plan, as if another job had made the plan: only a plan that
    // this JVM's plan action returned is executed without an approval.
    PlanResult madeElsewhere = (PlanResult) Proxy.newProxyInstance(PlanResult.class.getClassLoader(),
        new Class<?>[] {PlanResult.class}, (proxy, method, arguments) -> method.invoke(madeHere, arguments));

    SparkExecuteAction execute = new SparkExecuteAction(spark, options(server.endpoint(), Map.of("--dry-run",
        "false")).execute(), runId).plannedInThisJob(madeElsewhere);

    assertThatThrownBy(execute::execute)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The plan of run " + runId + " was not made in this job, so it is executed only once it is"
            + " approved. Review it (table " + warehouse + "/deletion_plan, view plan_summary, notebooks/), then"
            + " record the approval with: statesweep approve --run-id " + runId + " --by <your name> --warehouse "
            + warehouse + "; or execute with --skip-approval");
    assertThat(keys()).as("nothing deleted").isEqualTo(before);
  }

  @Test
  void aPlanCalledDirectlyHoldsTheLockWhileItRunsAndReleasesItAfter() {
    SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 6L, Instant.now());
    List<String> seen = new CopyOnWriteArrayList<>();
    SparkListener watch = new LockWatch(seen);
    spark.sparkContext().addSparkListener(watch);
    PlanResult result;
    try {
      result = plan(server.endpoint());
    } finally {
      spark.sparkContext().removeSparkListener(watch);
    }

    assertThat(seen).as("the lock's owner as each of the plan's jobs started").anyMatch(line ->
        line.startsWith("statesweep plan (pid " + PID + ") ") && line.endsWith(" statesweep-plan-list"));
    assertThat(store.read(LOCK, 4096)).as("the lock released").isNull();
    assertThat(result.runLock()).isEqualTo(new LockOutcome(LOCK, LockOutcome.Status.HELD, null));
    assertThat(result.summary().line()).doesNotContain("run_lock=");
  }

  @Test
  void aRunActionHoldsOneLockFromItsPlanToTheEndOfItsExecute() {
    SampleArchive.Manifest manifest = SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 7L,
        Instant.now());
    Set<String> expectedLeft = keys();
    expectedLeft.removeAll(manifest.expectedDeletes());
    List<String> seen = new CopyOnWriteArrayList<>();
    SparkListener watch = new LockWatch(seen);
    spark.sparkContext().addSparkListener(watch);
    RunResult result;
    try {
      result = new SparkRunAction(spark, options(server.endpoint(), Map.of("--dry-run", "false"))).execute();
    } finally {
      spark.sparkContext().removeSparkListener(watch);
    }

    assertThat(result.execution()).isNotNull();
    assertThat(result.execution().failure()).isNull();
    assertThat(result.exitCode()).as(result.summary().line()).isZero();
    assertThat(keys()).isEqualTo(expectedLeft);
    String owner = "statesweep run (pid " + PID + ") ";
    assertThat(seen).anyMatch(line -> line.startsWith(owner) && line.endsWith(" statesweep-plan-list"));
    assertThat(seen).anyMatch(line -> line.startsWith(owner) && line.endsWith(" statesweep-execute-delete"));
    // One lock, never released and taken again in between: its started_at is the same throughout.
    assertThat(seen.stream().filter(line -> !line.startsWith("no lock")).map(line -> line.split(" ")[4]).distinct())
        .as("lock documents seen: %s", seen).hasSize(1);
    assertThat(store.read(LOCK, 4096)).as("the lock released").isNull();
  }

  @Test
  void aLockLostDuringADirectExecuteCancelsItsDeletes() throws Exception {
    SampleArchive.Manifest manifest = SampleArchive.generate(store, P, 60, 5L, Instant.now());
    Set<String> before = keys();
    String runId = plan(server.endpoint()).runId();
    assertThat(manifest.expectedDeletes()).as("deletes enough to take a while at 4 keys/s").hasSizeGreaterThan(30);

    ExecuteResult result;
    String other;
    // Once the lock is taken over, the export's next deletes wait until a job has failed (the delete job,
    // cancelled when the renewer finds the other run's lock), however slowly a busy machine renews: the loss
    // is found while deletes remain, whatever the pace of the tasks.
    CountDownLatch jobFailed = new CountDownLatch(1);
    AtomicLong takenOverAt = new AtomicLong();
    AtomicLong failedAt = new AtomicLong();
    SparkListener failures = new SparkListener() {
      @Override
      public void onJobEnd(SparkListenerJobEnd end) {
        if (!(end.jobResult() instanceof JobSucceeded$)) {
          failedAt.compareAndSet(0, System.nanoTime());
          jobFailed.countDown();
        }
      }
    };
    spark.sparkContext().addSparkListener(failures);
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      AtomicBoolean replaced = new AtomicBoolean();
      StringBuilder otherHolder = new StringBuilder();
      proxy.plan(request -> {
        if (request.isDeleteObjects() && request.deleteKeys().stream().anyMatch(key -> key.startsWith(P))) {
          if (!replaced.getAndSet(true)) {
            // At the first delete of the export's keys another run takes the lock over.
            otherHolder.append(OtherRun.replaceLock(store, LOCK));
            takenOverAt.set(System.nanoTime());
          } else {
            awaitQuietly(jobFailed);
          }
        }
        return null;
      });
      result = new SparkExecuteAction(spark, options(proxy.endpoint(), Map.of("--dry-run", "false",
          "--skip-approval", "true", "--max-deletes-per-second", "4", "--batch-size", "2", "--lock-ttl", "3s")).execute(), runId)
          .execute();
      other = otherHolder.toString();
    } finally {
      spark.sparkContext().removeSparkListener(failures);
    }

    assertThat(other).as("the other run took the lock").isNotEmpty();
    // Found by a renewal (every second) or the expiry check (3 s TTL): well within the hold, even on a busy machine.
    assertThat(Duration.ofNanos(failedAt.get() - takenOverAt.get())).as("from the takeover to the cancelled job")
        .isPositive().isLessThan(Duration.ofSeconds(30));
    assertThat(result.failure()).isEqualTo("its deletes were cancelled: lost the run lock " + LOCK
        + ": another run took it over: " + other);
    Set<String> gone = new TreeSet<>(before);
    gone.removeAll(keys());
    assertThat(manifest.expectedDeletes()).as("nothing outside the plan is gone").containsAll(gone);
    assertThat(gone.size()).as("the deletes stopped before the end").isLessThan(manifest.expectedDeletes().size());
    assertThat(lockOwner()).as("the other run's lock is left alone").isEqualTo("statesweep execute (pid 2)");
    assertThat(result.runLock()).isEqualTo(new LockOutcome(LOCK, LockOutcome.Status.LOST,
        "another run took it over: " + other));
    assertThat(result.runLock().line()).isEqualTo("lost the run lock " + LOCK + " during the run: another run took"
        + " it over: " + other);
    assertThat(result.summary().line()).startsWith("summary: dry_run=false complete=false ").endsWith(" run_lock=lost");
    assertThat(result.exitCode()).isEqualTo(1);
  }

  /**
   * A store that ignores PutObject If-None-Match: * cannot hold the lock (pipeline/README.md, "One run at a time"): a
   * plan goes on without it, writing nothing over another run's lock; an execute is refused before it reads anything;
   * with --unsafe-lock-without-conditional-writes it runs, still kept out by a lock in place, and says so. The same
   * store ignores GET If-Match: a state file rewritten since the plan is still seen as changed.
   */
  @Test
  void onAStoreThatIgnoresConditionalWritesAPlanGoesOnWithoutTheLockAndAnExecuteIsRefusedUnlessAccepted()
      throws Exception {
    SampleArchive.Manifest manifest = SampleArchive.generate(store, P, SampleArchive.minimumRecordCount(), 8L,
        Instant.now());
    Set<String> before = keys();
    SampleArchive.SampleRecord rewritten = manifest.records().values().stream()
        .filter(record -> record.expectedAction(manifest.now(), Duration.ZERO) == Action.DELETE_RECORD
            && record.expectedDeletes(manifest.now(), Duration.ZERO).size() > 1)
        .findFirst().orElseThrow();
    String probe = "the store wrote " + P.substring(0, P.length() - 1) + "\\.statesweep/probe-lock-\\S+ a second"
        + " time although PutObject said If-None-Match: \\*: it cannot hold the run lock";
    String unsafe = "--unsafe-lock-without-conditional-writes";
    try (FaultProxy proxy = new FaultProxy(server.endpoint()).signingWith(server.accessKey(), server.secretKey());
        RunLock other = RunLock.acquire(store, LOCK, "statesweep run (pid 1)", "host-b", Duration.ofMinutes(10),
            Clock.systemUTC())) {
      List<FaultProxy.Request> requests = new CopyOnWriteArrayList<>();
      proxy.plan(request -> {
        requests.add(request);
        return FaultProxy.ignoresConditionalWrites().orElse(FaultProxy.ignoresConditionalReads()).faultOf(request);
      });

      PlanResult planned = plan(proxy.endpoint());

      assertThat(lockOwner()).as("the other run's lock is left alone").isEqualTo("statesweep run (pid 1)");
      assertThat(planned.runLock().status()).isEqualTo(LockOutcome.Status.NONE);
      assertThat(planned.runLock().conditionalWrites()).isEqualTo(ConditionProbe.Verdict.IGNORED);
      assertThat(planned.runLock().line()).matches("warning: " + probe + "\\. This dry run goes on without the lock");
      assertThat(planned.summary().line()).endsWith(" conditional_writes=ignored run_lock=none");

      requests.clear();
      SparkExecuteAction refused = new SparkExecuteAction(spark, options(proxy.endpoint(),
          Map.of("--dry-run", "false", "--skip-approval", "true")).execute(), planned.runId());

      assertThatThrownBy(refused::execute)
          .isInstanceOf(RunLockException.Untrusted.class)
          .hasMessageMatching("Cannot take the run lock s3://" + bucket + "/" + LOCK.replace(".", "\\.") + ": "
              + probe + ", so another run could delete at the same time\\. Nothing was read or deleted\\. Run on a"
              + " store that honours conditional writes \\(S3 does\\), or accept the risk with " + unsafe);
      assertThat(requests).as("only the probe: two writes and a delete").extracting(FaultProxy.Request::method)
          .containsExactly("PUT", "PUT", "POST");
      assertThat(lockOwner()).as("the other run's lock is left alone").isEqualTo("statesweep run (pid 1)");
      assertThat(attemptsRecorded()).as("no attempt recorded").isZero();

      Map<String, String> accepted = Map.of("--dry-run", "false", "--skip-approval", "true", unsafe, "true");
      assertThatThrownBy(new SparkExecuteAction(spark, options(proxy.endpoint(), accepted).execute(), planned.runId())::execute)
          .as("a lock in place still keeps it out").isInstanceOf(RunLockException.Held.class);
      assertThat(lockOwner()).isEqualTo("statesweep run (pid 1)");
      assertThat(keys()).as("nothing deleted").isEqualTo(before);
      other.close();

      // A due record's state file is written again (still due) after the plan: GET If-Match cannot see it here.
      String document = new String(store.read(rewritten.stateFileKey(), 1 << 20).bytes(), StandardCharsets.UTF_8);
      store.write(rewritten.stateFileKey(), document.replaceFirst("\\}\\s*$", ", \"rewritten\": true}")
          .getBytes(StandardCharsets.UTF_8));

      ExecuteResult result = new SparkExecuteAction(spark, options(proxy.endpoint(), accepted).execute(), planned.runId())
          .execute();

      assertThat(result.failure()).isNull();
      assertThat(result.summary().line()).contains(" state_changed=1 ")
          .contains(" conditional_deletes=on conditional_reads=ignored ")
          .endsWith(" conditional_writes=ignored run_lock=unsafe");
      assertThat(result.runLock().status()).isEqualTo(LockOutcome.Status.UNSAFE);
      assertThat(result.runLock().line()).matches("warning: " + probe + "\\. This run holds it anyway \\(" + unsafe
          + "\\): another run that starts at the same moment can hold it too");
      assertThat(result.exitCode()).isZero();
    }
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes());
    expectedLeft.addAll(rewritten.expectedDeletes(manifest.now(), Duration.ZERO));
    assertThat(keys()).as("every planned key gone but the rewritten record's").isEqualTo(expectedLeft);
    assertThat(store.read(LOCK, 4096)).as("the lock released").isNull();
  }

  /** Records, as each Spark job starts, the lock's owner and start and the job's group ("no lock" without one). */
  private final class LockWatch extends SparkListener {
    private final List<String> seen;

    LockWatch(List<String> seen) {
      this.seen = seen;
    }

    @Override
    public void onJobStart(SparkListenerJobStart jobStart) {
      String group = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.jobGroup.id");
      ObjectContent lock = store.read(LOCK, 4096);
      if (lock == null) {
        seen.add("no lock " + group);
        return;
      }
      String document = new String(lock.bytes(), StandardCharsets.UTF_8);
      seen.add(field(document, "owner") + " " + field(document, "started_at") + " " + group);
    }
  }

  private static String field(String document, String name) {
    return document.replaceAll("(?s).*\"" + name + "\":\"([^\"]*)\".*", "$1");
  }

  /** The owner the lock object names, or {@code (no lock)}. */
  private String lockOwner() {
    ObjectContent lock = store.read(LOCK, 4096);
    return lock == null ? "(no lock)" : field(new String(lock.bytes(), StandardCharsets.UTF_8), "owner");
  }

  private PlanResult plan(String endpoint) {
    PlanResult result = new SparkPlanAction(spark, options(endpoint, Map.of()).plan()).execute();
    assertThat(result.failure()).isNull();
    return result;
  }

  private Set<String> keys() {
    Set<String> keys = new TreeSet<>();
    store.listAll(P, object -> keys.add(object.key()));
    return keys;
  }

  private RunOptions options(String endpoint, Map<String, String> extra) {
    return TestOptions.of(endpoint, bucket, P, warehouse).with(extra).options();
  }

  /** The rows of executions: none when the table does not exist (a plan makes it, empty). */
  private long attemptsRecorded() {
    TableReader tables = TableReader.of(spark, warehouse);
    return tables.exists(Tables.EXECUTIONS) ? tables.count(Tables.EXECUTIONS) : 0;
  }

  /** Waits for {@code latch} up to a minute (a test that never sees it fails on its assertions, not by hanging). */
  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
