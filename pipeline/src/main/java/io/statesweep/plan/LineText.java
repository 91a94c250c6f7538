package io.statesweep.plan;

/**
 * How a key, or any text that may hold one, stands in a printed line (pipeline/README.md, "Keys in printed lines"): a
 * key is data, so it can neither end the line it is printed in nor start another one, whatever it holds. Every printed
 * line of statesweep passes its keys, messages and other outside text through {@link #escape}; the tables keep them as
 * they are.
 *
 * <p>{@link #escape} writes a backslash as {@code \\}, a line feed, carriage return and tab as {@code \n},
 * {@code \r} and {@code \t}, and as {@code \}{@code uXXXX} (four upper-case hex digits of a UTF-16 unit) every
 * other control character (U+0000..U+001F, DEL, the C1 controls U+0080..U+009F, NEL among them), the line and
 * paragraph separators U+2028 and U+2029, every format character (Unicode category Cf: U+FEFF, the zero-width
 * and bidirectional controls that can make a key look like another; one beyond U+FFFF as its two surrogates),
 * the noncharacters U+FFFE and U+FFFF, and a surrogate that is not half of a pair. Everything else, spaces and
 * letters of every script included, stands as it is. {@link #unescape} gives the exact text back.
 */
public final class LineText {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private LineText() {}

  /** {@code text} as it may stand in a printed line; {@code "null"} for null, as string concatenation prints it. */
  public static String escape(String text) {
    if (text == null) {
      return "null";
    }
    int first = firstToEscape(text, true);
    if (first < 0) {
      return text;
    }
    StringBuilder escaped = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        escaped.append("\\\\");
      } else if (c == '\n') {
        escaped.append("\\n");
      } else if (c == '\r') {
        escaped.append("\\r");
      } else if (c == '\t') {
        escaped.append("\\t");
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        int codePoint = Character.toCodePoint(c, text.charAt(i + 1));
        if (isEscaped(codePoint)) {
          unit(escaped, c);
          unit(escaped, text.charAt(i + 1));
        } else {
          escaped.append(c).append(text.charAt(i + 1));
        }
        i++;
      } else if (Character.isSurrogate(c) || isEscaped(c)) {
        unit(escaped, c);
      } else {
        escaped.append(c);
      }
    }
    return escaped.toString();
  }

  /**
   * The text that {@link #escape} wrote as {@code escaped}: what a reader of a log line does to get the key back.
   *
   * @throws IllegalArgumentException for a backslash that starts no escape {@link #escape} writes
   */
  public static String unescape(String escaped) {
    int backslash = escaped.indexOf('\\');
    if (backslash < 0) {
      return escaped;
    }
    StringBuilder text = new StringBuilder(escaped.length()).append(escaped, 0, backslash);
    for (int i = backslash; i < escaped.length(); i++) {
      char c = escaped.charAt(i);
      if (c != '\\') {
        text.append(c);
        continue;
      }
      char next = i + 1 < escaped.length() ? escaped.charAt(i + 1) : 0;
      switch (next) {
        case '\\' -> text.append('\\');
        case 'n' -> text.append('\n');
        case 'r' -> text.append('\r');
        case 't' -> text.append('\t');
        case 'u' -> {
          int unit = 0;
          for (int digit = i + 2; digit < i + 6; digit++) {
            int value = digit < escaped.length() ? hexValue(escaped.charAt(digit)) : -1;
            if (value < 0) {
              throw new IllegalArgumentException("Not an escaped text: \\u at index " + i + " has no four hex digits");
            }
            unit = unit << 4 | value;
          }
          text.append((char) unit);
          i += 4;
        }
        default -> throw new IllegalArgumentException("Not an escaped text: a backslash at index " + i
            + " starts no escape");
      }
      i++;
    }
    return text.toString();
  }

  /**
   * The index of the first character of {@code text} that {@link #escape} writes as an escape sequence other than
   * {@code \\}, or -1: a text without one is a single line as it is.
   */
  public static int firstLineBreaking(String text) {
    return firstToEscape(text, false);
  }

  private static int firstToEscape(String text, boolean backslash) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        if (backslash) {
          return i;
        }
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        if (isEscaped(Character.toCodePoint(c, text.charAt(i + 1)))) {
          return i;
        }
        i++;
      } else if (Character.isSurrogate(c) || isEscaped(c)) {
        return i;
      }
    }
    return -1;
  }

  /** A code point that is not a surrogate and does not stand as it is. */
  private static boolean isEscaped(int codePoint) {
    if (codePoint >= 0x20 && codePoint < 0x7f) {
      return false; // printable ASCII, the common case
    }
    return switch (Character.getType(codePoint)) {
      case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> true;
      default -> codePoint == 0xfffe || codePoint == 0xffff;
    };
  }

  /** An ASCII hex digit's value, or -1 (Character.digit would take other scripts' digits too). */
  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f') {
      return (c | 0x20) - 'a' + 10;
    }
    return -1;
  }

  private static void unit(StringBuilder out, char c) {
    out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf])
        .append(HEX[c & 0xf]);
  }
}
