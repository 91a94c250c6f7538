package io.statesweep.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.store.ListingDepth;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StoreException;
import io.statesweep.store.StoredObject;
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

  /**
   * A sorted key space answering pages as S3 does: UTF-8 byte order, {@code pageSize} keys a page, a
   * continuation token on every truncated page. It can answer as S3 also may: {@code emptyRun} empty
   * truncated pages before every page of keys, pages of fewer keys than asked; and as a broken store
   * would: truncated pages without a token.
   */
  private static final class FakePages implements PageSource {
    private final TreeSet<String> keys = new TreeSet<>(Comparator.comparing(
        (String key) -> key.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
    private final int pageSize;
    int emptyRun;
    Random shortPages;
    boolean omitTokens;
    int requests;

    FakePages(int pageSize, List<String> keys) {
      this.pageSize = pageSize;
      this.keys.addAll(keys);
    }

    @Override
    public ListingPage page(String prefix, String startAfter, String continuationToken) {
      requests++;
      // A token is "<empty pages answered here>|" + the last key listed ("" before the first).
      String after = startAfter;
      int empties = 0;
      if (continuationToken != null) {
        int bar = continuationToken.indexOf('|');
        empties = Integer.parseInt(continuationToken.substring(0, bar));
        after = bar + 1 == continuationToken.length() ? null : continuationToken.substring(bar + 1);
      }
      if (empties < emptyRun) {
        return new ListingPage(List.of(), true, token(empties + 1, after));
      }
      int size = shortPages == null ? pageSize : 1 + shortPages.nextInt(pageSize);
      List<StoredObject> page = new ArrayList<>();
      for (String key : after == null ? keys : keys.tailSet(after, false)) {
        if (compare(key, prefix) < 0) {
          continue;
        }
        if (!key.startsWith(prefix)) {
          break;
        }
        if (page.size() == size) {
          return new ListingPage(page, true, token(0, page.get(page.size() - 1).key()));
        }
        page.add(new StoredObject(key, "e", Instant.EPOCH, 1));
      }
      return new ListingPage(page, false, null);
    }

    private String token(int empties, String after) {
      return omitTokens ? null : empties + "|" + (after == null ? "" : after);
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
  void everyKeyIsListedExactlyOnceOverEmptyTruncatedPagesAndPagesOfFewerKeys() {
    String[] pieces = {"a", "b", "z", "0", "/", "~", " ", "\u0001", "\u00e9", "\uD83D\uDE00", "aa", "a/"};
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
      FakePages pages = new FakePages(1 + random.nextInt(6), keys);
      pages.emptyRun = random.nextInt(4);
      pages.shortPages = random.nextBoolean() ? new Random(seed) : null;
      int budget = 1 + random.nextInt(3);
      List<Integer> pagesPerTask = new ArrayList<>();

      Map<String, Integer> seen = listAll(pages, "p/", budget, pagesPerTask);

      TreeSet<String> expected = new TreeSet<>(keys);
      expected.removeIf(key -> !key.startsWith("p/"));
      assertThat(seen.keySet()).as("seed %d", seed).isEqualTo(expected);
      assertThat(seen.values()).as("seed %d", seed).allMatch(times -> times == 1);
      // Past its budget a task lists only until its first key: at most the empty pages before it.
      assertThat(pagesPerTask).as("seed %d", seed).allMatch(taskPages -> taskPages <= Math.max(budget, pages.emptyRun + 1));
    }
  }

  @Test
  void aTaskGoesOnPastEmptyTruncatedPagesAndSplitsOnlyAfterAKey() {
    FakePages pages = new FakePages(2, List.of("p/a", "p/b", "p/c", "p/d", "p/e"));
    pages.emptyRun = 3;
    List<String> listed = new ArrayList<>();

    BudgetedListing.Outcome outcome = new BudgetedListing(pages, 2).list(new ListingTask("p/", ListingDepth.RECURSIVE),
        object -> listed.add(object.key()));

    // Three empty pages, then p/a and p/b: the budget of 2 was spent before the first key came.
    assertThat(listed).containsExactly("p/a", "p/b");
    assertThat(outcome.pages()).isEqualTo(4);
    assertThat(outcome.rest().get(0)).isEqualTo(new ListingTask("p/b", "p/b", ListingTask.NextChars.ALL,
        ListingDepth.RECURSIVE));
  }

  @Test
  void aTaskWholeWithinItsBudgetListsEveryKeyOverEmptyAndShortPages() {
    FakePages pages = new FakePages(3, List.of("p/a", "p/b", "p/c", "p/d", "p/e", "p/f", "p/g"));
    pages.emptyRun = 1;
    pages.shortPages = new Random(7);
    List<String> listed = new ArrayList<>();

    BudgetedListing.Outcome outcome = new BudgetedListing(pages, 100).list(new ListingTask("p/", ListingDepth.RECURSIVE),
        object -> listed.add(object.key()));

    assertThat(listed).containsExactly("p/a", "p/b", "p/c", "p/d", "p/e", "p/f", "p/g");
    assertThat(outcome.rest()).isEmpty();
    assertThat(outcome.pages()).isEqualTo(pages.requests);
  }

  @Test
  void aTruncatedPageWithoutAContinuationTokenFailsTheListingNamingThePrefix() {
    FakePages pages = new FakePages(2, List.of("p/a", "p/b", "p/c"));
    pages.omitTokens = true;

    assertThatThrownBy(() -> new BudgetedListing(pages, 5).list(new ListingTask("p/", ListingDepth.RECURSIVE),
        object -> { }))
        .isInstanceOf(StoreException.class)
        .hasMessage("Cannot list p/: page 1 is truncated but has no continuation token, so the keys after it cannot"
            + " be listed");
  }

  @Test
  void aContinuationTokenAnsweredTwiceFailsTheListingInsteadOfLooping() {
    PageSource looping = (prefix, startAfter, token) -> new ListingPage(List.of(), true, "same");

    assertThatThrownBy(() -> new BudgetedListing(looping, 5).list(new ListingTask("p/", "p/k", ListingTask.NextChars.ALL,
        ListingDepth.RECURSIVE), object -> { }))
        .isInstanceOf(StoreException.class)
        .hasMessage("Cannot list p/ after p/k: page 2 answered the continuation token same a second time, so the"
            + " listing would never end");
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
