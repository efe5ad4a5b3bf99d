package io.taskmesh.sidecar;

import io.taskmesh.schemas.Envelope;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * The ids the sidecar gives fan-out children. Public so that a reader of the log (replay-eval) can
 * tell which frame of a handler's answer a child envelope was.
 */
public final class FanOutIds {
  private FanOutIds() {}

  /**
   * The id of fan-out child {@code index} (1 and up; frame 0 keeps the envelope's id) of {@code in}
   * at {@code actor}: UUID version 4 in form, its bits taken from a SHA-256 of (envelope id, actor,
   * hop, index) rather than from a random source, so a batch handled again after a crash or an
   * aborted transaction yields the same child ids.
   */
  public static String childId(Envelope in, String actor, int index) {
    return childId(in.id(), in.route().prev().size(), actor, index);
  }

  /** As above, from the envelope's id and the number of actors before it ({@code route.prev}). */
  public static String childId(String envelopeId, int hop, String actor, int index) {
    String key = envelopeId + "\n" + actor + "\n" + hop + "\n" + index;
    byte[] h;
    try {
      h = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
    h[6] = (byte) ((h[6] & 0x0f) | 0x40); // version 4
    h[8] = (byte) ((h[8] & 0x3f) | 0x80); // IETF variant
    ByteBuffer b = ByteBuffer.wrap(h);
    return new UUID(b.getLong(), b.getLong()).toString();
  }
}
