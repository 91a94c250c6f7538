package io.statesweep.layout;

import java.util.Comparator;

/** Small, exact rules about object keys that several classes share. */
public final class Keys {
  private Keys() {}

  /** Keys compared as S3 orders them: by UTF-8 bytes, which is code point order. */
  public static final Comparator<String> UTF8_ORDER = (a, b) -> {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  };

  /** True for a key whose name is {@code state.json} or ends with {@code .state.json}. */
  public static boolean isStateFileName(String key) {
    String name = name(key);
    return name.equals(StatePlace.STATE_FILE_NAME) || name.endsWith(StatePlace.STATE_FILE_SUFFIX);
  }

  /** The last segment of a key. */
  public static String name(String key) {
    int slash = key.lastIndexOf('/');
    return slash < 0 ? key : key.substring(slash + 1);
  }

  /** The folder of a key, with its trailing slash ("" for a key at the bucket root). */
  public static String folder(String key) {
    int slash = key.lastIndexOf('/');
    return slash < 0 ? "" : key.substring(0, slash + 1);
  }

  /**
   * The index of the first UTF-16 surrogate that is not half of a pair (a high one not followed by a
   * low one, or a low one not preceded by a high one), or -1 when {@code text} is valid Unicode. Such a
   * string has no UTF-8 bytes: an encoder turns it into another one ({@code ?} or U+FFFD).
   */
  public static int firstLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /** A segment that is neither empty nor {@code .} nor {@code ..}. */
  static boolean isPlainSegment(String segment) {
    return !segment.isEmpty() && !segment.equals(".") && !segment.equals("..");
  }

  /**
   * Why a key cannot be a safe object key to delete, or null when it can: empty, empty segments
   * (a leading or doubled slash), {@code .} or {@code ..} segments, a trailing slash.
   */
  public static String shapeProblem(String key) {
    if (key.isEmpty()) {
      return "the key is empty";
    }
    if (key.startsWith("/")) {
      return "the key starts with a slash";
    }
    if (key.endsWith("/")) {
      return "the key ends with a slash (a folder, not an object)";
    }
    for (String segment : key.split("/", -1)) {
      if (segment.isEmpty()) {
        return "the key has an empty segment";
      }
      if (segment.equals(".") || segment.equals("..")) {
        return "the key has a '" + segment + "' segment";
      }
    }
    return null;
  }
}
