package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.spark.PlanResult;
import io.statesweep.spark.SparkPlanAction;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A project holding half the archive is listed by many bounded tasks, every key exactly once. */
@ExtendWith(S3ServerExtension.class)
class SkewedListingTest {

  @Test
  void aSkewedArchiveIsListedCompletelyByManyBoundedTasks(@TempDir Path warehouse) throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 3_000, 3, 100, true, 5);
    // As S3 answers: StartAfter echoed even when XML cannot carry it (the split after prefix + U+FFFF).
    try (SyntheticS3Server server = new SyntheticS3Server("skewed", archive, Duration.ZERO, 0)
        .echoXmlInvalidStartAfter(true)) {
      Map<String, String> flags = new HashMap<>();
      flags.put("--bucket", "skewed");
      flags.put("--prefix", "cogram/");
      flags.put("--endpoint", server.endpoint());
      flags.put("--warehouse", warehouse.toString());
      flags.put("--log-lines", "0");
      flags.put("--pages-per-task", "2");

      PlanResult result = new SparkPlanAction(SharedSpark.session(), RunOptions.from(Settings.resolve(flags, Map.of(),
          null))).execute();

      assertThat(result.failure()).isNull();
      assertThat(result.summary().extra().get("keys_listed")).isEqualTo("12000");
      assertThat(result.summary().stateFilesScanned()).isEqualTo(3_000);
      assertThat(result.summary().recordsDeleted()).isEqualTo(600);
      assertThat(result.summary().childKeysDeleted()).isEqualTo(1_800);
      Row run = SharedSpark.session().read().format("delta").load(result.tables().runs())
          .filter("run_id = '" + result.runId() + "'").select("listing_tasks").first();
      // 16 projects at the start; project 0 (6,000 keys, 6 pages) alone splits into dozens of tasks.
      assertThat(run.getLong(0)).isGreaterThan(16 + 50);
    }
  }
}
