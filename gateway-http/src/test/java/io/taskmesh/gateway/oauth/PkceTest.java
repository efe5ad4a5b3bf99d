package io.taskmesh.gateway.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PkceTest {
  @Test
  void theRfc7636ExampleMatches() {
    String verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    assertThat(Pkce.challengeOf(verifier)).isEqualTo("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    assertThat(Pkce.matches(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).isTrue();
    assertThat(Pkce.validChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).isTrue();
  }

  @Test
  void aWrongOrMalformedVerifierDoesNotMatch() {
    String challenge = Pkce.challengeOf("a".repeat(43));
    assertThat(Pkce.matches("b".repeat(43), challenge)).isFalse();
    assertThat(Pkce.matches(null, challenge)).isFalse();
    assertThat(Pkce.matches("a".repeat(42), Pkce.challengeOf("a".repeat(42))))
        .as("too short")
        .isFalse();
    assertThat(Pkce.matches("a".repeat(129), Pkce.challengeOf("a".repeat(129))))
        .as("too long")
        .isFalse();
    assertThat(Pkce.matches("a".repeat(42) + "!", Pkce.challengeOf("a".repeat(42) + "!")))
        .as("bad char")
        .isFalse();
  }

  @Test
  void thePlainMethodsChallengeIsNotAnS256Challenge() {
    assertThat(Pkce.matches("a".repeat(43), "a".repeat(43))).isFalse();
    assertThat(Pkce.validChallenge("short")).isFalse();
    assertThat(Pkce.validChallenge("a".repeat(43) + "=")).isFalse();
  }
}
