package io.taskmesh.gateway.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TokenServiceTest {
  private static final byte[] SECRET =
      "0123456789abcdef0123456789abcdef-secret".getBytes(StandardCharsets.UTF_8);
  private static final String ISS = "https://gw.example.com";
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final MutableClock clock = new MutableClock(T0);
  private final TokenService tokens =
      new TokenService(SECRET, ISS, ISS, Duration.ofSeconds(3600), clock);

  @Test
  void anIssuedTokenVerifiesWithAllItsClaims() throws Exception {
    String jwt = tokens.issue("client-1", "mcp:invoke mcp:read", ISS + "/mcp", "fam-1");
    AccessToken t = tokens.verify(jwt);
    assertThat(t.clientId()).isEqualTo("client-1");
    assertThat(t.scope()).isEqualTo("mcp:invoke mcp:read");
    assertThat(t.audience()).isEqualTo(ISS + "/mcp");
    assertThat(t.familyId()).isEqualTo("fam-1");
    assertThat(t.expiresAt()).isEqualTo(T0.plusSeconds(3600));
    JWTClaimsSet claims = SignedJWT.parse(jwt).getJWTClaimsSet();
    assertThat(claims.getClaims()).containsKeys("iss", "aud", "sub", "scope", "iat", "exp", "jti");
    assertThat(SignedJWT.parse(jwt).getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.HS256);
  }

  @Test
  void aTamperedSignatureIsRefused() {
    String jwt = tokens.issue("client-1", "mcp:read", ISS, "f");
    String[] parts = jwt.split("\\.");
    char last = parts[2].charAt(0);
    String tampered =
        parts[0] + "." + parts[1] + "." + (last == 'A' ? 'B' : 'A') + parts[2].substring(1);
    assertRefused(tampered, "bad signature");
  }

  @Test
  void aTamperedPayloadIsRefused() throws Exception {
    String jwt = tokens.issue("client-1", "mcp:read", ISS, "f");
    String[] parts = jwt.split("\\.");
    String other =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(
                new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                    .replace("client-1", "client-2")
                    .getBytes(StandardCharsets.UTF_8));
    assertRefused(parts[0] + "." + other + "." + parts[2], "bad signature");
  }

  @Test
  void anExpiredTokenIsRefused() {
    String jwt = tokens.issue("client-1", "mcp:read", ISS, "f");
    clock.set(T0.plusSeconds(3599));
    assertThat(tokens.verify(jwt).clientId()).isEqualTo("client-1");
    clock.set(T0.plusSeconds(3600));
    assertRefused(jwt, "expired");
  }

  @Test
  void aWrongIssuerIsRefused() {
    TokenService other =
        new TokenService(SECRET, "https://evil.example.com", ISS, Duration.ofHours(1), clock);
    assertRefused(other.issue("c", "mcp:read", ISS, "f"), "wrong issuer");
  }

  @Test
  void aWrongAudienceIsRefused() throws Exception {
    assertRefused(
        tokens.issue("c", "mcp:read", "https://other.example.com", "f"), "wrong audience");
    assertRefused(tokens.issue("c", "mcp:read", ISS + ".evil.com", "f"), "wrong audience");
    assertRefused(sign(claims().audience((String) null).build()), "wrong audience");
  }

  @Test
  void onlyTheResourceUrlsThemselvesAreAcceptedAsAudienceNotAnyUrlUnderTheIssuer() {
    for (String served : List.of(ISS, ISS + "/mcp", ISS + "/mcp/sse")) {
      assertThat(tokens.verify(tokens.issue("c", "mcp:read", served, "f")).audience())
          .isEqualTo(served);
    }
    for (String other :
        List.of(ISS + "/a2a", ISS + "/mcp/other", ISS + "/oauth/token", ISS + "/", ISS + "/mcp/")) {
      assertRefused(tokens.issue("c", "mcp:read", other, "f"), "wrong audience");
    }
  }

  @Test
  void aTokenIsRefusedBeforeItsNotBeforeTimeAndAcceptedFromIt() throws Exception {
    String jwt = sign(claims().notBeforeTime(Date.from(T0.plusSeconds(30))).build());
    assertRefused(jwt, "not valid yet");
    clock.set(T0.plusSeconds(30));
    assertThat(tokens.verify(jwt).clientId()).isEqualTo("c");
  }

  @Test
  void algNoneIsRefused() {
    PlainJWT none = new PlainJWT(claims().build());
    assertRefused(none.serialize(), "alg none");
  }

  @Test
  void anotherAlgorithmIsRefusedEvenWithTheSameKey() throws Exception {
    SignedJWT hs512 = new SignedJWT(new JWSHeader(JWSAlgorithm.HS512), claims().build());
    hs512.sign(
        new MACSigner(
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
                .getBytes(StandardCharsets.UTF_8)));
    assertRefused(hs512.serialize(), "HS256 only");
    RSAKey rsa = new RSAKeyGenerator(2048).generate();
    SignedJWT rs256 = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims().build());
    rs256.sign(new RSASSASigner(rsa));
    assertRefused(rs256.serialize(), "HS256 only");
  }

  @Test
  void aTokenSignedWithAnotherSecretIsRefused() {
    TokenService other =
        new TokenService(
            "another-secret-of-at-least-32-bytes!!".getBytes(StandardCharsets.UTF_8),
            ISS,
            ISS,
            Duration.ofHours(1),
            clock);
    assertRefused(other.issue("c", "mcp:read", ISS, "f"), "bad signature");
  }

  @Test
  void garbageAndMissingClaimsAreRefused() throws Exception {
    assertRefused("not-a-jwt", "not a JWT");
    assertRefused("", "missing");
    assertRefused(sign(claims().subject(null).build()), "missing sub");
    assertRefused(sign(claims().claim(TokenService.FAMILY_CLAIM, null).build()), "missing sub");
  }

  private static JWTClaimsSet.Builder claims() {
    return new JWTClaimsSet.Builder()
        .issuer(ISS)
        .audience(ISS)
        .subject("c")
        .claim("scope", "mcp:read")
        .issueTime(Date.from(T0))
        .expirationTime(Date.from(T0.plusSeconds(60)))
        .jwtID("j")
        .claim(TokenService.FAMILY_CLAIM, "f");
  }

  private static String sign(JWTClaimsSet claims) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    jwt.sign(new MACSigner(SECRET));
    return jwt.serialize();
  }

  private void assertRefused(String token, String reason) {
    assertThatThrownBy(() -> tokens.verify(token))
        .isInstanceOf(TokenService.InvalidToken.class)
        .hasMessageContaining(reason);
  }

  /** A clock the test moves. */
  static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant t) {
      now = t;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
