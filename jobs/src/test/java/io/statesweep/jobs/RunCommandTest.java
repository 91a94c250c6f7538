package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static io.statesweep.testing.TestArchive.keys;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The scheduled job as users run it: run, run --execute, execute --run-id, from the command line. */
@ExtendWith(S3ServerExtension.class)
class RunCommandTest {

  @Test
  void runExecuteDeletesWhatTheDryRunSaidAndASecondRunDeletesNothing(LocalS3Server server, @TempDir Path warehouse) {
    server.createBucket("cli");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "cli");
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 120, 11L, Instant.now());
    Set<String> before = keys(store);
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_BUCKET", "cli", "COGRAM_CLEANUP_PREFIX", "cogram/",
        "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE", warehouse.toString());

    CommandOutput dryRun = run(environment, "run");
    CommandOutput execute = run(environment, "run", "--execute");
    CommandOutput again = run(environment, "run", "--execute");

    assertThat(dryRun.code()).isZero();
    assertThat(execute.code()).as(execute.text()).isZero();
    assertThat(counts(execute.summary())).isEqualTo(counts(dryRun.summary()));
    assertThat(execute.summary()).startsWith("summary: dry_run=false complete=true");
    assertThat(execute.text()).doesNotContain("would delete ");
    // pipeline/README.md, "What a run does": the plan of run --execute names the files live records lack, and the
    // execute's summary counts them.
    List<String> missing = dryRun.lines("missing ");
    assertThat(missing).isNotEmpty().allMatch(line -> line.matches("missing cogram/.+: listed by live record cogram/.+"));
    assertThat(execute.lines("missing ")).isEqualTo(missing);
    assertThat(dryRun.summary()).contains(" missing_files=" + missing.size() + " ");
    assertThat(execute.summary()).contains(" missing_files=" + missing.size() + " ");
    assertThat(execute.text()).contains("metrics: {\"metric\":\"statesweep.run\",\"command\":\"execute\"")
        .contains("\"DeleteObjects\":{\"attempts\":");
    assertThat(dryRun.text()).contains("metrics: {\"metric\":\"statesweep.run\",\"command\":\"plan\"");
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes());
    assertThat(keys(store)).isEqualTo(expectedLeft);
    assertThat(again.summary()).contains(" records_deleted=0 child_keys_deleted=0 ");
  }

  @Test
  void aSecondRunWhileOneRunsExitsWithTheHolderNamedAndDeletesNothing(LocalS3Server server, @TempDir Path warehouse)
      throws Exception {
    server.createBucket("locked");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "locked");
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 60, 5L, Instant.now());
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_BUCKET", "locked", "COGRAM_CLEANUP_PREFIX", "cogram/",
        "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE", warehouse.toString());
    Set<String> before = keys(store);

    CommandOutput second;
    CommandOutput firstOutput;
    AtomicInteger held = new AtomicInteger();
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      // Once the first run holds the lock, its listings wait for the second run to end: it still runs then, on a
      // fast machine or a busy one.
      CountDownLatch secondEnded = new CountDownLatch(1);
      AtomicBoolean locked = new AtomicBoolean();
      proxy.plan(request -> {
        if (request.isPutUnder("/locked/cogram.statesweep/lock")) {
          locked.set(true);
        } else if (locked.get() && request.isList() && secondEnded.getCount() > 0) {
          held.incrementAndGet();
          try {
            secondEnded.await(50, TimeUnit.SECONDS); // under the SDK's minute for one attempt
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return null;
      });
      Map<String, String> throughProxy = new HashMap<>(environment);
      throughProxy.put("STATESWEEP_ENDPOINT", proxy.endpoint());
      ExecutorService pool = Executors.newSingleThreadExecutor();
      Future<CommandOutput> first = pool.submit(() -> run(throughProxy, "run"));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (held.get() == 0 && System.nanoTime() < deadline && !first.isDone()) {
        Thread.sleep(20);
      }
      assertThat(held).as("the first run lists while it holds the lock").hasPositiveValue();
      second = run(environment, "run", "--execute");
      secondEnded.countDown();
      firstOutput = first.get(5, TimeUnit.MINUTES);
      pool.shutdown();
    }

    assertThat(second.code()).as(second.errors()).isEqualTo(StatesweepCli.LOCKED);
    assertThat(second.errors()).startsWith("statesweep: Another statesweep run holds the lock"
        + " s3://locked/cogram.statesweep/lock: statesweep run (pid " + ProcessHandle.current().pid() + ") on ");
    assertThat(exportKeys(store)).isEqualTo(before);
    assertThat(firstOutput.code()).as(firstOutput.text() + firstOutput.errors()).isZero();
    assertThat(store.read("cogram.statesweep/lock", 4096)).as("released at the end of the run").isNull();

    CommandOutput after = run(environment, "run", "--execute");
    assertThat(after.code()).as(after.errors()).isZero();
    Set<String> expectedLeft = new TreeSet<>(before);
    expectedLeft.removeAll(manifest.expectedDeletes());
    assertThat(keys(store)).isEqualTo(expectedLeft);
  }

  @Test
  void executeRefusesAPlanThatDoesNotExist(LocalS3Server server, @TempDir Path warehouse) {
    CommandOutput output = run(Map.of(), "execute", "--run-id", "20990101T000000Z-000000", "--bucket", "cli",
        "--prefix", "cogram/", "--endpoint", server.endpoint(), "--warehouse", warehouse.toString());

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).startsWith("statesweep: No plan with run id 20990101T000000Z-000000: cannot read table "
        + warehouse + "/runs");
  }

  /** The export's keys: without statesweep's own folder beside it (the lock, while a run holds it). */
  private static Set<String> exportKeys(ObjectStore store) {
    Set<String> keys = keys(store);
    keys.removeIf(key -> key.startsWith("cogram.statesweep/"));
    return keys;
  }

  /** The summary's ten fixed pairs without dry_run: what a dry run promises an execute deletes. */
  private static String counts(String summary) {
    return summary.replaceAll("dry_run=\\w+ ", "").replaceAll("(errors=\\d+) .*", "$1");
  }
}
