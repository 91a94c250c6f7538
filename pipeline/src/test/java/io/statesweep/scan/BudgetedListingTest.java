package io.statesweep.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.plan.StoredObject;
import io.statesweep.s3.ListingDepth;
import io.statesweep.s3.ListingPage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class BudgetedListingTest {

  /** A sorted key space answering pages as S3 does: UTF-8 byte order, {@code pageSize} keys a page. */
  private static final class FakePages implements PageSource {
    private final TreeSet<String> keys = new TreeSet<>(Comparator.comparing(
        (String key) -> key.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
    private final int pageSize;
    int requests;

    FakePages(int pageSize, List<String> keys) {
      this.pageSize = pageSize;
      this.keys.addAll(keys);
    }

    @Override
    public ListingPage page(String prefix, String startAfter) {
      requests++;
      List<StoredObject> page = new ArrayList<>();
      for (String key : startAfter == null ? keys : keys.tailSet(startAfter, false)) {
        if (compare(key, prefix) < 0) {
          continue;
        }
        if (!key.startsWith(prefix)) {
          break;
        }
        if (page.size() == pageSize) {
          return new ListingPage(page, true);
        }
        page.add(new StoredObject(key, "e", Instant.EPOCH, 1));
      }
      return new ListingPage(page, false);
    }

    private static int compare(String a, String b) {
      return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Lists every task and the tasks it leaves until none is left; returns how often each key came. */
  private static Map<String, Integer> listAll(FakePages pages, String prefix, int budget, List<Integer> pagesPerTask) {
    return listAll(pages, prefix, budget, pagesPerTask, new ArrayList<>());
  }

  private static Map<String, Integer> listAll(FakePages pages, String prefix, int budget, List<Integer> pagesPerTask,
      List<Integer> keysPerTask) {
    BudgetedListing listing = new BudgetedListing(pages, budget);
    Map<String, Integer> seen = new HashMap<>();
    Deque<ListingTask> tasks = new ArrayDeque<>(List.of(new ListingTask(prefix, ListingDepth.RECURSIVE)));
    while (!tasks.isEmpty()) {
      int[] keys = {0};
      BudgetedListing.Outcome outcome = listing.list(tasks.pop(), object -> {
        keys[0]++;
        seen.merge(object.key(), 1, Integer::sum);
      });
      pagesPerTask.add(outcome.pages());
      keysPerTask.add(keys[0]);
      tasks.addAll(outcome.rest());
    }
    return seen;
  }

  @Test
  void everyKeyIsListedExactlyOnceWhateverCharactersKeysHold() {
    String[] pieces = {"a", "b", "z", "0", "9", "/", "~", " ", "\u0001", "\u007f", "\u00e9", "\u4e2d", "\uD83D\uDE00",
        "\uE000", "~~", "aa", "a/"};
    for (int seed = 0; seed < 1_000; seed++) {
      Random random = new Random(seed);
      List<String> keys = new ArrayList<>();
      int count = random.nextInt(300);
      for (int i = 0; i < count; i++) {
        StringBuilder key = new StringBuilder("p/");
        int length = random.nextInt(5);
        for (int j = 0; j < length; j++) {
          key.append(pieces[random.nextInt(pieces.length)]);
        }
        keys.add(key.toString());
      }
      keys.add("outside");
      keys.add("p0");
      FakePages pages = new FakePages(1 + random.nextInt(4), keys);
      int budget = 1 + random.nextInt(3);
      List<Integer> pagesPerTask = new ArrayList<>();

      Map<String, Integer> seen = listAll(pages, "p/", budget, pagesPerTask);

      TreeSet<String> expected = new TreeSet<>(keys);
      expected.removeIf(key -> !key.startsWith("p/"));
      assertThat(seen.keySet()).as("seed %d", seed).isEqualTo(expected);
      assertThat(seen.values()).as("seed %d", seed).allMatch(times -> times == 1);
      assertThat(pagesPerTask).as("seed %d", seed).allMatch(taskPages -> taskPages <= budget);
    }
  }

  @Test
  void aPrefixHoldingMostKeysSpreadsOverManyTasks() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      keys.add(String.format("cogram/projects/p0/documents/d%05d/f.bin", i));
    }
    keys.add("cogram/projects/p1/documents/d00000/f.bin");
    List<Integer> pagesPerTask = new ArrayList<>();
    List<Integer> keysPerTask = new ArrayList<>();

    Map<String, Integer> seen = listAll(new FakePages(100, keys), "cogram/projects/p0/", 5, pagesPerTask, keysPerTask);

    assertThat(seen).hasSize(5_000);
    assertThat(pagesPerTask).allMatch(pages -> pages <= 5);
    assertThat(keysPerTask.stream().filter(count -> count > 0).count()).isGreaterThanOrEqualTo(10);
  }

  @Test
  void aTaskWithinItsBudgetLeavesNothing() {
    FakePages pages = new FakePages(10, List.of("p/a", "p/b", "p/c"));

    BudgetedListing.Outcome outcome = new BudgetedListing(pages, 1).list(new ListingTask("p/", ListingDepth.RECURSIVE),
        object -> { });

    assertThat(outcome.pages()).isEqualTo(1);
    assertThat(outcome.rest()).isEmpty();
  }

  @Test
  void splitsTheRestByTheCharacterAfterThePrefix() {
    List<ListingTask> rest = BudgetedListing.split(new ListingTask("p/", ListingDepth.RECURSIVE), "p/a1", "p/m42");

    assertThat(rest.get(0)).isEqualTo(new ListingTask("p/m", "p/m42", ListingTask.NextChars.ALL, ListingDepth.RECURSIVE));
    assertThat(rest.get(1).prefix()).isEqualTo("p/n");
    assertThat(rest.get(rest.size() - 2).prefix()).isEqualTo("p/~");
    assertThat(rest.get(rest.size() - 1)).isEqualTo(new ListingTask("p/", null, ListingTask.NextChars.HIGH,
        ListingDepth.RECURSIVE));
    assertThat(rest).hasSize(1 + ('~' - 'm') + 1);
  }

  @Test
  void splitsWhereThePagesKeysDivergeAndKeepsOneTaskForTheRest() {
    List<ListingTask> rest = BudgetedListing.split(new ListingTask("p/", ListingDepth.RECURSIVE),
        "p/documents/d000100/f.bin", "p/documents/d000349/state.json");

    assertThat(rest.get(0)).isEqualTo(new ListingTask("p/documents/d0003", "p/documents/d000349/state.json",
        ListingTask.NextChars.ALL, ListingDepth.RECURSIVE));
    assertThat(rest).extracting(ListingTask::prefix).contains("p/documents/d0004", "p/documents/d0009");
    // It fans out at the last characters of the common prefix too: d0004.., d001.., d01..
    assertThat(rest).extracting(ListingTask::prefix).contains("p/documents/d0004", "p/documents/d001",
        "p/documents/d01");
    assertThat(rest.get(rest.size() - 1)).isEqualTo(new ListingTask("p/", "p/documents/d\uffff",
        ListingTask.NextChars.ALL, "p/documents/d", ListingDepth.RECURSIVE));
  }

  @Test
  void onlyRecursiveTasksHaveABudget() {
    assertThatThrownBy(() -> new BudgetedListing(new FakePages(1, List.of()), 1)
        .list(new ListingTask("p/", ListingDepth.DIRECT), object -> { }))
        .hasMessageStartingWith("only RECURSIVE tasks are listed with a budget");
  }
}
