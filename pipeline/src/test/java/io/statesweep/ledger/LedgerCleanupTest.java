package io.statesweep.ledger;

import static io.statesweep.ledger.LedgerFixtures.ATTEMPT;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.execute.DeleteThrottle;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The removal of an attempt's ledger objects once executions holds their rows: housekeeping, which waits when the
 * store refuses it and, refused too long, leaves the rest for the next execute instead of failing the attempt.
 */
class LedgerCleanupTest {
  private static final String PARTITION_0 = LedgerKeys.partition(ATTEMPT, 0);
  private static final String PARTITION_1 = LedgerKeys.partition(ATTEMPT, 1);
  private final MemoryLedgerStore bucket = new MemoryLedgerStore();
  private final List<Long> waits = new ArrayList<>();

  /** {@code windows} windows of a task attempt in the partition's folder: an intent and an outcomes object each. */
  private List<String> ledgerObjects(String partition, int windows) {
    List<String> keys = new ArrayList<>();
    for (int window = 0; window < windows; window++) {
      keys.add(LedgerKeys.intent(partition, 7, window, 0, 0));
      keys.add(LedgerKeys.outcomes(partition, 7, window, 0));
    }
    keys.forEach(key -> bucket.write(key, new byte[] {'{', '}'}));
    return keys;
  }

  private LedgerCleanup.Removal remove(double keysPerSecond, Set<String> keep) {
    return new LedgerCleanup(bucket, new DeleteThrottle(keysPerSecond), millis -> waits.add(millis) || true)
        .remove(List.of(PARTITION_0, PARTITION_1), keep);
  }

  @Test
  void everyLedgerObjectButThoseKeptGoesAndNothingElse() {
    List<String> first = ledgerObjects(PARTITION_0, 30);
    List<String> second = ledgerObjects(PARTITION_1, 3);
    String unreadable = first.get(4);
    String notTheLedgers = PARTITION_0 + "notes.txt";
    bucket.write(notTheLedgers, new byte[0]);

    LedgerCleanup.Removal removal = remove(3150, Set.of(unreadable));

    assertThat(removal.incomplete()).isFalse();
    assertThat(removal.removed()).isEqualTo(first.size() + second.size() - 1);
    assertThat(bucket.objects().keySet()).containsExactlyInAnyOrder(unreadable, notTheLedgers);
    assertThat(waits).isEmpty();
  }

  /**
   * A window whose outcomes never came (its task stopped after the intent, or is a live holder's whose lock was taken
   * over) keeps its intents while a delete it sent may still be answered; once older than that, or answered, they go.
   */
  @Test
  void theIntentsOfAWindowWithoutOutcomesStayWhileItsDeletesMayStillBeAnswered() {
    java.time.Instant now = java.time.Instant.parse("2026-12-01T06:30:00Z");
    java.time.Instant heldSince = now.minus(java.time.Duration.ofMinutes(15));
    List<String> answered = ledgerObjects(PARTITION_0, 2);
    bucket.at(now.minus(java.time.Duration.ofHours(1)));
    String old = LedgerKeys.intent(PARTITION_0, 8, 1, 1, 1);
    bucket.write(old, new byte[] {'{', '}'});
    bucket.at(now.minusSeconds(30));
    List<String> young = List.of(LedgerKeys.intent(PARTITION_1, 9, 3, 1, 1), LedgerKeys.intent(PARTITION_1, 9, 3, 2, 1));
    young.forEach(key -> bucket.write(key, new byte[] {'{', '}'}));
    String youngAnswered = LedgerKeys.intent(PARTITION_1, 9, 4, 1, 1);
    bucket.write(youngAnswered, new byte[] {'{', '}'});
    bucket.write(LedgerKeys.outcomes(PARTITION_1, 9, 4, 1), new byte[] {'{', '}'});

    LedgerCleanup.Removal removal = new LedgerCleanup(bucket, new DeleteThrottle(3150), millis -> waits.add(millis)
        || true).remove(List.of(PARTITION_0, PARTITION_1), Set.of(), heldSince);

    assertThat(bucket.objects().keySet()).as("only the young intents of the window without outcomes")
        .containsExactlyElementsOf(young);
    assertThat(removal.held()).isEqualTo(2);
    assertThat(removal.removed()).isEqualTo(answered.size() + 3);
    assertThat(removal.incomplete()).isFalse();

    LedgerCleanup.Removal later = new LedgerCleanup(bucket, new DeleteThrottle(3150), millis -> true)
        .remove(List.of(PARTITION_0, PARTITION_1), Set.of(), now.plus(java.time.Duration.ofHours(1)));
    assertThat(later.removed()).as("once older than the hold").isEqualTo(2);
    assertThat(bucket.objects()).isEmpty();
  }

  @Test
  void requestsAreSizedForTheCeilingOfTheLedgersPartition() {
    ledgerObjects(PARTITION_0, 100);

    remove(100, Set.of());

    // 100 keys a second: two requests of 50 a second, never one of 200.
    assertThat(bucket.deleteRequests()).containsExactly(50, 50, 50, 50);
    assertThat(bucket.objects()).isEmpty();
  }

  @Test
  void aRefusedRequestIsTriedAgainAfterAWaitThatDoubles() {
    ledgerObjects(PARTITION_0, 10);
    ledgerObjects(PARTITION_1, 10);
    bucket.refuseDeleteRequests(3);

    LedgerCleanup.Removal removal = remove(3150, Set.of());

    assertThat(removal.incomplete()).isFalse();
    assertThat(removal.removed()).isEqualTo(40);
    assertThat(bucket.objects()).isEmpty();
    assertThat(waits).containsExactly(1_000L, 2_000L, 4_000L);
  }

  @Test
  void refusedTooLongTheRestStaysForTheNextExecuteAndNothingIsThrown() {
    List<String> first = ledgerObjects(PARTITION_0, 10);
    bucket.refuseDeleteRequests(100);

    LedgerCleanup.Removal removal = remove(3150, Set.of());

    assertThat(removal.incomplete()).isTrue();
    assertThat(removal.stoppedBy()).isEqualTo("Cannot delete " + first.get(0) + " and 19 more keys: SlowDown");
    assertThat(removal.removed()).isZero();
    assertThat(bucket.objects().keySet()).containsExactlyInAnyOrderElementsOf(first);
    assertThat(bucket.deleteRequests()).hasSize(LedgerCleanup.MAX_REFUSALS);
    assertThat(waits).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 16_000L);
  }

  @Test
  void aRequestThatGoesThroughStartsTheCountOfRefusalsAgain() {
    ledgerObjects(PARTITION_0, 100);
    // Requests of 98 keys (3,150 a second in 32): five refusals, one through, five refusals, the rest through.
    bucket.answerDeleteRequests("RRRRR.RRRRR");

    LedgerCleanup.Removal removal = remove(3150, Set.of());

    assertThat(removal.incomplete()).isFalse();
    assertThat(bucket.objects()).isEmpty();
    assertThat(waits).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 1_000L, 2_000L, 4_000L, 8_000L, 16_000L);
  }

  @Test
  void aKeyTheStoreCannotDeleteStaysNamedAndTheOthersGo() {
    List<String> first = ledgerObjects(PARTITION_0, 20);
    bucket.refuseKey(first.get(3));
    bucket.refuseKey(first.get(9));

    LedgerCleanup.Removal removal = remove(3150, Set.of());

    assertThat(removal.incomplete()).isTrue();
    assertThat(removal.stoppedBy()).isNull();
    assertThat(removal.failedKeyCount()).isEqualTo(2);
    assertThat(removal.failedKeys()).containsOnlyKeys(first.get(3), first.get(9))
        .containsValue("InternalError: We encountered an internal error. Please try again.");
    assertThat(bucket.objects().keySet()).containsExactlyInAnyOrder(first.get(3), first.get(9));
  }

  @Test
  void anInterruptedWaitStopsTheRemoval() {
    ledgerObjects(PARTITION_0, 10);
    bucket.refuseDeleteRequests(1);

    LedgerCleanup.Removal removal = new LedgerCleanup(bucket, new DeleteThrottle(3150), millis -> false)
        .remove(List.of(PARTITION_0), Set.of());

    assertThat(removal.stoppedBy()).endsWith("SlowDown");
    assertThat(bucket.objects()).hasSize(20);
  }
}
