package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestArchive;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A plan after a plan GETs only the state files whose ETag changed, and still decides every record again. */
@ExtendWith(S3ServerExtension.class)
class IncrementalPlanTest {

  @Test
  void readsOnlyChangedStateFilesAndPlansEveryRecordAgain(LocalS3Server server, @TempDir Path warehouse) {
    TestArchive archive = new TestArchive(server, "incremental", "cogram/");
    for (int i = 0; i < 20; i++) {
      String folder = "projects/p1/documents/d" + i + "/";
      archive.put(folder + "doc.pdf", "pdf");
      archive.put(folder + "state.json", archive.state(false, null, List.of(folder + "doc.pdf"), List.of()));
    }

    PlanResult first = plan(server, warehouse, "true");
    PlanResult second = plan(server, warehouse, "true");
    archive.put("projects/p1/documents/d7/state.json", archive.state(true, null,
        List.of("projects/p1/documents/d7/doc.pdf"), List.of()));
    PlanResult third = plan(server, warehouse, "true");
    PlanResult full = plan(server, warehouse, "false");

    assertThat(first.summary().extra()).containsEntry("state_file_gets", "20");
    assertThat(second.summary().extra()).containsEntry("state_file_gets", "0");
    assertThat(second.summary().line()).contains(" state_files_scanned=20 records_deleted=0 ");
    assertThat(third.summary().extra()).containsEntry("state_file_gets", "1");
    assertThat(third.summary().line()).contains(" state_files_scanned=20 records_deleted=1 child_keys_deleted=1 ");
    assertThat(full.summary().extra()).containsEntry("state_file_gets", "20");
    assertThat(full.summary().line()).contains(" state_files_scanned=20 records_deleted=1 child_keys_deleted=1 ");
  }

  private static PlanResult plan(LocalS3Server server, Path warehouse, String reuse) {
    Map<String, String> flags = new HashMap<>();
    flags.put("--bucket", "incremental");
    flags.put("--prefix", "cogram/");
    flags.put("--endpoint", server.endpoint());
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    flags.put("--reuse-state-files", reuse);
    PlanResult result = new SparkPlanAction(SharedSpark.session(), RunOptions.from(Settings.resolve(flags, Map.of(),
        null))).execute();
    assertThat(result.failure()).isNull();
    return result;
  }
}
