package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** pipeline/README.md, "Deleting at the bucket's speed": the model of S3's partitions the pacing benchmark runs
 * against. */
class PartitionModelTest {
  private static final long SECOND = 1_000_000_000L;

  private long now = 10 * SECOND;

  private PartitionModel model(double capacity, List<String> firstKeys, int splitAfterSeconds) {
    return new PartitionModel(capacity, firstKeys, splitAfterSeconds, 0.5, () -> now);
  }

  private static List<String> keys(String prefix, int count) {
    return Collections.nCopies(count, prefix);
  }

  @Test
  void aPartitionTakesItsCapacityInAnySecondThenShedsUntilItsLastSecondFallsUnderNineTenths() {
    PartitionModel model = model(100, List.of("b/"), 0);
    assertThat(model.admit(keys("a/1", 100))).isTrue();
    assertThat(model.admit(keys("b/1", 100))).as("another partition").isTrue();
    now += SECOND / 2;
    assertThat(model.admit(keys("a/2", 1))).as("a 101st key within the second").isFalse();
    now += SECOND / 2 - 1;
    assertThat(model.admit(keys("a/3", 1))).as("shedding: the second still holds 100").isFalse();
    now += 1;
    assertThat(model.admit(keys("a/4", 50))).as("the 100 aged out").isTrue();
  }

  @Test
  void aPartitionLoadedForItsSplitTimeSplitsAtTheMiddleOfTheKeysWrittenMeanwhile() {
    PartitionModel model = model(100, List.of(), 3);
    for (int second = 0; second < 5; second++) {
      for (int i = 0; i < 60; i++) {
        model.admit(List.of(String.format("k%02d", i)));
      }
      now += SECOND;
    }
    assertThat(model.splits()).isEqualTo(1);
    assertThat(model.firstKeys()).containsExactly("", "k30");
    assertThat(model.partitionsAt(10 * SECOND)).as("before the load").isEqualTo(1);
    assertThat(model.partitionsAt(now)).isEqualTo(2);
  }

  @Test
  void aPartitionCanTakeItsOwnCapacity() {
    PartitionModel model = model(100, List.of("b/"), 0).withCapacity("", 3500);
    assertThat(model.admit(keys("a/1", 3500))).as("statesweep's ledger folder, at S3's figure").isTrue();
    assertThat(model.admit(keys("b/1", 101))).as("the model's partitions keep the model's").isFalse();
    assertThatThrownBy(() -> model.withCapacity("c/", 10)).isInstanceOf(IllegalArgumentException.class);
  }
}
