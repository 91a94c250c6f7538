package io.statesweep.synthetic;

import static io.statesweep.testing.DatasetAssertions.assertSameRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.PlanResult;
import io.statesweep.spark.TestActions;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project holding half the archive is listed by many bounded tasks, every key exactly once, over
 * pages as S3 may answer them too (empty and truncated, fewer keys than asked).
 */
@Tag("slow")
@ExtendWith(S3ServerExtension.class)
class SkewedListingTest {

  @Test
  void aSkewedArchiveIsListedCompletelyByManyBoundedTasks(@TempDir Path warehouse) throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 3_000, 3, 100, true, 5);
    // As S3 answers: StartAfter echoed even when XML cannot carry it (the split after prefix + U+FFFF).
    try (SyntheticS3Server server = new SyntheticS3Server("skewed", archive, Duration.ZERO, 0)
        .echoXmlInvalidStartAfter(true)) {
      PlanResult result = TestActions.plan(SharedSpark.session(), options(server, "skewed", warehouse).options());

      assertThat(result.failure()).isNull();
      assertThat(result.summary().extra().get("keys_listed")).isEqualTo("12000");
      assertThat(result.summary().stateFilesScanned()).isEqualTo(3_000);
      assertThat(result.summary().recordsDeleted()).isEqualTo(600);
      assertThat(result.summary().childKeysDeleted()).isEqualTo(1_800);
      Row run = TableReader.of(result.tables()).runs(result.runId()).select("listing_tasks").first();
      // 16 projects at the start; project 0 (6,000 keys, 6 pages) alone splits into dozens of tasks.
      assertThat(run.getLong(0)).isGreaterThan(16 + 50);
    }
  }

  @Test
  void overEmptyTruncatedPagesAndPagesOfFewerKeysThePlanIsTheSameRecordForRecord(@TempDir Path warehouse)
      throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 600, 3, 100, true, 5);
    try (SyntheticS3Server server = new SyntheticS3Server("quirky", archive, Duration.ZERO, 0)
        .echoXmlInvalidStartAfter(true)) {
      PlanResult plain = plan(server, warehouse.resolve("plain"));
      // Every other page empty and truncated, the others of 1 to 300 keys: project 0 (1,200 keys) splits.
      server.emptyTruncatedPages(1).shortPages(300);
      PlanResult quirky = plan(server, warehouse.resolve("quirky"));

      assertThat(plain.summary().extra()).containsEntry("keys_listed", "2400");
      assertThat(quirky.summary().extra()).containsEntry("keys_listed", "2400");
      assertThat(planRows(plain).select("state_file_key").distinct().count()).isEqualTo(600);
      assertSameRows("the plan over quirky pages", planRows(plain), planRows(quirky));
    }
  }

  @Test
  void aTruncatedPageWithoutAContinuationTokenFailsThePlanInsteadOfPlanningPartOfTheArchive(@TempDir Path warehouse)
      throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 600, 3, 100, true, 5);
    try (SyntheticS3Server server = new SyntheticS3Server("broken", archive, Duration.ZERO, 0)
        .shortPages(300).continuationTokens(SyntheticS3Server.ContinuationTokens.MISSING)) {
      PlanResult result = TestActions.plan(SharedSpark.session(), options(server, "broken", warehouse).options());

      assertThat(result.summary().complete()).isFalse();
      assertThat(result.failure()).containsPattern("Cannot list \\S+: page 1 is truncated but has no continuation token,"
          + " so the keys after it cannot be listed");
    }
  }

  /** Plans the archive with tasks of two pages. */
  private static PlanResult plan(SyntheticS3Server server, Path warehouse) {
    String bucket = "quirky";
    PlanResult result = TestActions.plan(SharedSpark.session(), options(server, bucket, warehouse).options());
    assertThat(result.failure()).isNull();
    return result;
  }

  /** Each record's action and number of keys to delete. */
  private static Dataset<Row> planRows(PlanResult result) {
    return TableReader.of(result.tables()).deletionPlan(result.runId())
        .select("state_file_key", "action", "keys_to_delete");
  }

  /** A run of {@code bucket} in tasks of two pages. */
  private static TestOptions options(SyntheticS3Server server, String bucket, Path warehouse) {
    return TestOptions.of(server.endpoint(), bucket, "cogram/", warehouse).with("--pages-per-task", "2");
  }
}
