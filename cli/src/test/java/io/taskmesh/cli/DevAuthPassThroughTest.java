package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DevAuthPassThroughTest {
  @TempDir Path data;

  private DevStack.Options options(int port) {
    return new DevStack.Options(data, null, data, null, null, port, 0, 0, "default");
  }

  @Test
  void theGatewaysAuthVariablesReachItAndNothingElse() {
    Map<String, String> env = new HashMap<>();
    DevStack.passAuthThrough(
        Map.of(
            "SVC_MCP_API_KEY",
            "k",
            "SVC_A2A_API_KEY",
            "a",
            "SVC_INTERNAL_TOKEN",
            "t",
            "SVC_PORT",
            "1",
            "HOME",
            "/root"),
        env,
        options(8000),
        s -> {});
    assertThat(env)
        .containsOnly(
            Map.entry("SVC_MCP_API_KEY", "k"),
            Map.entry("SVC_A2A_API_KEY", "a"),
            Map.entry("SVC_INTERNAL_TOKEN", "t"));
  }

  @Test
  void oauthInDevGetsALoopbackIssuerAndAKeptSecret() {
    List<String> said = new ArrayList<>();
    Map<String, String> first = new HashMap<>();
    DevStack.passAuthThrough(
        Map.of("SVC_MCP_OAUTH_ENABLED", "true"), first, options(8123), said::add);
    assertThat(first).containsEntry("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:8123");
    assertThat(first.get("SVC_MCP_OAUTH_SECRET")).hasSizeGreaterThanOrEqualTo(32);
    Map<String, String> second = new HashMap<>();
    DevStack.passAuthThrough(
        Map.of("SVC_MCP_OAUTH_ENABLED", "true"), second, options(8123), said::add);
    assertThat(second.get("SVC_MCP_OAUTH_SECRET"))
        .as("a dev restart keeps tokens valid")
        .isEqualTo(first.get("SVC_MCP_OAUTH_SECRET"));
    Map<String, String> given = new HashMap<>();
    DevStack.passAuthThrough(
        Map.of(
            "SVC_MCP_OAUTH_ENABLED",
            "true",
            "SVC_MCP_OAUTH_ISSUER",
            "https://gw.example.com",
            "SVC_MCP_OAUTH_SECRET",
            "s".repeat(40)),
        given,
        options(0),
        said::add);
    assertThat(given)
        .containsEntry("SVC_MCP_OAUTH_ISSUER", "https://gw.example.com")
        .containsEntry("SVC_MCP_OAUTH_SECRET", "s".repeat(40))
        .doesNotContainKey("SVC_PORT");
    Map<String, String> anyPort = new HashMap<>();
    DevStack.passAuthThrough(
        Map.of("SVC_MCP_OAUTH_ENABLED", "true"), anyPort, options(0), said::add);
    assertThat(anyPort.get("SVC_MCP_OAUTH_ISSUER"))
        .isEqualTo("http://127.0.0.1:" + anyPort.get("SVC_PORT"));
  }
}
