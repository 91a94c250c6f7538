package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * README, "What a run does", on a bucket with S3 Versioning (S3Proxy versions as S3 documents:
 * {@code local/S3ProxyScenarioTest}): a delete leaves a delete marker in front of the key's versions, so statesweep
 * sends no delete that would only stack another one. A removed file of a live record ({@code delete_files}) is
 * deleted while it exists, once: the next run finds it gone and sends nothing, and a key that never existed gets no
 * marker at all. The run reports the bucket's versioning ({@code bucket_versioning=Enabled}).
 */
@ExtendWith(S3ServerExtension.class)
class VersionedBucketTest {
  private static final String P = "it/";
  private static final String EMAIL = "projects/p1/emails/e1/";
  private static final String DOCUMENT = "projects/p1/documents/d1/";

  @Test
  void aRemovedFileGetsOneDeleteMarkerHoweverManyRunsFindItGone(LocalS3Server server, @TempDir Path warehouse)
      throws InterruptedException {
    TestArchive archive = new TestArchive(server, "versioned-runs", P);
    server.enableVersioning("versioned-runs");
    archive.put(EMAIL + "body.html", "<p>");
    archive.put(EMAIL + "old.pdf", "pdf");
    archive.put(EMAIL + "state.json", archive.state(false, null, List.of(EMAIL + "body.html"),
        List.of(EMAIL + "old.pdf", EMAIL + "never-written.pdf")));
    archive.put(DOCUMENT + "doc.pdf", "doc");
    archive.put(DOCUMENT + "state.json", archive.state(true, null, List.of(DOCUMENT + "doc.pdf"), List.of()));
    // A state file counts as listed only when it was written before the listing began (whole seconds here).
    Thread.sleep(2_100);
    RunOptions options = TestOptions.of(server.endpoint(), "versioned-runs", "it", warehouse)
        .with("--dry-run", "false").options();

    for (int run = 1; run <= 2; run++) {
      PlanResult plan = TestActions.plan(SharedSpark.session(), options);
      ExecuteResult executed = TestActions.executeOwnPlan(SharedSpark.session(), options, plan);

      assertThat(executed.failure()).as("run %d", run).isNull();
      assertThat(plan.summary().line()).as("run %d", run).contains(" bucket_versioning=Enabled");
      assertThat(executed.summary().recordsDeleted()).as("run %d", run).isEqualTo(run == 1 ? 1 : 0);
      // The second plan finds old.pdf gone: no record with removed files to delete, and no key sent.
      assertThat(plan.summary().line()).as("run %d", run)
          .contains(" records_with_removed_files=" + (run == 1 ? 1 : 0) + " ");
      assertThat(executed.summary().line()).as("run %d", run)
          .contains(" child_keys_deleted=" + (run == 1 ? 2 : 0) + " ");
      // The export's keys only: statesweep's own folder (it.statesweep/: the lock, the probes, the ledger) is not the
      // archive.
      Map<String, Integer> markers = new java.util.TreeMap<>(server.deleteMarkers("versioned-runs"));
      markers.keySet().removeIf(key -> !key.startsWith(P));
      assertThat(markers).as("the delete markers of the export after run %d", run).isEqualTo(Map.of(
          P + EMAIL + "old.pdf", 1, P + DOCUMENT + "doc.pdf", 1, P + DOCUMENT + "state.json", 1));
    }
    assertThat(archive.snapshot().keySet()).containsExactlyInAnyOrder(P + EMAIL + "body.html", P + EMAIL + "state.json");
  }
}
