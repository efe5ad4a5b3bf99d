package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildEnvironmentTest {
  private static final Map<String, String> PARENT =
      Map.of(
          "PATH", "/usr/bin",
          "HOME", "/home/dev",
          "SVC_MCP_OAUTH_SECRET", "signing-secret",
          "SVC_DATABASE_URL", "postgresql://u:pw@h/db",
          "SVC_LOG_LEVEL", "DEBUG",
          "AWS_SECRET_ACCESS_KEY", "cloud-secret");

  @Test
  void aRuntimeGetsTheBasicsItsSettingsAndItsOwnVariablesOnly() {
    Map<String, String> env =
        ChildEnvironment.forRuntime(PARENT, Map.of("SVC_HANDLER", "m.f", "TOKEN", "actor-env"));
    assertThat(env)
        .containsOnly(
            Map.entry("PATH", "/usr/bin"),
            Map.entry("HOME", "/home/dev"),
            Map.entry("SVC_LOG_LEVEL", "DEBUG"),
            Map.entry("SVC_HANDLER", "m.f"),
            Map.entry("TOKEN", "actor-env"));
  }

  @Test
  void aConnectorGetsTheBasicsAndItsOwnVariablesOnly() {
    Map<String, String> env =
        ChildEnvironment.basicsAnd(PARENT, Map.of("CONNECTOR_SOCKET", "/s", "HOME", "/c"));
    assertThat(env)
        .containsOnly(
            Map.entry("PATH", "/usr/bin"),
            Map.entry("HOME", "/c"),
            Map.entry("CONNECTOR_SOCKET", "/s"));
  }
}
