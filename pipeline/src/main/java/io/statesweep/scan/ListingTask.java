package io.statesweep.scan;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.ListingDepth;
import java.io.Serializable;

/**
 * One independent piece of the bucket listing: the keys under {@code prefix}, after
 * {@code startAfter} when it is set, whose next character after the prefix is of class
 * {@code nextChars} and that are not under {@code excludedPrefix} (another task's, when set), listed
 * {@code depth} deep. Tasks that {@link BudgetedListing} splits cover
 * together exactly the keys of the task they came from.
 */
public record ListingTask(String prefix, String startAfter, NextChars nextChars, String excludedPrefix,
    ListingDepth depth) implements Serializable {

  /** Which keys of the prefix a task covers, by the character that follows the prefix. */
  public enum NextChars {
    /** Every key. */
    ALL,
    /** Keys whose next character is below a space (a control character), and the prefix itself. */
    LOW,
    /** Keys whose next character is above '~': anything beyond printable ASCII. */
    HIGH
  }

  public ListingTask {
    requireNonNull(prefix, "prefix is null");
    requireNonNull(nextChars, "nextChars is null");
    requireNonNull(depth, "depth is null");
    if (startAfter != null && !startAfter.startsWith(prefix)) {
      throw new IllegalArgumentException("startAfter " + startAfter + " is not under the prefix " + prefix);
    }
    if (excludedPrefix != null && !excludedPrefix.startsWith(prefix)) {
      throw new IllegalArgumentException("excludedPrefix " + excludedPrefix + " is not under the prefix " + prefix);
    }
  }

  /** Every key under {@code prefix}. */
  public ListingTask(String prefix, ListingDepth depth) {
    this(prefix, null, NextChars.ALL, null, depth);
  }

  /** The keys under {@code prefix} after {@code startAfter} whose next character is of class {@code nextChars}. */
  public ListingTask(String prefix, String startAfter, NextChars nextChars, ListingDepth depth) {
    this(prefix, startAfter, nextChars, null, depth);
  }

  /** Whether this task covers {@code key}, a key under its prefix listed after its start. */
  boolean covers(String key) {
    if (excludedPrefix != null && key.startsWith(excludedPrefix)) {
      return false;
    }
    if (nextChars == NextChars.ALL) {
      return true;
    }
    int next = key.length() > prefix.length() ? key.charAt(prefix.length()) : -1;
    return nextChars == NextChars.LOW ? next < ' ' : next > '~';
  }
}
