package io.taskmesh.gateway.a2a;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.taskmesh.gateway.a2a.model.A2aSettings;
import java.net.MalformedURLException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.text.ParseException;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A2A authentication (spec, "Authentication / A2A"): {@code X-API-Key} equal to {@code
 * SVC_A2A_API_KEY} (constant-time comparison) OR a JWT bearer verified against the key set at
 * {@code SVC_A2A_JWT_JWKS_URL} (signature, {@code iss}, {@code aud}, {@code exp}, {@code sub}
 * required). Either passes; with neither configured every request passes anonymously.
 *
 * <p>Principal (the task owner): {@code api-key} for the static key, {@code jwt:<sub>} for a token.
 * Only asymmetric algorithms (RS*, PS*, ES*, EdDSA) are accepted, so {@code alg: none} and HS256
 * signed with a public key (HS/RS confusion) are refused. The key set is cached (5 min) and
 * re-fetched when a token names an unknown {@code kid} (at most once per 5 s).
 */
public final class A2aAuth {
  private static final Logger LOG = LoggerFactory.getLogger(A2aAuth.class);
  public static final String API_KEY_PRINCIPAL = "api-key";
  private static final Set<JWSAlgorithm> ALGORITHMS =
      Set.of(
          JWSAlgorithm.RS256,
          JWSAlgorithm.RS384,
          JWSAlgorithm.RS512,
          JWSAlgorithm.PS256,
          JWSAlgorithm.PS384,
          JWSAlgorithm.PS512,
          JWSAlgorithm.ES256,
          JWSAlgorithm.ES384,
          JWSAlgorithm.ES512,
          JWSAlgorithm.EdDSA);

  /**
   * The outcome: not authenticated, or authenticated as {@code principal} (null when auth is off).
   */
  public record Result(boolean ok, String principal) {}

  private final A2aSettings settings;
  private final DefaultJWTProcessor<SecurityContext> jwt;

  public A2aAuth(A2aSettings settings) {
    this.settings = settings;
    this.jwt = settings.jwtEnabled() ? processor(settings) : null;
  }

  public boolean enabled() {
    return settings.authEnabled();
  }

  /** Checks the two headers; never throws. */
  public Result authenticate(String apiKeyHeader, String authorizationHeader) {
    if (!settings.authEnabled()) {
      return new Result(true, null);
    }
    if (settings.apiKeyEnabled()
        && apiKeyHeader != null
        && MessageDigest.isEqual(
            apiKeyHeader.getBytes(StandardCharsets.UTF_8),
            settings.apiKey().getBytes(StandardCharsets.UTF_8))) {
      return new Result(true, API_KEY_PRINCIPAL);
    }
    if (jwt != null
        && authorizationHeader != null
        && authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)) {
      Optional<String> sub = verify(authorizationHeader.substring(7).trim());
      if (sub.isPresent()) {
        return new Result(true, "jwt:" + sub.get());
      }
    }
    return new Result(false, null);
  }

  private Optional<String> verify(String token) {
    try {
      JWTClaimsSet claims = jwt.process(token, null);
      return Optional.ofNullable(claims.getSubject()).filter(s -> !s.isBlank());
    } catch (ParseException | BadJOSEException | JOSEException e) {
      LOG.debug("A2A bearer token refused: {}", e.getMessage());
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("A2A bearer token check failed: {}", e.toString());
      return Optional.empty();
    }
  }

  private static DefaultJWTProcessor<SecurityContext> processor(A2aSettings settings) {
    JWKSource<SecurityContext> keys;
    try {
      keys =
          JWKSourceBuilder.<SecurityContext>create(settings.jwksUrl().toURL())
              .cache(5 * 60_000L, 15_000L)
              .rateLimited(5_000L)
              .retrying(true)
              .build();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(
          "SVC_A2A_JWT_JWKS_URL is not a valid URL: " + settings.jwksUrl(), e);
    }
    DefaultJWTProcessor<SecurityContext> p = new DefaultJWTProcessor<>();
    p.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
    p.setJWTClaimsSetVerifier(
        new DefaultJWTClaimsVerifier<>(
            settings.audience(),
            new JWTClaimsSet.Builder().issuer(settings.issuer()).build(),
            Set.of("sub", "exp", "iss", "aud")));
    return p;
  }
}
