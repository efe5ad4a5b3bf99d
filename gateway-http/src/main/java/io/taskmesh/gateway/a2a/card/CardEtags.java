package io.taskmesh.gateway.a2a.card;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validators of the agent card's HTTP caching: a strong {@code ETag} from the card's content, and
 * the time this replica first served each content as its {@code Last-Modified} (the card is built
 * from the flow config on every request, so there is no stored modification time). At most {@link
 * #MAX_KEPT} contents are remembered; a forgotten one counts as new.
 */
final class CardEtags {
  static final int MAX_KEPT = 64;

  private final Map<String, String> firstSeen = new ConcurrentHashMap<>();

  /** {@code "<first 32 hex digits of the SHA-256 of the card>"}, quoted as RFC 9110 asks. */
  static String of(String card) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(card.getBytes(StandardCharsets.UTF_8));
      return "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Whether an {@code If-None-Match} value names {@code etag} (or is {@code *}). */
  static boolean matches(String ifNoneMatch, String etag) {
    for (String candidate : ifNoneMatch.split(",")) {
      String c = candidate.trim();
      if (c.startsWith("W/")) {
        c = c.substring(2);
      }
      if (c.equals("*") || c.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  /** The HTTP date at which this content was first served here. */
  String firstSeen(String etag) {
    if (firstSeen.size() >= MAX_KEPT && !firstSeen.containsKey(etag)) {
      firstSeen.clear();
    }
    return firstSeen.computeIfAbsent(
        etag,
        e -> DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.now().atZone(ZoneOffset.UTC)));
  }
}
