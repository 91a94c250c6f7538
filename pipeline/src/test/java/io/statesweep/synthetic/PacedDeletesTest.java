package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.spark.TestActions;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pipeline/README.md, "Deleting at the bucket's speed": against a store whose partitions take fewer writes than S3
 * documents, the execute's lanes back off on SlowDown and every due record still goes; every SlowDown the store
 * answered, those the SDK retried included, is counted in its lane, in the metrics and in the summary.
 *
 * <p>The local S3 server's extension sets the credentials the SDK finds (the synthetic endpoint takes any).
 */
@ExtendWith(S3ServerExtension.class)
class PacedDeletesTest {

  @Test
  void lanesBackOffOnSlowDownAndEverySlowDownIsCountedInItsLane(@TempDir Path warehouse) throws Exception {
    // Two projects of 30 due records, 11 keys each, in one partition of 200 writes a second: the lanes start
    // together at 400 keys/s (2,800 / 7), in requests of 50 keys, so they meet SlowDown in their first second.
    SyntheticArchive archive = new SyntheticArchive("cogram/", 60, 10, 30, false, 1);
    try (SyntheticS3Server server = new SyntheticS3Server("paced", archive, Duration.ZERO, 0)) {
      RunOptions options = TestOptions.of(server.endpoint(), "paced", "cogram/", warehouse)
          .with("--dry-run", "false").with("--conditional-deletes", "on")
          .with("--partition-deletes-per-second", "2800").options();
      PlanResult plan = TestActions.plan(SharedSpark.session(), options);
      assertThat(plan.failure()).isNull();
      server.partitions(new PartitionModel(200, List.of(), 0, 1, System::nanoTime)).resetCounts();

      ExecuteResult result = TestActions.executeOwnPlan(SharedSpark.session(), options, plan);

      assertThat(result.failure()).isNull();
      assertThat(result.summary().recordsDeleted()).as(result.summary().line()).isEqualTo(60);
      assertThat(result.summary().errors()).isZero();
      Map<String, Long> counts = server.requestCounts();
      long answered = counts.getOrDefault("SLOWDOWN_DELETE", 0L) + counts.getOrDefault("SLOWDOWN_DELETE_OBJECT", 0L);
      assertThat(answered).as("SlowDowns the store answered deletes").isPositive();
      Map<String, Long> byLane = new TreeMap<>();
      JsonNode lanes = new ObjectMapper().readTree(result.metricsJson()).path("delete_slowdowns_by_lane");
      lanes.fields().forEachRemaining(lane -> byLane.put(lane.getKey(), lane.getValue().asLong()));
      assertThat(byLane.keySet()).isSubsetOf("projects/p000000/", "projects/p000001/").isNotEmpty();
      assertThat(byLane.values().stream().mapToLong(Long::longValue).sum())
          .as("every SlowDown the store answered a delete, by lane").isEqualTo(answered);
      assertThat(result.summary().extra()).containsEntry("slowdowns", Long.toString(answered));
      assertThat(result.summary().extra().get("slowdowns_by_lane")).startsWith("projects/p00000");
    }
  }
}
