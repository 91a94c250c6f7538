package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code statesweep restore} from the command line (pipeline/README.md, "Undoing a run"): after a {@code run --execute}
 * on a versioned bucket, the dry run (the default) prints a {@code would restore} line per key and changes nothing, and
 * {@code --dry-run false} brings back every key the run deleted with the bytes it had (exit 0, its summary line). A run
 * id without executions, and a bucket without versioning, are refused: exit 2, {@code stopped=restore_refused}.
 */
@ExtendWith(S3ServerExtension.class)
class RestoreCommandTest {

  @Test
  void aDryRunThenARestoreBringBackTheRunsKeysAndRefusalsExit2(LocalS3Server server, @TempDir Path warehouse) {
    server.createBucket("restore-cli");
    server.enableVersioning("restore-cli");
    server.createBucket("restore-cli-unversioned");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "restore-cli");
    SampleArchive.generate(store, "cogram/", SampleArchive.minimumRecordCount(), 5L, Instant.now());
    Map<String, String> before = export(store);
    Map<String, String> environment = new HashMap<>(Map.of("COGRAM_CLEANUP_BUCKET", "restore-cli",
        "COGRAM_CLEANUP_PREFIX", "cogram/", "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE",
        warehouse.toString()));

    CommandOutput executed = run(environment, "run", "--execute");
    assertThat(executed.code()).as(executed.errors()).isZero();
    String runId = field(executed.summary(), "run_id");
    long deleted = Long.parseLong(field(executed.summary(), "records_deleted"))
        + Long.parseLong(field(executed.summary(), "child_keys_deleted"));
    Map<String, String> afterTheRun = export(store);
    assertThat(afterTheRun).isNotEqualTo(before);

    CommandOutput dryRun = run(environment, "restore", "--run-id", runId);

    assertThat(dryRun.code()).as(dryRun.errors()).isZero();
    assertThat(dryRun.summary()).startsWith("summary: dry_run=true complete=true restored=" + deleted
        + " written_since=0 already_restored=0 not_restored=0 keys=" + deleted + " errors=0 run_id=" + runId
        + " restore_id=");
    assertThat(dryRun.text().lines().filter(line -> line.startsWith("would restore cogram/"))).hasSize((int) deleted);
    assertThat(dryRun.text()).contains("(a dry run: nothing was changed; restore with: statesweep restore --run-id "
        + runId + " --dry-run false)");
    assertThat(export(store)).isEqualTo(afterTheRun);

    CommandOutput restored = run(environment, "restore", "--run-id", runId, "--dry-run", "false");

    assertThat(restored.code()).as(restored.errors()).isZero();
    assertThat(restored.summary()).startsWith("summary: dry_run=false complete=true restored=" + deleted
        + " written_since=0 already_restored=0 not_restored=0 keys=" + deleted + " errors=0 run_id=" + runId);
    assertThat(restored.text().lines().filter(line -> line.startsWith("restored cogram/"))).hasSize((int) deleted);
    assertThat(restored.text()).contains("tables: restorations=" + warehouse + "/restorations ");
    assertThat(export(store)).as("the listing before the run").isEqualTo(before);
    System.out.printf("restore --run-id of a whole run: %d keys before the run, %d after it (%d deleted), %d after the"
        + " restore, equal to before key for key and ETag for ETag%n", before.size(), afterTheRun.size(), deleted,
        export(store).size());

    CommandOutput unknown = run(environment, "restore", "--run-id", "20260101T000000Z-000000", "--execute");

    assertThat(unknown.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(unknown.errors()).startsWith("statesweep: Nothing to restore: run 20260101T000000Z-000000 has no rows"
        + " in table executions (" + warehouse + "/executions): ");
    assertThat(unknown.summary()).isEqualTo("summary: dry_run=false complete=false restored=0 written_since=0"
        + " already_restored=0 not_restored=0 keys=0 errors=0 stopped=restore_refused");

    environment.put("COGRAM_CLEANUP_BUCKET", "restore-cli-unversioned");
    CommandOutput unversioned = run(environment, "restore", "--run-id", runId, "--dry-run", "false");

    assertThat(unversioned.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(unversioned.errors()).isEqualTo("statesweep: Cannot restore run " + runId + ": bucket"
        + " s3://restore-cli-unversioned has no versioning (GetBucketVersioning answers Off), so its deletes removed"
        + " the objects for good: no earlier version stays behind a delete marker to be made current again. Nothing"
        + " was changed\n");
    assertThat(unversioned.summary()).endsWith(" stopped=restore_refused");
    assertThat(export(store)).isEqualTo(before);
  }

  @Test
  void restoreHelpListsItsOptions() {
    CommandOutput help = run(Map.of(), "restore", "--help");

    assertThat(help.code()).isZero();
    assertThat(help.text()).startsWith("usage: statesweep restore [options]\n")
        .contains("--run-id=ID", "--record=KEY", "--dry-run", "--execute", "--bucket=V", "--warehouse=V")
        .doesNotContain("--grace-days", "--max-deletes");
  }

  private static Map<String, String> export(ObjectStore store) {
    Map<String, String> objects = new TreeMap<>();
    store.listAll("cogram/", object -> objects.put(object.key(), object.etag()));
    return objects;
  }

  private static String field(String summary, String name) {
    Matcher matcher = Pattern.compile(" " + name + "=(\\S+)").matcher(summary);
    assertThat(matcher.find()).as(name + " in " + summary).isTrue();
    return matcher.group(1);
  }
}
