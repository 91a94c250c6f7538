package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/** pipeline/README.md, "Deleting at the bucket's speed": a lane's pace, on a fake clock. */
class PacedLaneTest {
  private static final long SECOND = DeleteThrottle.SPAN_NANOS;
  private static final long REQUEST_NANOS = 20_000_000L;

  private final DeleteThrottleTest.FakeTicker ticker = new DeleteThrottleTest.FakeTicker();

  private PacedLane lane(PacedLane.Pacing pacing, double runCeiling) {
    return new PacedLane.Pacer(pacing, new DeleteThrottle(runCeiling, ticker)).lane("projects/p1/");
  }

  /**
   * A partition that takes {@code capacity} keys in any second, sliding: a request that would pass it gets SlowDown,
   * and so does every request after it until the last second's keys fall under 90 % of the capacity (it sheds load);
   * an exporter's one-key PUT every {@code exporterEvery} nanoseconds counts in it too.
   */
  private static final class Partition {
    final double capacity;
    final long exporterEvery;
    final ArrayDeque<long[]> taken = new ArrayDeque<>();
    long inLastSecond;
    long nextPut;
    long exporterThrottled;
    long exporterPuts;
    boolean shedding;
    /** The most keys the partition took in any second, sliding. */
    long mostInASecond;

    Partition(double capacity, long exporterEvery) {
      this.capacity = capacity;
      this.exporterEvery = exporterEvery;
    }

    boolean take(long now, int keys) {
      while (exporterEvery > 0 && nextPut <= now) {
        exporterPuts++;
        if (!admit(nextPut, 1)) {
          exporterThrottled++;
        }
        nextPut += exporterEvery;
      }
      return admit(now, keys);
    }

    private boolean admit(long at, int keys) {
      while (!taken.isEmpty() && taken.peekFirst()[0] <= at - SECOND) {
        inLastSecond -= taken.pollFirst()[1];
      }
      if (shedding && inLastSecond < 0.9 * capacity) {
        shedding = false;
      }
      if (shedding || inLastSecond + keys > capacity) {
        shedding = true;
        return false;
      }
      taken.addLast(new long[] {at, keys});
      inLastSecond += keys;
      mostInASecond = Math.max(mostInASecond, inLastSecond);
      return true;
    }
  }

  /** {@code count} lanes of one pacer, {@code projects/p00/} on, in key order. */
  private static PacedLane[] lanes(PacedLane.Pacer pacer, int count) {
    PacedLane[] lanes = new PacedLane[count];
    for (int i = 0; i < count; i++) {
      lanes[i] = pacer.lane(String.format("projects/p%02d/", i));
    }
    return lanes;
  }

  /**
   * The partitions of {@code count} lanes in key order, {@code each} lanes to a partition of 3,500 keys/s (the last may
   * have fewer), the exporter writing 100 keys/s into each: lanes that share a partition share one object.
   */
  private static Partition[] partitionsOf(int count, int each) {
    Partition[] distinct = new Partition[(count + each - 1) / each];
    java.util.Arrays.setAll(distinct, i -> new Partition(3500, SECOND / 100));
    Partition[] partitions = new Partition[count];
    java.util.Arrays.setAll(partitions, i -> distinct[i / each]);
    return partitions;
  }

  /** What {@code seconds} of deleting came to. */
  private record Run(long keys, long slowDowns, long keysInLastHalf, double seconds) {
    double lastHalfRate() {
      return keysInLastHalf / (seconds / 2);
    }
  }

  /** What {@code seconds} of deleting through the lane into {@code partition} came to. */
  private Run deleteFor(PacedLane lane, Partition partition, int seconds) {
    return deleteFor(new PacedLane[] {lane}, new Partition[] {partition}, seconds);
  }

  /**
   * {@code seconds} of deleting, one request of each lane in turn, lane {@code i} into {@code partitions[i]} (the
   * same partition for lanes that share one), each lane deleting throughout.
   */
  private Run deleteFor(PacedLane[] lanes, Partition[] partitions, int seconds) {
    long end = ticker.now + seconds * SECOND;
    long half = ticker.now + seconds * SECOND / 2;
    long keys = 0;
    long lastHalf = 0;
    long slowDowns = 0;
    for (PacedLane lane : lanes) {
      slowDowns -= lane.slowDowns();
    }
    while (ticker.now < end) {
      for (int i = 0; i < lanes.length; i++) {
        PacedLane lane = lanes[i];
        int batch = lane.throttle().maxBatch();
        DeleteThrottle.Permit permit = lane.throttle().tryReserve(batch);
        if (permit == null) {
          continue;
        }
        boolean accepted = partitions[i].take(ticker.now, batch);
        permit.closeAfterSending(batch);
        lane.answered(accepted ? batch : 0, accepted ? 0 : 1);
        if (accepted) {
          keys += batch;
          if (ticker.now >= half) {
            lastHalf += batch;
          }
        }
      }
      ticker.now += REQUEST_NANOS / lanes.length;
    }
    for (PacedLane lane : lanes) {
      slowDowns += lane.slowDowns();
    }
    return new Run(keys, slowDowns, lastHalf, seconds);
  }

  @Test
  void aLaneStartsAtItsStartRateAndClimbsOnlyWhileItUsesItsRate() {
    PacedLane lane = lane(PacedLane.Pacing.s3(3500, 0), 0);
    assertThat(lane.rate()).isEqualTo(500);
    ticker.now += 5 * SECOND;
    lane.answered(10, 0);
    assertThat(lane.rate()).as("a lane that sent a trickle learns nothing of the store's rate").isEqualTo(500);

    Run run = deleteFor(lane, new Partition(1_000_000, 0), 4);
    assertThat(run.slowDowns()).isZero();
    assertThat(lane.rate()).as("500 doubled a second reaches the documented rate in 3 s").isEqualTo(3500);
    assertThat(lane.groupLimit()).isEqualTo(3500);
  }

  @Test
  void aSlowDownEndsTheSlowStartAndTeachesNothingThenTheLaneClimbsByItsStep() {
    PacedLane lane = lane(PacedLane.Pacing.s3(3500, 0.1), 0);
    Partition partition = new Partition(1500, 0);
    deleteFor(lane, partition, 3);
    assertThat(lane.slowDowns()).as("500, 1,000, then 2,000: past the partition's 1,500").isPositive();
    assertThat(lane.rate()).as("half the rate that met it").isEqualTo(1000);
    assertThat(lane.groupLimit()).as("nothing learnt from a rate that doubled past the partition's")
        .isCloseTo(3150, org.assertj.core.data.Offset.offset(1e-6));
    long before = lane.slowDowns();
    deleteFor(lane, partition, 4);
    assertThat(lane.slowDowns()).isEqualTo(before);
    assertThat(lane.rate()).as("100 a second from there").isEqualTo(1400);
  }

  @Test
  void withTheMarginALaneStaysThatFarBelowTheDocumentedRateBeforeAnySlowDown() {
    PacedLane lane = lane(PacedLane.Pacing.s3(3500, 0.1), 0);
    Run run = deleteFor(lane, new Partition(1_000_000, 0), 4);
    assertThat(run.slowDowns()).isZero();
    assertThat(lane.groupLimit()).isCloseTo(3150, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(lane.rate()).isCloseTo(3150, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void aSlowDownHalvesTheRateOncePerSecondAndTheMarginCapsTheLaneBelowWhereItCame() {
    PacedLane lane = lane(new PacedLane.Pacing(2000, 100, 3500, 0.2, 60), 0);
    lane.answered(0, 3);
    assertThat(lane.rate()).as("the slow start's SlowDown halves the rate").isEqualTo(1000);
    assertThat(lane.groupLimit()).as("and teaches nothing").isEqualTo(2800);
    for (int i = 0; i < 10; i++) {
      ticker.now += SECOND;
      lane.answered(2000, 0);
    }
    assertThat(lane.rate()).as("100 a second").isEqualTo(2000);
    lane.answered(0, 3);
    assertThat(lane.rate()).isEqualTo(1000);
    assertThat(lane.groupLimit()).as("20 %% below the 2,000 keys/s that met the SlowDown").isEqualTo(1600);
    lane.answered(0, 1);
    assertThat(lane.rate()).as("answers to requests of the same second came from the same rate").isEqualTo(1000);
    ticker.now += SECOND;
    lane.answered(0, 1);
    assertThat(lane.rate()).isEqualTo(500);
    assertThat(lane.groupLimit()).as("a SlowDown far below the limit comes from the load around the lane")
        .isEqualTo(1600);
    ticker.now += SECOND;
    lane.answered(2000, 0);
    assertThat(lane.rate()).as("a lane that learnt its limit climbs half the way back to it a second").isEqualTo(1050);
    for (int i = 0; i < 9; i++) {
      ticker.now += SECOND;
      lane.answered(2000, 0);
    }
    assertThat(lane.rate()).isEqualTo(1600);
    lane.answered(0, 1);
    assertThat(lane.groupLimit()).as("a later SlowDown near the limit lowers it by a tenth at most").isEqualTo(1440);
    assertThat(lane.slowDowns()).isEqualTo(9);
    for (int i = 0; i < 20; i++) {
      ticker.now += SECOND;
      lane.answered(0, 1);
    }
    assertThat(lane.rate()).as("never below a key a second").isEqualTo(1);
  }

  @Test
  void aLimitLoweredBySlowDownsNearItClimbsBackAfterAProbesWaitToOneItHeldAndNoHigher() {
    PacedLane lane = lane(new PacedLane.Pacing(2000, 100, 3500, 0.2, 10), 0);
    lane.answered(0, 3);
    acceptFor(lane, 10, 2000);
    lane.answered(0, 1);
    assertThat(lane.groupLimit()).as("learnt: 20 %% below 2,000").isEqualTo(1600);
    acceptFor(lane, 10, 2000);
    lane.answered(0, 1);
    assertThat(lane.groupLimit()).as("a SlowDown near it lowers it by a tenth").isEqualTo(1440);
    acceptFor(lane, 200, 2000);
    assertThat(lane.groupLimit()).as("1,600 was never held for a probe's wait: no climb back to it").isEqualTo(1440);

    lane.answered(0, 1);
    assertThat(lane.groupLimit()).as("held for a probe's wait, then lowered by a SlowDown near it").isEqualTo(1296);
    acceptFor(lane, 85, 2000);
    assertThat(lane.groupLimit()).as("80 s (the wait, doubled thrice) at it: half the way back, at least a step")
        .isEqualTo(1396);
    acceptFor(lane, 85, 2000);
    assertThat(lane.groupLimit()).isEqualTo(1440);
    acceptFor(lane, 400, 2000);
    assertThat(lane.groupLimit()).as("never above the limit it held: the exporter keeps its share").isEqualTo(1440);
    assertThat(lane.slowDowns()).isEqualTo(6);
  }

  /** {@code seconds} in which the store took {@code keys} keys a second from the lane, without SlowDown. */
  private void acceptFor(PacedLane lane, int seconds, int keys) {
    for (int i = 0; i < seconds; i++) {
      ticker.now += SECOND;
      lane.answered(keys, 0);
    }
  }

  @Test
  void aSlowDownOnceTheSlowStartReachedTheLimitTeachesThePartitionsRate() {
    PacedLane lane = lane(PacedLane.Pacing.s3(3500, 0.1), 0);
    deleteFor(lane, new Partition(1_000_000, 0), 4);
    assertThat(lane.rate()).isCloseTo(3150, org.assertj.core.data.Offset.offset(1e-6));
    lane.answered(0, 1);
    assertThat(lane.groupLimit()).as("a tenth below the 3,150 that met it").isCloseTo(2835,
        org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void withoutTheMarginALaneClimbsBackToTheRateThatMetSlowDown() {
    PacedLane lane = lane(new PacedLane.Pacing(2000, 100, 3500, 0, 60), 0);
    lane.answered(0, 1);
    ticker.now += SECOND;
    lane.answered(0, 1);
    assertThat(lane.rate()).isEqualTo(500);
    assertThat(lane.groupLimit()).isEqualTo(3500);
  }

  @Test
  void aLaneAtItsLimitForAMinuteWithoutSlowDownTriesATenthMore() {
    PacedLane lane = lane(new PacedLane.Pacing(3500, 100, 3500, 0, 60), 0);
    Run run = deleteFor(lane, new Partition(1_000_000, 0), 59);
    assertThat(run.slowDowns()).isZero();
    assertThat(lane.groupLimit()).isEqualTo(3500);
    deleteFor(lane, new Partition(1_000_000, 0), 3);
    assertThat(lane.groupLimit()).isCloseTo(3850, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void onAPartitionOfOneCapacityALaneRunsAtLeastFourFifthsOfItWithAtMostOneSlowDownPerThousandKeys() {
    PacedLane lane = lane(PacedLane.Pacing.s3(3500, 0.2), 0);
    Partition partition = new Partition(2000, SECOND / 50); // the exporter: 50 PUTs a second
    Run learning = deleteFor(lane, partition, 30);
    long throttledLearning = partition.exporterThrottled;
    assertThat(throttledLearning).as("the exporter's PUTs in the seconds the partition shed load").isLessThan(100);
    Run run = deleteFor(lane, partition, 300);

    assertThat(learning.slowDowns() + run.slowDowns()).as("SlowDowns").isLessThan(20);
    assertThat(run.lastHalfRate()).as("keys/s in the last 150 s of a partition of 2,000 (50 of them the exporter's)")
        .isGreaterThanOrEqualTo(0.8 * 1950);
    assertThat(run.slowDowns() * 1000.0 / run.keys()).as("SlowDowns per 1,000 keys").isLessThanOrEqualTo(1);
    assertThat(partition.exporterPuts).isGreaterThan(16_000);
    assertThat(partition.exporterThrottled - throttledLearning)
        .as("the exporter's PUTs throttled once the lane learnt its rate, with the margin on").isZero();
  }

  @Test
  void aGroupThatMeetsSlowDownStillProbesMoreRarelyEachTime() {
    PacedLane lane = lane(new PacedLane.Pacing(500, 100, 3500, 0.1, 5), 0);
    Partition partition = new Partition(2000, 0);
    deleteFor(lane, partition, 600);
    long before = lane.slowDowns();
    deleteFor(lane, partition, 600);
    assertThat(lane.slowDowns() - before)
        .as("probes (a tenth more) at most every 5 s x %d once they keep meeting SlowDown", PacedLane.MAX_PROBE_WAITS)
        .isLessThanOrEqualTo(600 / (5 * PacedLane.MAX_PROBE_WAITS) + 2);
    assertThat(lane.groupLimit()).as("where the probes stop: the margin below the partition's 2,000")
        .isBetween(0.8 * 2000, 0.9 * 2000 * 1.1);
  }

  @Test
  void lanesThatShareAPartitionShareItsRateAndProbeItEverMoreRarely() {
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 16);
    Partition[] partitions = partitionsOf(16, 16);
    Partition shared = partitions[0];
    Run learning = deleteFor(lanes, partitions, 600);
    long putsLearning = shared.exporterPuts;
    long throttledLearning = shared.exporterThrottled;
    Run run = deleteFor(lanes, partitions, 600);

    assertThat(run.lastHalfRate()).as("keys/s of 16 lanes in a partition of 3,500 (100 the exporter's)")
        .isGreaterThanOrEqualTo(0.8 * 3400);
    assertThat((learning.slowDowns() + run.slowDowns()) * 1000.0 / (learning.keys() + run.keys()))
        .as("SlowDowns per 1,000 keys").isLessThanOrEqualTo(1);
    assertThat(pacer.groups()).as("a split into one partition becomes one group again").isLessThanOrEqualTo(2);
    assertThat(shared.exporterThrottled - throttledLearning)
        .as("the exporter's PUTs throttled in the second 10 minutes: a probe every %d s at most",
            5 * PacedLane.MAX_PROBE_WAITS)
        .isLessThanOrEqualTo((shared.exporterPuts - putsLearning) / 200);
  }

  @Test
  void withTheMarginAWrongSplitWaitsTheLongestWaitBeforeTheNextProbe() {
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 2);
    Partition shared = new Partition(3500, SECOND / 100);
    Partition[] partitions = {shared, shared};
    Run learning = deleteFor(lanes, partitions, 30);
    assertThat(learning.slowDowns()).as("the first split met the partition's rate").isPositive();
    assertThat(pacer.groups()).isEqualTo(1);
    long throttled = shared.exporterThrottled;

    Run run = deleteFor(lanes, partitions, 5 * PacedLane.MAX_PROBE_WAITS - 30);
    assertThat(run.slowDowns()).as("no probe within 5 s x %d of the wrong split", PacedLane.MAX_PROBE_WAITS).isZero();
    assertThat(shared.exporterThrottled).isEqualTo(throttled);
    assertThat(run.lastHalfRate()).as("keys/s of a partition of 3,500 (100 the exporter's)")
        .isGreaterThanOrEqualTo(0.85 * 3400);
  }

  @Test
  void lanesInPartitionsOfTheirOwnSplitUntilEachReachesItsOwn() {
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 4);
    Partition[] partitions = partitionsOf(4, 1);
    Run run = deleteFor(lanes, partitions, 400);

    assertThat(pacer.groups()).as("each reached a partition's rate: a group of its own").isEqualTo(4);
    assertThat(run.lastHalfRate()).as("keys/s of 4 lanes in 4 partitions of 3,500 (100 the exporter's)")
        .isGreaterThanOrEqualTo(0.8 * 4 * 3400);
    assertThat(run.slowDowns() * 1000.0 / run.keys()).as("SlowDowns per 1,000 keys").isLessThanOrEqualTo(1);
  }

  @Test
  void aLaneWhoseSlowDownsDoNotComeWithItsGroupsLeavesIt() {
    // Fifteen lanes in use over four partitions of four lanes (the last has three): the first split, at the eighth
    // lane, is no partition's edge, and the groups split from it straddle partitions while none has met SlowDown.
    // A lane at the edge of a group that keeps meeting SlowDown when the rest of its group does not is in another
    // partition: it leaves the group (here on its own: the group beside it, within its limit, meets none).
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 15);
    Partition[] partitions = partitionsOf(15, 4);
    deleteFor(lanes, partitions, 300);
    Run run = deleteFor(lanes, partitions, 300);

    for (int edge : new int[] {4, 8, 12}) {
      assertThat(lanes[edge - 1].sharesWith(lanes[edge])).as("lanes %d and %d: two partitions", edge - 1, edge)
          .isFalse();
    }
    assertThat(run.lastHalfRate()).as("keys/s of 15 lanes in 4 partitions of 3,500 (100 the exporter's)")
        .isGreaterThanOrEqualTo(0.8 * 4 * 3400);
    assertThat(run.slowDowns() * 1000.0 / run.keys()).as("SlowDowns per 1,000 keys").isLessThanOrEqualTo(1);
  }

  @Test
  void aLaneSeenAfterTheFirstSplitStillLetsEveryPartitionRunNearItsRate() {
    // Sixteen lanes over four partitions of four, the last lane seen only after the first split (its task began
    // later): that split, at the middle of the fifteen, is one lane off every partition's edge, and the lane joins
    // the group beside it.
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane[] first = lanes(pacer, 15);
    Partition[] partitions = partitionsOf(16, 4);
    deleteFor(first, java.util.Arrays.copyOfRange(partitions, 0, 15), 45);
    assertThat(pacer.groups()).as("the first split came before the last lane").isGreaterThan(1);
    PacedLane[] lanes = java.util.Arrays.copyOf(first, 16);
    lanes[15] = pacer.lane("projects/p15/");
    deleteFor(lanes, partitions, 300);
    Run run = deleteFor(lanes, partitions, 600);

    assertThat(run.lastHalfRate()).as("keys/s of 16 lanes in 4 partitions of 3,500 (100 the exporter's)")
        .isGreaterThanOrEqualTo(0.8 * 4 * 3400);
    assertThat(run.slowDowns() * 1000.0 / run.keys()).as("SlowDowns per 1,000 keys").isLessThanOrEqualTo(1);
  }

  @Test
  void aGroupThatMetSlowDownInOnePartitionWhileAnotherWasIdleStillSplitsToReachBoth() {
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 8);
    Partition first = new Partition(3500, SECOND / 100);
    Partition second = new Partition(3500, SECOND / 100);
    Partition[] partitions = {first, first, first, first, second, second, second, second};
    // Only the lanes of the second partition have work at first: the whole group's rate goes there.
    Run alone = deleteFor(java.util.Arrays.copyOfRange(lanes, 4, 8), java.util.Arrays.copyOfRange(partitions, 4, 8),
        60);
    assertThat(alone.slowDowns()).as("the group met the second partition's rate").isPositive();
    Run run = deleteFor(lanes, partitions, 400);

    assertThat(run.lastHalfRate()).as("keys/s of 8 lanes in 2 partitions of 3,500 (100 the exporter's)")
        .isGreaterThanOrEqualTo(0.8 * 2 * 3400);
    assertThat(run.slowDowns() * 1000.0 / run.keys()).as("SlowDowns per 1,000 keys").isLessThanOrEqualTo(1);
  }

  @Test
  void theHalvesOfASplitTakeTheLastSecondsKeysWithThemAndNeverSendMoreThanTheWholeDid() {
    // At the limit from the start, climbing a key a second: what the halves send more is their climb, 2 keys a second.
    PacedLane.Pacer pacer = new PacedLane.Pacer(new PacedLane.Pacing(3150, 1, 3500, 0.1, 5),
        new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 2);
    Partition unlimited = new Partition(1_000_000, 0);
    long splitAt = -1;
    long end = Long.MAX_VALUE;
    long tick = 0;
    while (ticker.now < end) {
      // Requests of 32 keys, one every 10 ms, the lanes in turn: the whole's second is spread evenly over it. Once
      // split, each half sends all its throttle allows at once (its tasks have windows waiting).
      for (int i = 0; i < lanes.length; i++) {
        if (splitAt < 0 && tick % lanes.length != i) {
          continue;
        }
        DeleteThrottle.Permit permit;
        while ((permit = lanes[i].throttle().tryReserve(32)) != null) {
          unlimited.take(ticker.now, 32);
          permit.close();
          lanes[i].answered(32, 0);
          if (splitAt < 0) {
            break;
          }
        }
      }
      tick++;
      if (splitAt < 0 && pacer.groups() == 2) {
        splitAt = ticker.now;
        end = splitAt + 2 * SECOND;
        assertThat(unlimited.mostInASecond).as("the whole at its limit").isGreaterThan(3100);
      }
      ticker.now += SECOND / 100;
    }

    // A half that began with an empty second would send its 1,575 keys at once, on top of the whole's last second.
    assertThat(unlimited.mostInASecond).as("keys in any second, across the split").isLessThanOrEqualTo(3150 + 2);
  }

  @Test
  void halvesInOnePartitionThatUseLittleOfTheirRatesAreNeverTakenApart() {
    // Lanes held back by their verifications send 60 % of their rates: the halves' rates together pass the partition's
    // long before what they send does. Only what the store took in a second can show two partitions; taken apart, the
    // halves would each start afresh, doubling their rates.
    PacedLane.Pacing pacing = PacedLane.Pacing.s3(1000, 0.1);
    PacedLane.Pacer pacer = new PacedLane.Pacer(pacing, new DeleteThrottle(0, ticker));
    PacedLane[] lanes = lanes(pacer, 2);
    Partition shared = new Partition(1000, 0);
    long[] sentThisSecond = new long[2];
    double[] rateAtSecond = new double[2];
    double mostClimb = 0;
    long second = -1;
    boolean split = false;
    long end = ticker.now + 120 * SECOND;
    while (ticker.now < end && lanes[0].slowDowns() + lanes[1].slowDowns() == 0) {
      if (ticker.now / SECOND != second) {
        second = ticker.now / SECOND;
        java.util.Arrays.fill(sentThisSecond, 0);
        for (int i = 0; i < lanes.length; i++) {
          if (split) {
            mostClimb = Math.max(mostClimb, lanes[i].rate() - rateAtSecond[i]);
          }
          rateAtSecond[i] = lanes[i].rate();
        }
        split |= pacer.groups() == 2;
      }
      for (int i = 0; i < lanes.length; i++) {
        int batch = lanes[i].throttle().maxBatch();
        if (sentThisSecond[i] + batch > 0.6 * lanes[i].rate()) {
          continue;
        }
        DeleteThrottle.Permit permit = lanes[i].throttle().tryReserve(batch);
        if (permit == null) {
          continue;
        }
        boolean accepted = shared.take(ticker.now, batch);
        permit.close();
        lanes[i].answered(accepted ? batch : 0, accepted ? 0 : 1);
        sentThisSecond[i] += batch;
      }
      ticker.now += REQUEST_NANOS;
    }
    assertThat(split).as("the group at its limit split").isTrue();
    assertThat(lanes[0].slowDowns() + lanes[1].slowDowns()).as("the halves met the partition's rate").isPositive();
    assertThat(mostClimb).as("the most a half's rate climbed in a second, until then: its step, never a doubling")
        .isLessThanOrEqualTo(pacing.stepKeysPerSecond() + 1e-6);
  }

  @Test
  void aLaneSeenLaterJoinsItsNeighboursGroup() {
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.1), new DeleteThrottle(0, ticker));
    PacedLane one = pacer.lane("projects/p1/");
    PacedLane three = pacer.lane("projects/p3/");
    PacedLane two = pacer.lane("projects/p2/");
    assertThat(two.sharesWith(one)).isTrue();
    assertThat(three.sharesWith(one)).isTrue();

    one.answered(0, 1);
    ticker.now += SECOND;
    one.answered(0, 1);
    double learnt = three.rate();
    PacedLane four = pacer.lane("projects/p4/");
    assertThat(four.sharesWith(three)).as("a group that learnt its partition's rate takes no more lanes").isFalse();
    assertThat(four.rate()).as("a share of the neighbour's rate, not its own start on top").isEqualTo(learnt / 2);
    assertThat(three.rate() + four.rate()).isEqualTo(learnt);
    four.answered(0, 1);
    assertThat(four.sharesWith(three)).as("they met SlowDown together: one partition").isTrue();
    assertThat(four.rate()).as("half the limit of the group before, climbing back").isEqualTo(four.groupLimit() / 2);
  }

  @Test
  void withoutTheMarginTheLaneKeepsMeetingSlowDownAndTheExporterIsThrottled() {
    PacedLane lane = lane(PacedLane.Pacing.s3(3500, 0), 0);
    Partition partition = new Partition(2000, SECOND / 50);
    Run run = deleteFor(lane, partition, 300);

    assertThat(run.slowDowns()).as("the sawtooth: each climb back meets the partition's rate").isGreaterThan(5);
    assertThat(partition.exporterThrottled).isPositive();
  }

  @Test
  void theRunsCeilingHoldsOverEveryLane() {
    DeleteThrottle run = new DeleteThrottle(1000, ticker);
    PacedLane.Pacer pacer = new PacedLane.Pacer(PacedLane.Pacing.s3(3500, 0.2), run);
    PacedLane one = pacer.lane("projects/p1/");
    PacedLane two = pacer.lane("projects/p2/");
    long start = ticker.now;
    long keys = 0;
    while (ticker.now < start + 20 * SECOND) {
      for (PacedLane lane : new PacedLane[] {one, two}) {
        int batch = lane.throttle().maxBatch();
        DeleteThrottle.Permit permit = lane.throttle().reserve(batch);
        assertThat(run.countedKeys(ticker.now)).isLessThanOrEqualTo(1000);
        ticker.now += REQUEST_NANOS;
        permit.close();
        lane.answered(batch, 0);
        keys += batch;
      }
    }
    assertThat(keys / 20.0).as("keys/s of both lanes under a run ceiling of 1,000").isBetween(850.0, 1050.0);
  }

  @Test
  void aRequestSizedBeforeTheRateFellGoesAloneInItsSecond() {
    PacedLane lane = lane(new PacedLane.Pacing(3500, 100, 3500, 0.2, 60), 0);
    DeleteThrottle.Permit sized = lane.throttle().reserve(100);
    sized.close();
    for (int i = 0; i < 12; i++) {
      ticker.now += SECOND;
      lane.answered(0, 1);
    }
    assertThat(lane.rate()).isLessThan(100);
    DeleteThrottle.Permit alone = lane.throttle().reserve(100);
    assertThat(alone.keys()).isEqualTo(100);
    alone.close();
  }

  @Test
  void lanesOutOfUseAreLetGoSoMillionsOfFoldersHoldAFewAtATime() {
    for (PacedLane.Pacing pacing : new PacedLane.Pacing[] {PacedLane.Pacing.s3(3500, 0.1), null}) {
      PacedLane.Pacer pacer = new PacedLane.Pacer(pacing, new DeleteThrottle(0, ticker));
      PacedLane late = pacer.lane("projects/p0000000/");
      for (int i = 1; i <= 100_000; i++) {
        PacedLane lane = pacer.lane(String.format("projects/p%07d/", i));
        lane.answered(10, i % 1000 == 0 ? 1 : 0);
        ticker.now += SECOND / 100;
      }
      assertThat(pacer.size()).as("lanes held after 100,000 folders, %s", pacing == null ? "unpaced" : "paced")
          .isLessThan(10_000);
      // A window that held its lane through a long verification is answered after the lane was let go.
      late.answered(0, 2);
      long counted = 0;
      for (PacedLane lane : pacer.lanes()) {
        counted += lane.takeSlowDowns();
      }
      assertThat(counted).as("every SlowDown not yet taken, the late lane's included").isEqualTo(100 + 2);
    }
  }

  @Test
  void aLaneIsItsFoldersBelowThePrefix() {
    assertThat(PacedLane.of("cogram/projects/p1/emails/e1/state.json", "cogram/", 2)).isEqualTo("projects/p1/");
    assertThat(PacedLane.of("cogram/projects/p1/emails/e1/state.json", "cogram/", 1)).isEqualTo("projects/");
    assertThat(PacedLane.of("cogram/organization/state.json", "cogram/", 2)).isEqualTo("organization/");
    assertThat(PacedLane.of("cogram/state.json", "cogram/", 2)).isEmpty();
    assertThatThrownBy(() -> PacedLane.of("cogram/a/b", "cogram/", 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
