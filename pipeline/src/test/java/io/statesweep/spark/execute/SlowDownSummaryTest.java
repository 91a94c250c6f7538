package io.statesweep.spark.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.plan.RunSummary;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** pipeline/README.md, "Deleting at the bucket's speed": the SlowDowns of an attempt in its summary line, by lane. */
class SlowDownSummaryTest {
  private static final RunSummary NONE = new RunSummary(false, true, 0, 0, 0, 0, 0, 0, 0, 0, Map.of());

  @Test
  void theLanesWithTheMostAreNamedAndTheOthersCounted() {
    Map<String, Long> byLane = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      byLane.put("projects/p" + i + "/", (long) i + 1);
    }
    byLane.put("", 40L);
    RunSummary summary = AttemptReport.withSlowDowns(NONE, byLane);

    assertThat(summary.extra()).containsEntry("slowdowns", Long.toString(40 + 78));
    assertThat(summary.extra().get("slowdowns_by_lane"))
        .startsWith("/:40,projects/p11/:12,projects/p10/:11,projects/p9/:10,").endsWith(",+3_lanes");
  }

  @Test
  void aHostileFolderNeitherSplitsThePairsNorPosesAsAnotherLane() {
    String hostile = "pro jects=x,projects/p1/:99\n\u202Eevil/";
    RunSummary summary = AttemptReport.withSlowDowns(NONE, Map.of(hostile, 3L, "projects/p1/", 1L));

    String lanes = summary.extra().get("slowdowns_by_lane");
    assertThat(lanes).isEqualTo("pro%20jects%3Dx%2Cprojects/p1/%3A99%0A%E2%80%AEevil/:3,projects/p1/:1");
    assertThat(summary.line()).hasLineCount(1).endsWith(" slowdowns_by_lane=" + lanes);
    assertThat(lanes.split(",")).hasSize(2);
  }

  @Test
  void noSlowDownsLeaveTheSummaryAsItWas() {
    assertThat(AttemptReport.withSlowDowns(NONE, Map.of())).isEqualTo(NONE);
  }
}
