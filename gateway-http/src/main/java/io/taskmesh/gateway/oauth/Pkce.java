package io.taskmesh.gateway.oauth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Pattern;

/** PKCE (RFC 7636) with the one method we accept, S256. */
public final class Pkce {
  /** A verifier: 43 to 128 unreserved characters (RFC 7636 section 4.1). */
  private static final Pattern VERIFIER = Pattern.compile("[A-Za-z0-9\\-._~]{43,128}");

  /** A challenge: base64url of 32 bytes without padding. */
  private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9\\-_]{43}");

  private Pkce() {}

  public static boolean validChallenge(String challenge) {
    return challenge != null && CHALLENGE.matcher(challenge).matches();
  }

  public static String challengeOf(String verifier) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Whether {@code verifier} is well formed and hashes to {@code challenge} (constant-time
   * compare).
   */
  public static boolean matches(String verifier, String challenge) {
    if (verifier == null || challenge == null || !VERIFIER.matcher(verifier).matches()) {
      return false;
    }
    return MessageDigest.isEqual(
        challengeOf(verifier).getBytes(StandardCharsets.US_ASCII),
        challenge.getBytes(StandardCharsets.US_ASCII));
  }
}
