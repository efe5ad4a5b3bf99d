package io.taskmesh.kvconnector;

import io.taskmesh.servicekit.ApiException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-decoding that refuses what is not UTF-8. The JDK's and Vert.x's decoders turn a byte
 * sequence that is not UTF-8 ({@code a%FFb}) into U+FFFD, so two different request paths named one
 * stored key ({@code a\ufffdb}); here such a path or query is the client's error (400).
 */
final class PercentDecoding {
  private PercentDecoding() {}

  /**
   * {@code raw} with every {@code %XX} decoded and the bytes read as UTF-8; {@code +} stays a plus
   * (a key is a path, not a form). Throws {@link ApiException} 400 naming {@code what}.
   */
  static String decode(String raw, String what) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c != '%') {
        bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
      int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
      if (hi < 0 || lo < 0) {
        throw ApiException.badRequest(
            what + " is not validly percent-encoded: '%' must be followed by two hex digits");
      }
      bytes.write(hi * 16 + lo);
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw ApiException.badRequest(what + " is not percent-encoded UTF-8");
    }
  }

  /** 400 unless every name and value of the raw query string decodes to UTF-8. */
  static void checkQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.indexOf('%') < 0) {
      return;
    }
    for (String part : rawQuery.split("[&=]")) {
      decode(part, "the query string");
    }
  }
}
