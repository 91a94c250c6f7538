package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static io.statesweep.testing.TestArchive.keys;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.plan.Action;
import io.statesweep.s3.RunLock;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The operators' contract (pipeline/README.md, "The summary line" and "Failures page someone"): every run ends with its
 * summary line whatever stops it; alert lines are never capped; the exporter's guide's IAM policy (no s3:PutObject) is
 * enough for a dry run, and a run that deletes refuses without the run lock, naming the permission.
 *
 * <p>Through the fault proxy: answering AccessDenied to every PUT, it runs plan, execute and {@code run --execute};
 * stripping the conditions (a store that ignores them), {@code run --execute} and {@code execute} exit 2 with {@code
 * stopped=lock_untrusted} and delete nothing.
 */
@ExtendWith(S3ServerExtension.class)
class OperatorsContractTest {
  private static final String NO_SERVER = "http://127.0.0.1:9";
  private static final Pattern RUN_ID = Pattern.compile(" run_id=(\\S+)");

  /** The line of a run that stopped before it counted anything: its first ten pairs as the contract gives them. */
  private static String stopped(boolean dryRun, long errors, String reason) {
    return "summary: dry_run=" + dryRun + " complete=false state_files_scanned=0 records_deleted=0"
        + " child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=" + errors
        + " stopped=" + reason;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      plan --grace-days soon                           |                            | true
      run --workers 0 --execute                        |                            | false
      run --execute --no-such-option                   |                            | false
      run --no-such-option                             | COGRAM_CLEANUP_DRY_RUN=0   | false
      run --no-such-option --dry-run true              | COGRAM_CLEANUP_DRY_RUN=0   | true
      run --dry-run maybe                              |                            | true
      run --workers 0                                  | COGRAM_CLEANUP_DRY_RUN=false | false
      execute --skip-approval                          |                            | false
      """)
  void aRunStoppedByBadSettingsEndsWithItsSummaryLine(String arguments, String environment, boolean dryRun) {
    List<String> args = new ArrayList<>(Arrays.asList(arguments.split(" ")));
    args.addAll(List.of("--bucket", "b", "--prefix", "cogram/", "--endpoint", NO_SERVER));
    Map<String, String> variables = new HashMap<>();
    if (environment != null) {
      variables.put(environment.split("=")[0], environment.split("=")[1]);
    }

    CommandOutput output = run(variables, args.toArray(String[]::new));

    assertThat(output.code()).as(output.errors()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).startsWith("statesweep: ");
    assertThat(output.text()).isEqualTo(stopped(dryRun, 0, "bad_settings") + "\n");
  }

  @Test
  void aRunRefusedByAHeldLockEndsWithItsSummaryLine(LocalS3Server server, @TempDir Path warehouse) {
    server.createBucket("held");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "held");

    try (RunLock other = RunLock.acquire(store, RunLock.keyFor("cogram/"), "statesweep run (pid 1)", "host-b",
        Duration.ofMinutes(10), Clock.systemUTC())) {
      CommandOutput output = run(environment("held", server.endpoint(), warehouse), "run", "--execute");

      assertThat(output.code()).as(output.errors()).isEqualTo(StatesweepCli.LOCKED);
      assertThat(output.errors()).startsWith("statesweep: Another statesweep run holds the lock s3://held/");
      assertThat(output.text()).isEqualTo(stopped(false, 0, "lock_held") + "\n");
    }
  }

  @Test
  void aRunWhoseLockCannotBeTakenEndsWithItsSummaryLine(LocalS3Server server, @TempDir Path warehouse)
      throws Exception {
    server.createBucket("unavailable");
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(request -> request.method().equals("PUT") ? FaultProxy.Fault.INTERNAL_ERROR : null);

      CommandOutput output = run(environment("unavailable", proxy.endpoint(), warehouse), "plan");

      assertThat(output.code()).as(output.errors()).isEqualTo(StatesweepCli.RUN_FAILED);
      assertThat(output.errors()).startsWith("statesweep: Cannot take the run lock s3://unavailable/cogram.statesweep/lock:"
          + " Cannot write s3://unavailable/cogram.statesweep/lock: InternalError (500)");
      assertThat(output.text()).isEqualTo(stopped(true, 1, "lock_unavailable") + "\n");
    }
  }

  @Test
  void aRunOnABucketThatDoesNotExistEndsWithItsSummaryLine(LocalS3Server server, @TempDir Path warehouse) {
    CommandOutput output = run(environment("no-such-bucket", server.endpoint(), warehouse), "run", "--execute");

    assertThat(output.code()).as(output.errors()).isEqualTo(StatesweepCli.RUN_FAILED);
    assertThat(output.errors()).startsWith("statesweep: Cannot take the run lock s3://no-such-bucket/cogram.statesweep/lock:"
        + " Cannot write s3://no-such-bucket/cogram.statesweep/lock: NoSuchBucket (404)");
    assertThat(output.text()).isEqualTo(stopped(false, 1, "lock_unavailable") + "\n");
  }

  /** The store ignores If-None-Match: *, so it cannot hold the lock: a run that deletes stops before it reads. */
  @Test
  void aRunThatDeletesOnAStoreThatIgnoresConditionalWritesIsRefusedWithItsSummaryLine(LocalS3Server server,
      @TempDir Path warehouse) throws Exception {
    server.createBucket("untrusted");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "untrusted");
    SampleArchive.generate(store, "cogram/", SampleArchive.minimumRecordCount(), 3L, Instant.now());
    Set<String> before = keys(store);
    try (FaultProxy proxy = new FaultProxy(server.endpoint()).signingWith(server.accessKey(), server.secretKey())) {
      List<FaultProxy.Request> requests = new java.util.concurrent.CopyOnWriteArrayList<>();
      proxy.plan(request -> {
        requests.add(request);
        return FaultProxy.ignoresConditionalWrites().faultOf(request);
      });
      Map<String, String> environment = environment("untrusted", proxy.endpoint(), warehouse);

      for (String[] args : List.of(new String[] {"run", "--execute"},
          new String[] {"execute", "--run-id", "20261201T000000Z-000000", "--skip-approval"})) {
        requests.clear();
        CommandOutput output = run(environment, args);

        assertThat(output.code()).as(output.errors()).isEqualTo(StatesweepCli.BAD_SETTINGS);
        assertThat(output.errors()).matches("statesweep: Cannot take the run lock s3://untrusted/cogram\\.statesweep/lock:"
            + " the store wrote cogram\\.statesweep/probe-lock-\\S+ a second time although PutObject said"
            + " If-None-Match: \\*: it cannot hold the run lock, so another run could delete at the same time\\."
            + " Nothing was read or deleted\\. Run on a store that honours conditional writes \\(S3 does\\), or"
            + " accept the risk with --unsafe-lock-without-conditional-writes\n");
        assertThat(output.text()).isEqualTo(stopped(false, 0, "lock_untrusted") + "\n");
        assertThat(requests).as("only the lock's probe").extracting(FaultProxy.Request::method)
            .containsExactly("PUT", "PUT", "POST");
      }
    }
    assertThat(keys(store)).as("nothing deleted").isEqualTo(before);
    assertThat(store.read(RunLock.keyFor("cogram/"), 4096)).as("no lock left").isNull();
  }

  @Test
  void aPlanWhoseListingFailsEndsWithItsSummaryLine(LocalS3Server server, @TempDir Path warehouse) throws Exception {
    server.createBucket("unlisted");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "unlisted");
    SampleArchive.generate(store, "cogram/", SampleArchive.minimumRecordCount(), 3L, Instant.now());
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(request -> request.isList() ? FaultProxy.Fault.INTERNAL_ERROR : null);

      CommandOutput output = run(environment("unlisted", proxy.endpoint(), warehouse), "plan");

      assertThat(output.code()).as(output.errors()).isEqualTo(StatesweepCli.RUN_FAILED);
      assertThat(output.text()).contains(" did not complete: ");
      assertThat(output.lastLine()).startsWith("summary: dry_run=true complete=false state_files_scanned=0"
          + " records_deleted=0 child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0"
          + " errors=1 ");
      assertThat(store.read(RunLock.keyFor("cogram/"), 4096)).as("the lock released").isNull();
    }
  }

  @Test
  void everyRefusedAndComingBackLineIsLoggedWhateverLogLinesSays(LocalS3Server server, @TempDir Path warehouse)
      throws Exception {
    server.createBucket("alerts");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "alerts");
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 120, 17L, Instant.now());
    Map<String, Long> expected = manifest.countsByAction(Duration.ZERO);
    Map<String, String> environment = environment("alerts", server.endpoint(), warehouse);
    assertThat(expected.get(Action.KEPT_REFUSED.label())).as("several refused records").isGreaterThan(1);
    assertThat(expected.get(Action.KEPT_NEWER_FILES.label())).as("several coming back").isGreaterThan(1);

    CommandOutput plan = run(environment, "plan", "--log-lines", "1");

    assertThat(plan.code()).as(plan.errors()).isZero();
    assertThat(plan.count("would delete ")).isEqualTo(1);
    assertThat(plan.text()).contains(" more 'would delete' keys: see table deletion_plan");
    assertThat(plan.count("refused to delete ")).isEqualTo(expected.get(Action.KEPT_REFUSED.label()));
    assertThat(plan.count("the record is coming back")).isEqualTo(expected.get(Action.KEPT_NEWER_FILES.label()));
    assertThat(plan.lines().stream().filter(line -> line.startsWith("skipped ")).count())
        .isEqualTo(manifest.skippedCount());

    // Three records due in the plan come back before it is executed: each is kept, and each says so.
    List<String> rewritten = new ArrayList<>();
    for (SampleArchive.SampleRecord record : manifest.records().values()) {
      if (rewritten.size() < 3 && record.expectedAction(manifest.now(), Duration.ZERO) == Action.DELETE_RECORD) {
        record.files().stream().filter(record.existingKeys()::contains).findFirst().ifPresent(rewritten::add);
      }
    }
    Thread.sleep(1_100); // LastModified has whole seconds: the rewrites are strictly newer
    for (String key : rewritten) {
      store.write(key, "written again".getBytes(StandardCharsets.UTF_8));
    }
    // execute takes no --log-lines (it prints no 'would delete' lines); the setting from the environment caps nothing.
    Map<String, String> oneLine = new java.util.HashMap<>(environment);
    oneLine.put("STATESWEEP_LOG_LINES", "1");
    CommandOutput execute = run(oneLine, "execute", "--run-id", runId(plan), "--skip-approval");

    assertThat(execute.code()).as(execute.errors()).isZero();
    assertThat(rewritten).hasSize(3);
    assertThat(execute.count("the record is coming back")).isEqualTo(3);
    assertThat(execute.lastLine()).contains(" kept_newer_files=" + (expected.get(Action.KEPT_NEWER_FILES.label()) + 3));
  }

  @Test
  void theGuidesPolicyIsEnoughForADryRunAndARunThatDeletesRefusesWithoutTheLock(LocalS3Server server,
      @TempDir Path warehouse) throws Exception {
    server.createBucket("guide");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "guide");
    SampleArchive.Manifest manifest = SampleArchive.generate(store, "cogram/", 60, 23L, Instant.now());
    Set<String> before = keys(store);
    String denied = "Cannot take the run lock: Cannot write s3://guide/cogram.statesweep/lock: AccessDenied (403):"
        + " Access Denied. Missing permission: s3:PutObject on arn:aws:s3:::guide/cogram.statesweep/* (and"
        + " kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS); conf/deploy/iam-policy.json grants what"
        + " the run lock needs";
    try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
      proxy.plan(FaultProxy.deniedPuts("/"));
      Map<String, String> environment = environment("guide", proxy.endpoint(), warehouse);

      CommandOutput plan = run(environment, "plan");
      CommandOutput execute = run(environment, "execute", "--run-id", runId(plan), "--skip-approval");
      CommandOutput runExecute = run(environment, "run", "--execute");

      assertThat(plan.code()).as(plan.errors()).isZero();
      assertThat(plan.errors()).isEqualTo("statesweep: warning: " + denied + ". This dry run goes on without the lock\n");
      assertThat(plan.lastLine()).startsWith("summary: dry_run=true complete=true ").contains(" errors=0 ")
          .endsWith(" run_lock=none");
      assertThat(plan.lastLine()).contains(" records_deleted="
          + manifest.countsByAction(Duration.ZERO).get(Action.DELETE_RECORD.label()) + " ");
      for (CommandOutput refused : List.of(execute, runExecute)) {
        assertThat(refused.code()).as(refused.errors()).isEqualTo(StatesweepCli.BAD_SETTINGS);
        assertThat(refused.errors()).isEqualTo("statesweep: " + denied
            + ". A run that deletes needs the lock: nothing was deleted\n");
        assertThat(refused.text()).isEqualTo(stopped(false, 1, "lock_denied") + "\n");
      }
      assertThat(keys(store)).isEqualTo(before);
      assertThat(proxy.injected()).containsKey(FaultProxy.Fault.ACCESS_DENIED);

      // With the lock granted but not the probe's key, the execute still runs, its conditions unverified.
      proxy.plan(FaultProxy.deniedPuts("/guide/cogram.statesweep/probe-"));
      CommandOutput probeDenied = run(environment, "run", "--execute");

      assertThat(probeDenied.code()).as(probeDenied.errors()).isZero();
      assertThat(probeDenied.text()).containsPattern("conditional deletes: on \\(unverified: cannot write the probe"
          + " cogram\\.statesweep/probe-\\S+: AccessDenied; it needs s3:PutObject on that key \\(and"
          + " kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS\\)\\)");
      Set<String> expectedLeft = new TreeSet<>(before);
      expectedLeft.removeAll(manifest.expectedDeletes());
      assertThat(keys(store)).isEqualTo(expectedLeft);
    }
  }

  private static Map<String, String> environment(String bucket, String endpoint, Path warehouse) {
    return Map.of("COGRAM_CLEANUP_BUCKET", bucket, "COGRAM_CLEANUP_PREFIX", "cogram/", "STATESWEEP_ENDPOINT", endpoint,
        "STATESWEEP_WAREHOUSE", warehouse.toString());
  }

  /** The run id on the command's last line (its summary). */
  private static String runId(CommandOutput output) {
    Matcher matcher = RUN_ID.matcher(output.lastLine());
    assertThat(matcher.find()).as("a run_id in " + output.lastLine()).isTrue();
    return matcher.group(1);
  }
}
