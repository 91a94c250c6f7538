package io.statesweep.spark.execute;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** pipeline/README.md, "Deleting" and "Deleting at the bucket's speed": how many tasks the delete phase spreads its
 * records over. */
class DeleteTasksTest {
  @Test
  void twiceTheCoresOrOnceWhenPacedSoThatTheTasksAtOnceCoverTheWholeKeySpace() {
    assertThat(DeleteTasks.deletePartitions(16, 0)).isEqualTo(32);
    assertThat(DeleteTasks.deletePartitions(16, 0, true)).as("paced per partition: one wave").isEqualTo(16);
    assertThat(DeleteTasks.deletePartitions(16, 3500, true)).isEqualTo(16);
    assertThat(DeleteTasks.deletePartitions(16, 10, true)).as("a ceiling below the cores: a key a second a task")
        .isEqualTo(10);
    assertThat(DeleteTasks.keysPerSecondPerTask(16, 3500)).isEqualTo(3500.0 / 16);
  }
}
