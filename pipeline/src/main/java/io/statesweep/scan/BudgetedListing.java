package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.StoredObject;
import io.statesweep.store.ListingContinuation;
import io.statesweep.store.ListingPage;
import io.statesweep.store.ListingDepth;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Lists a task's keys, at most {@code pageBudget} pages of them, and splits what is left into tasks
 * that together cover exactly the rest: so no task lists more than a bounded number of pages, and a
 * prefix that holds half the archive spreads over many tasks instead of one.
 *
 * <p>The rest, after the last key K listed under prefix P, splits where the last page's keys diverge:
 * at C, the longest prefix that the page's first key and K share (numbered ids share long runs, such
 * as {@code documents/d000012}). Under C, by the character that follows it: the keys under C+c
 * (c = K's next character) after K; every prefix C+c for the printable characters after c; one task
 * for the keys whose next character is beyond '~' (and keys whose next character is below a space
 * keep a task of their own). The keys under P beyond C's range are one more task. Prefix listings are
 * exact, and the few tasks that need a filter (beyond '~', below a space, beyond C) skip what another
 * task lists, so no key is listed twice or missed, whatever characters keys hold. It lists RECURSIVE tasks; a DIRECT task (the objects of
 * one folder level) is listed whole by the caller.
 *
 * <p>Within a task, pages follow continuation tokens ({@link ListingContinuation}): a truncated page
 * with no keys, or with fewer than asked, goes on; a truncated page without a token fails the task.
 * A task whose budget is spent before any key came lists on until one does (or its keys end).
 */
public final class BudgetedListing {
  private static final char FIRST = ' ';
  private static final char LAST = '~';

  private final PageSource source;
  private final int pageBudget;

  public BudgetedListing(PageSource source, int pageBudget) {
    this.source = requireNonNull(source, "source is null");
    if (pageBudget < 1) {
      throw new IllegalArgumentException("pageBudget must be at least 1: " + pageBudget);
    }
    this.pageBudget = pageBudget;
  }

  /** What listing one task did: its pages, and the tasks that cover what it left. */
  public record Outcome(int pages, List<ListingTask> rest) {
    public Outcome {
      rest = List.copyOf(rest);
    }
  }

  public Outcome list(ListingTask task, Consumer<StoredObject> consumer) {
    requireNonNull(task, "task is null");
    if (task.depth() != ListingDepth.RECURSIVE) {
      throw new IllegalArgumentException("only RECURSIVE tasks are listed with a budget: " + task);
    }
    String after = task.startAfter();
    if (task.nextChars() == ListingTask.NextChars.HIGH && (after == null || after.compareTo(task.prefix() + LAST) < 0)) {
      after = task.prefix() + LAST;
    }
    // The first page starts after a key; the others go on with the token of the page before (an empty
    // truncated page too: over a run of delete markers S3 answers pages without keys).
    ListingContinuation continuation = new ListingContinuation(task.prefix() + (after == null ? "" : " after " + after));
    String token = null;
    String last = null; // the last key the store answered for this task: where a split starts
    String first = null; // the first key of the last page that held keys
    int pages = 0;
    while (true) {
      ListingPage page = source.page(task.prefix(), after, token);
      pages++;
      if (!page.objects().isEmpty()) {
        first = page.objects().get(0).key();
      }
      for (StoredObject object : page.objects()) {
        if (task.nextChars() == ListingTask.NextChars.LOW && !task.covers(object.key())) {
          return new Outcome(pages, List.of());
        }
        if (task.covers(object.key())) {
          consumer.accept(object);
        }
        last = object.key();
      }
      token = continuation.next(page.truncated(), page.nextToken());
      if (token == null) {
        return new Outcome(pages, List.of());
      }
      // A split starts after a key: with none seen yet, the task lists on past its budget until one comes.
      if (pages >= pageBudget && last != null) {
        return new Outcome(pages, split(task, first, last));
      }
    }
  }

  /** Tasks that cover exactly the keys of {@code task} after {@code last}; {@code first} began the last page. */
  static List<ListingTask> split(ListingTask task, String first, String last) {
    String prefix = task.prefix();
    if (task.nextChars() != ListingTask.NextChars.ALL) {
      // Keys below a space or beyond '~' are rare: such a task goes on as it was.
      return List.of(new ListingTask(prefix, last, task.nextChars(), task.depth()));
    }
    if (task.excludedPrefix() != null && last.startsWith(task.excludedPrefix())) {
      return List.of(new ListingTask(prefix, last, ListingTask.NextChars.ALL, task.excludedPrefix(), task.depth()));
    }
    // Past a key that is not under the excluded prefix, no key is under it: the exclusion is done with.
    int next = last.length() > prefix.length() ? last.charAt(prefix.length()) : -1;
    String common = commonPrefix(first == null ? last : first, last);
    if (common.length() >= last.length()) {
      common = last.substring(0, last.length() - 1);
    }
    if (!common.isEmpty() && Character.isHighSurrogate(common.charAt(common.length() - 1))) {
      // Never cut a surrogate pair in two: half a character has no UTF-8 bytes to compare.
      common = common.substring(0, common.length() - 1);
    }
    if (next < FIRST || next > LAST || common.length() <= prefix.length()) {
      return splitAt(task, prefix, last);
    }
    List<ListingTask> rest = new ArrayList<>(splitAt(task, common, last));
    // The keys after every key under the common prefix: split at its last few characters too (so
    // d000019999 hands on d0002..d0009, d001..d009 and d01..d09 as tasks of their own), and one task
    // for what lies beyond those.
    int shallowest = common.length();
    for (int length = common.length() - 1; length >= Math.max(prefix.length(), common.length() - SPLIT_LEVELS);
        length--) {
      char at = common.charAt(length);
      if (at < FIRST || at >= LAST) {
        break;
      }
      String above = common.substring(0, length);
      for (char c = (char) (at + 1); c <= LAST; c++) {
        rest.add(new ListingTask(above + c, null, ListingTask.NextChars.ALL, task.depth()));
      }
      rest.add(new ListingTask(above, null, ListingTask.NextChars.HIGH, task.depth()));
      shallowest = length;
    }
    if (shallowest > prefix.length()) {
      String covered = common.substring(0, shallowest);
      rest.add(new ListingTask(prefix, covered + MAX_CHAR, ListingTask.NextChars.ALL, covered, task.depth()));
    }
    return rest;
  }

  /** How many characters of the common prefix a split also fans out at. */
  private static final int SPLIT_LEVELS = 3;

  private static final char MAX_CHAR = '\uffff';

  /** The keys under {@code at} (a prefix of {@code last}) after {@code last}, split by the character after {@code at}. */
  private static List<ListingTask> splitAt(ListingTask task, String at, String last) {
    List<ListingTask> rest = new ArrayList<>();
    int next = last.length() > at.length() ? last.charAt(at.length()) : -1;
    if (next > LAST) {
      rest.add(new ListingTask(at, last, ListingTask.NextChars.HIGH, task.depth()));
      return rest;
    }
    char from;
    if (next < FIRST) {
      rest.add(new ListingTask(at, last, ListingTask.NextChars.LOW, task.depth()));
      from = FIRST;
    } else {
      rest.add(new ListingTask(at + (char) next, last, ListingTask.NextChars.ALL, task.depth()));
      from = (char) (next + 1);
    }
    for (char c = from; c <= LAST; c++) {
      rest.add(new ListingTask(at + c, null, ListingTask.NextChars.ALL, task.depth()));
    }
    rest.add(new ListingTask(at, null, ListingTask.NextChars.HIGH, task.depth()));
    return rest;
  }

  private static String commonPrefix(String a, String b) {
    int length = Math.min(a.length(), b.length());
    int i = 0;
    while (i < length && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    return a.substring(0, i);
  }
}
