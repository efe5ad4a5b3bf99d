package io.taskmesh.gateway.mcp;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code requestState} of an {@code input_required} answer (MCP 2026-07-28, multi round-trip
 * requests): which task and which of its pauses the client's retry answers, signed so that a client
 * cannot point its answers at another pause or task (a tampered state is refused with -32602). The
 * key comes from {@code SVC_INTERNAL_TOKEN} when it is set, so every replica of a deployment
 * accepts the others' states; otherwise from a random key of this process.
 */
final class RequestStates {
  private static final String ALGORITHM = "HmacSHA256";
  private static final Base64.Encoder ENCODE = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODE = Base64.getUrlDecoder();

  private final SecretKeySpec key;

  private RequestStates(byte[] key) {
    this.key = new SecretKeySpec(key, ALGORITHM);
  }

  /** Keyed by the replicas' shared secret when there is one (null or empty: a random key). */
  static RequestStates keyedBy(String sharedSecret) {
    byte[] key = new byte[32];
    if (sharedSecret == null || sharedSecret.isEmpty()) {
      new SecureRandom().nextBytes(key);
    } else {
      try {
        // a key of its own, derived from the secret: a state never reveals or reuses the token
        key =
            MessageDigest.getInstance("SHA-256")
                .digest(
                    ("taskmesh mcp requestState\n" + sharedSecret)
                        .getBytes(StandardCharsets.UTF_8));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("SHA-256 is missing from this JVM", e);
      }
    }
    return new RequestStates(key);
  }

  /** What a state names: the task and the sequence number of the pause it answers. */
  record Paused(String taskId, long seq) {}

  String sign(String taskId, long seq) {
    String body = ENCODE.encodeToString((taskId + "\n" + seq).getBytes(StandardCharsets.UTF_8));
    return body + "." + ENCODE.encodeToString(mac(body));
  }

  /** The pause a state names, when it is one this gateway signed; empty for any other string. */
  Optional<Paused> verify(String state) {
    int dot = state.indexOf('.');
    if (dot <= 0 || dot != state.lastIndexOf('.')) {
      return Optional.empty();
    }
    String body = state.substring(0, dot);
    try {
      byte[] signature = DECODE.decode(state.substring(dot + 1));
      if (!MessageDigest.isEqual(signature, mac(body))) {
        return Optional.empty();
      }
      String[] parts = new String(DECODE.decode(body), StandardCharsets.UTF_8).split("\n", -1);
      return parts.length == 2
          ? Optional.of(new Paused(parts[0], Long.parseLong(parts[1])))
          : Optional.empty();
    } catch (IllegalArgumentException e) { // not base64, not a number
      return Optional.empty();
    }
  }

  private byte[] mac(String body) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac.doFinal(body.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }
}
