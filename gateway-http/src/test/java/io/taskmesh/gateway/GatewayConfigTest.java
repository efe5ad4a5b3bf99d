package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.TestEnv;
import io.taskmesh.servicekit.ConfigException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class GatewayConfigTest {
  private static Map<String, String> env(String... kv) {
    return TestEnv.of(
        Map.of("SVC_GATEWAY_MODE", "api", "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"), kv);
  }

  @Test
  void aShortInternalTokenStopsStartUpNamingTheVariable() {
    assertThatThrownBy(() -> GatewayConfig.fromEnv(env("SVC_INTERNAL_TOKEN", "short")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_INTERNAL_TOKEN");
    assertThat(GatewayConfig.fromEnv(env()).internalToken()).isNull();
    assertThat(
            GatewayConfig.fromEnv(env("SVC_INTERNAL_TOKEN", " 0123456789abcdef ")).internalToken())
        .isEqualTo("0123456789abcdef");
  }

  @Test
  void clientAuthIsOnWithEitherDomainsKey() {
    assertThat(GatewayConfig.fromEnv(env()).clientAuthEnabled()).isFalse();
    assertThat(GatewayConfig.fromEnv(env("SVC_MCP_API_KEY", "k")).clientAuthEnabled()).isTrue();
    assertThat(GatewayConfig.fromEnv(env("SVC_A2A_API_KEY", "k")).clientAuthEnabled()).isTrue();
  }

  @Test
  void secretsStayOutOfTheTextForm() {
    String text =
        GatewayConfig.fromEnv(
                env(
                    "SVC_MCP_API_KEY",
                    "mcp-secret-value",
                    "SVC_INTERNAL_TOKEN",
                    "internal-secret-value",
                    "SVC_DATABASE_URL",
                    "postgresql://u:pw-secret@h/db"))
            .toString();
    assertThat(text)
        .doesNotContain("mcp-secret-value", "internal-secret-value", "pw-secret")
        .contains("***");
  }

  @Test
  void theNamespaceNamesTheApplicationAndEveryTopicTheGatewayOwns() {
    GatewayConfig a = GatewayConfig.fromEnv(env("SVC_NAMESPACE", "team-a"));
    assertThat(a.namespace()).isEqualTo("team-a");
    assertThat(a.applicationId()).isEqualTo("svc.team-a.gateway");
    assertThat(Gateway.pushConfigTopic(a)).isEqualTo("svc.team-a.gateway.a2a-push-configs");
    assertThat(a.meshApiEventsTopic()).isEqualTo("svc.team-a.mesh-api-events");
    GatewayConfig d = GatewayConfig.fromEnv(env());
    assertThat(d.applicationId()).isEqualTo("svc-gateway");
    assertThat(d.meshApiEventsTopic()).isEqualTo("svc.mesh-api-events");
    assertThat(
            GatewayConfig.fromEnv(
                    env("SVC_NAMESPACE", "team-a", "SVC_STREAMS_APPLICATION_ID", "mine"))
                .applicationId())
        .isEqualTo("mine");
    assertThatThrownBy(() -> GatewayConfig.fromEnv(env("SVC_NAMESPACE", "team a")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_NAMESPACE");
  }
}
