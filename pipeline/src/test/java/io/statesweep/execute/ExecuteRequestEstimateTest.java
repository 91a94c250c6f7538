package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.ExportPrefix;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecuteRequestEstimateTest {

  @Test
  void countsTwoGetsAndOneListingPerRecordAndDeleteObjectsPerWindow() {
    // workers 2: windows of at most 4 records; batch 1000.
    ExecuteRequestEstimate estimate = new ExecuteRequestEstimate(1000, 2, 0);
    for (int i = 0; i < 10; i++) {
      estimate.add(2, true, false, 3); // a folder record: 2 files and its state file, 3 keys in its folder
    }
    // 10 records in windows of 4, 4, 2: each window one request of files and one of state files; its ledger an
    // intent and outcomes (6 objects: 6 PUTs, 3 GETs of outcomes, a listing to read and one to remove, 1 DeleteObjects).
    assertThat(estimate.requests()).isEqualTo(Map.of("GetObject", 23L, "ListObjectsV2", 12L, "DeleteObjects", 7L,
        "PutObject", 6L));
  }

  @Test
  void aWindowClosesAtBatchSizeKeysAndLargeFoldersListAPageAThousandKeys() {
    ExecuteRequestEstimate estimate = new ExecuteRequestEstimate(10, 16, 0);
    estimate.add(25, true, false, 2_500); // 26 keys: a window of its own, 3 requests of files, 1 of the state file
    estimate.add(1, false, true, 0); // a single-file record's removed file: one listing, one more window
    assertThat(estimate.requests()).isEqualTo(Map.of("GetObject", 6L, "ListObjectsV2", 6L, "DeleteObjects", 6L,
        "PutObject", 4L));
  }

  @Test
  void theRecordsOfAWindowSideBySideInOneFolderShareOneListing() {
    // workers 2: windows of at most 4 records. Ten agents (single-file records) in one folder, in key order, and two
    // meetings of 600 keys each in another: each window lists each of its parent folders once, a page per 1,000 of
    // its records' keys.
    ExecuteRequestEstimate estimate = new ExecuteRequestEstimate(1000, 2, 0);
    for (int i = 0; i < 10; i++) {
      estimate.add("cogram/organization/agents/a" + i + ".state.json", 1, true, 0);
    }
    estimate.add("cogram/projects/p1/meetings/m1/state.json", 599, true, 600);
    estimate.add("cogram/projects/p1/meetings/m2/state.json", 599, true, 600);
    Map<String, Long> requests = estimate.requests();
    ExecuteRequestEstimate alone = new ExecuteRequestEstimate(1000, 2, 0);
    for (int i = 0; i < 10; i++) {
      alone.add(1, true, true, 0);
    }
    alone.add(599, true, false, 600);
    alone.add(599, true, false, 600);
    assertThat(alone.requests()).containsEntry("ListObjectsV2", 12L + 2);
    // Windows a0-a3 and a4-a7 list their folder once each; a8, a9, m1 and m2 list the agents once and the
    // meetings' 1,200 keys in two pages. The ledger: one listing to read it, one to remove it.
    assertThat(requests).containsEntry("ListObjectsV2", 1L + 1 + (1 + 2) + 2);
    assertThat(requests.get("GetObject")).isEqualTo(alone.requests().get("GetObject"));
  }

  @Test
  void underACeilingAWindowLargerThanTheThrottlesBatchGoesInSmallerRequests() {
    int maxBatch = DeleteThrottle.maxBatch(4);
    ExecuteRequestEstimate estimate = new ExecuteRequestEstimate(1000, 16, 4);
    estimate.add(maxBatch * 3L, false, false, 10);
    assertThat(estimate.requests()).containsEntry("DeleteObjects", 3L + 1);
  }

  @Test
  void wherePacedAWindowOfRecordsOfSeveralLanesIsOneWindowPerLane() {
    ExecuteRequestEstimate paced = new ExecuteRequestEstimate(1000, 2, 3150, true,
        key -> PacedLane.of(key, "cogram/", 2));
    ExecuteRequestEstimate oneLane = new ExecuteRequestEstimate(1000, 2, 3150, true);
    for (ExecuteRequestEstimate estimate : new ExecuteRequestEstimate[] {paced, oneLane}) {
      // One window of four records (2 x 2 workers): two of project p1, two of p2.
      estimate.add("cogram/projects/p1/emails/e1/state.json", 3, true, 4);
      estimate.add("cogram/projects/p1/emails/e2/state.json", 3, true, 4);
      estimate.add("cogram/projects/p2/emails/e1/state.json", 3, true, 4);
      estimate.add("cogram/projects/p2/emails/e2/state.json", 3, true, 4);
    }
    // Per window: files, then state files, in requests of their own; an intent and its outcomes in the ledger.
    assertThat(oneLane.requests()).containsEntry("DeleteObjects", 2L + 1).containsEntry("PutObject", 2L);
    assertThat(paced.requests()).containsEntry("DeleteObjects", 2 * 2L + 1).containsEntry("PutObject", 2 * 2L);
  }

  @Test
  void anAttemptProbesTheLocksWriteTakesTheLockAndProbesReadsAndDeletesOnce() {
    ExportPrefix prefix = ExportPrefix.of("cogram/");
    // The lock's probe (2 PUT, 1 delete), the lock (1 PUT, its release); the probe of reads (PUT, GET, delete) and
    // with auto of deletes (1 delete); two listings of the
    // ledger's folders.
    assertThat(ExecuteRequestEstimate.perAttempt(ConditionalMode.AUTO, prefix))
        .isEqualTo(Map.of("PutObject", 4L, "GetObject", 1L, "DeleteObjects", 4L, "ListObjectsV2", 2L));
    assertThat(ExecuteRequestEstimate.perAttempt(ConditionalMode.ON, prefix))
        .isEqualTo(Map.of("PutObject", 4L, "GetObject", 1L, "DeleteObjects", 3L, "ListObjectsV2", 2L));
    // At the bucket root only the lock's probe, beside the lock.
    assertThat(ExecuteRequestEstimate.perAttempt(ConditionalMode.AUTO, ExportPrefix.of("")))
        .isEqualTo(Map.of("PutObject", 3L, "DeleteObjects", 2L, "ListObjectsV2", 2L));
  }
}
