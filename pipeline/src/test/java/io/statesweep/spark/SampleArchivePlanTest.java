package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated archive is an independent oracle: it knows, from how it built each record, what a
 * cleanup must decide. The plan of every record, and the set of keys, must match it.
 */
@ExtendWith(S3ServerExtension.class)
class SampleArchivePlanTest {

  @Test
  void planMatchesWhatTheGeneratedArchiveExpectsRecordByRecord(LocalS3Server server, @TempDir Path warehouse) {
    server.createBucket("sample");
    Instant now = Instant.now();
    SampleArchive.Manifest manifest = SampleArchive.generate(
        S3ObjectStore.open(server.s3Settings(), "sample"), "cogram/", 400, 7L, now);

    RunOptions options = TestOptions.of(server.endpoint(), "sample", "cogram/", warehouse).with("--log-lines", "all")
        .options();
    PlanResult result = new SparkPlanAction(SharedSpark.session(), options.plan()).clock(Clock.fixed(now, ZoneOffset.UTC))
        .execute();

    assertThat(result.failure()).isNull();
    List<Row> rows = TableReader.of(result.tables()).deletionPlan(result.runId()).select("state_file_key", "action")
        .collectAsList();
    Map<String, String> actions = new TreeMap<>();
    rows.forEach(row -> actions.put(row.getString(0), row.getString(1)));
    assertThat(actions).isEqualTo(manifest.expectedActions(Duration.ZERO));

    TreeSet<String> wouldDelete = new TreeSet<>();
    result.logLines().stream().filter(line -> line.startsWith("would delete "))
        .forEach(line -> wouldDelete.add(line.substring("would delete ".length())));
    assertThat(wouldDelete).isEqualTo(manifest.expectedDeletes(Duration.ZERO));
    // pipeline/README.md, "What a run does": each file of a live record (neither marked nor expired, nor kept whole)
    // that was never written.
    List<String> expectedMissing = new java.util.ArrayList<>();
    manifest.records().values().forEach(record -> {
      boolean live = !record.badDocument() && record.refusedKey() == null && !record.markedForDeletion()
          && (record.expiresAt() == null || now.isBefore(record.expiresAt()));
      if (live) {
        record.files().stream().distinct().filter(key -> !record.existingKeys().contains(key))
            .forEach(key -> expectedMissing.add("missing " + key + ": listed by live record " + record.stateFileKey()));
      }
    });
    assertThat(expectedMissing).isNotEmpty();
    assertThat(result.logLines().stream().filter(line -> line.startsWith("missing ")).toList())
        .containsExactlyInAnyOrderElementsOf(expectedMissing);
    assertThat(result.summary().line()).contains(" missing_files=" + expectedMissing.size() + " ");
    assertThat(result.summary().stateFilesScanned()).isEqualTo(manifest.recordCount());
    assertThat(result.summary().skipped()).isEqualTo(manifest.skippedCount());
    assertThat(result.summary().errors()).isZero();
  }
}
