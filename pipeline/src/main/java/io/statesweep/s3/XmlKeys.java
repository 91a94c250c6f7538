package io.statesweep.s3;

import io.statesweep.layout.Keys;

/**
 * Which object keys can travel inside an XML request body (DeleteObjects) and come back unchanged in
 * its XML answer. S3 keys may hold any Unicode character, but XML 1.0 cannot carry most control
 * characters at all (U+0001 gets the whole request {@code MalformedXML}), and XML parsers rewrite
 * others: a carriage return, or CR LF, is read as a line feed, so the server would read another key.
 * Such a key goes in a request of its own whose key travels in the URL.
 *
 * <p>A key can travel in XML when every character is printable or a plain space: no C0 control
 * (tab, line feed and carriage return included), no DEL or C1 control (which XML 1.1 parsers refuse),
 * no unpaired surrogate and neither U+FFFE nor U+FFFF. The five characters XML escapes
 * ({@code & < > " '}) are escaped by the SDK and travel as they are.
 */
public final class XmlKeys {
  private XmlKeys() {}

  public static boolean canTravelInXml(String key) {
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\ufffe' || c == '\uffff') {
        return false;
      }
    }
    return Keys.firstLoneSurrogate(key) < 0;
  }
}
