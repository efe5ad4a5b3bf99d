package io.taskmesh.gateway.oauth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;

/**
 * Access tokens: HS256 JWTs with {@code iss}, {@code aud}, {@code sub} (client id), {@code scope},
 * {@code iat}, {@code exp}, {@code jti}, plus {@code fid}, the token family, so a revoked family
 * (reused code or refresh token) takes its access tokens with it.
 *
 * <p>Verification accepts HS256 only: {@code alg: none}, RS256 and every other algorithm are
 * refused before any signature check, so a key confusion cannot happen.
 */
public final class TokenService {
  static final String FAMILY_CLAIM = "fid";
  private static final int MAX_TOKEN_CHARS = 8192;

  private final MACSigner signer;
  private final MACVerifier verifier;
  private final String issuer;
  private final String resource;
  private final Duration ttl;
  private final Clock clock;

  public TokenService(byte[] secret, String issuer, String resource, Duration ttl, Clock clock) {
    try {
      this.signer = new MACSigner(secret);
      this.verifier = new MACVerifier(secret);
    } catch (JOSEException e) {
      throw new IllegalArgumentException(
          "SVC_MCP_OAUTH_SECRET is not a usable HS256 key: " + e.getMessage(), e);
    }
    this.issuer = issuer;
    this.resource = resource;
    this.ttl = ttl;
    this.clock = clock;
  }

  public static TokenService of(OAuthConfig config) {
    return new TokenService(
        config.secret(), config.issuer(), config.resource(), config.tokenTtl(), config.clock());
  }

  public Duration ttl() {
    return ttl;
  }

  /**
   * A signed access token for {@code clientId}, audience {@code audience} (an RFC 8707 resource).
   */
  public String issue(String clientId, String scope, String audience, String familyId) {
    Instant now = clock.instant();
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(issuer)
            .audience(audience)
            .subject(clientId)
            .claim("scope", scope)
            .issueTime(Date.from(now))
            .expirationTime(Date.from(now.plus(ttl)))
            .jwtID(UUID.randomUUID().toString())
            .claim(FAMILY_CLAIM, familyId)
            .build();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(), claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException("signing failed", e);
    }
    return jwt.serialize();
  }

  /** The verified token, or {@link InvalidToken} naming what was wrong. */
  public AccessToken verify(String token) {
    if (token == null || token.isBlank() || token.length() > MAX_TOKEN_CHARS) {
      throw new InvalidToken("missing or oversized token");
    }
    JWT parsed;
    try {
      parsed = JWTParser.parse(token);
    } catch (ParseException e) {
      throw new InvalidToken("not a JWT");
    }
    if (!(parsed instanceof SignedJWT jwt)) {
      throw new InvalidToken("unsigned token (alg none) refused");
    }
    if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
      throw new InvalidToken(
          "algorithm " + jwt.getHeader().getAlgorithm() + " refused: HS256 only");
    }
    if (jwt.getHeader().getCriticalParams() != null
        && !jwt.getHeader().getCriticalParams().isEmpty()) {
      throw new InvalidToken("critical header parameters are not supported");
    }
    try {
      if (!jwt.verify(verifier)) {
        throw new InvalidToken("bad signature");
      }
    } catch (JOSEException e) {
      throw new InvalidToken("bad signature");
    }
    JWTClaimsSet claims;
    try {
      claims = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      throw new InvalidToken("unreadable claims");
    }
    if (!issuer.equals(claims.getIssuer())) {
      throw new InvalidToken("wrong issuer");
    }
    List<String> aud = claims.getAudience();
    String audience =
        aud.stream()
            .filter(this::servedHere)
            .findFirst()
            .orElseThrow(() -> new InvalidToken("wrong audience"));
    Date exp = claims.getExpirationTime();
    if (exp == null || !clock.instant().isBefore(exp.toInstant())) {
      throw new InvalidToken("expired");
    }
    // we never set nbf, but a token that names one is honoured: not yet valid means refused
    Date nbf = claims.getNotBeforeTime();
    if (nbf != null && clock.instant().isBefore(nbf.toInstant())) {
      throw new InvalidToken("not valid yet (nbf)");
    }
    String sub = claims.getSubject();
    Object fid = claims.getClaim(FAMILY_CLAIM);
    if (sub == null
        || sub.isBlank()
        || !(fid instanceof String family)
        || claims.getJWTID() == null) {
      throw new InvalidToken("missing sub, jti or family");
    }
    Object scope = claims.getClaim("scope");
    return new AccessToken(
        sub,
        scope instanceof String s ? s : "",
        audience,
        family,
        claims.getJWTID(),
        exp.toInstant());
  }

  /**
   * An audience this gateway serves: exactly one of its resource URLs ({@link
   * OAuthConfig#RESOURCE_PATHS} under the resource), never any URL under the issuer, so a token
   * minted for another resource on the same host is not accepted here (RFC 8707).
   */
  public boolean servedHere(String audience) {
    return audience != null
        && OAuthConfig.RESOURCE_PATHS.stream().anyMatch(p -> audience.equals(resource + p));
  }

  /** Why a token was refused; the reason is for logs and tests, clients only see invalid_token. */
  public static final class InvalidToken extends RuntimeException {
    public InvalidToken(String reason) {
      super(reason);
    }
  }
}
