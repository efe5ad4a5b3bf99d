package io.taskmesh.gateway.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RedirectUrisTest {
  @Test
  void httpsAndLoopbackHttpMayBeRegistered() {
    for (String ok :
        List.of(
            "https://app.example.com/cb",
            "http://localhost:3000/callback",
            "http://127.0.0.1:53682/callback",
            "http://[::1]:8080/cb",
            "https://app.example.com/cb?x=1")) {
      assertThat(RedirectUris.problem(ok)).as(ok).isNull();
    }
  }

  @Test
  void everythingElseIsRefused() {
    for (String bad :
        List.of(
            "http://app.example.com/cb",
            "http://192.168.1.10/cb",
            "ftp://localhost/cb",
            "javascript:alert(1)",
            "/relative/cb",
            "https://app.example.com/cb#frag",
            "https://user@app.example.com/cb",
            "",
            "not a uri at all",
            "https://" + "a".repeat(2000) + ".com/")) {
      assertThat(RedirectUris.problem(bad)).as(bad).isNotNull();
    }
  }

  @Test
  void matchingIsExact() {
    List<String> registered = List.of("http://127.0.0.1:3000/callback");
    assertThat(RedirectUris.registered(registered, "http://127.0.0.1:3000/callback")).isTrue();
    assertThat(RedirectUris.registered(registered, "http://127.0.0.1:3000/callback/")).isFalse();
    assertThat(RedirectUris.registered(registered, "http://127.0.0.1:3000/callback?x=1")).isFalse();
    assertThat(RedirectUris.registered(registered, "http://localhost:3000/callback")).isFalse();
    assertThat(RedirectUris.registered(registered, "HTTP://127.0.0.1:3000/callback")).isFalse();
    assertThat(RedirectUris.registered(registered, null)).isFalse();
  }
}
