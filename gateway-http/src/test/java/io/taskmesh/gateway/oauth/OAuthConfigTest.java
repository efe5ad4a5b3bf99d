package io.taskmesh.gateway.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.gateway.GatewayConfig;
import io.taskmesh.servicekit.ConfigException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OAuthConfigTest {
  private static final UnaryOperator<String> JDBC = u -> "jdbc:" + u;

  private static Map<String, String> good() {
    Map<String, String> env = new HashMap<>();
    env.put("SVC_MCP_OAUTH_ENABLED", "true");
    env.put("SVC_MCP_OAUTH_ISSUER", "https://gw.example.com/");
    env.put("SVC_MCP_OAUTH_SECRET", "x".repeat(32));
    env.put("SVC_DATABASE_URL", "postgresql://db/gw");
    return env;
  }

  @Test
  void offByDefaultAndWhenFalse() {
    assertThat(OAuthConfig.fromEnv(Map.of(), JDBC).enabled()).isFalse();
    assertThat(
            OAuthConfig.fromEnv(
                    Map.of("SVC_MCP_OAUTH_ENABLED", "false", "SVC_MCP_API_KEY", "k"), JDBC)
                .enabled())
        .isFalse();
  }

  @Test
  void aCompleteConfigurationIsAccepted() {
    OAuthConfig c = OAuthConfig.fromEnv(good(), JDBC);
    assertThat(c.enabled()).isTrue();
    assertThat(c.issuer()).isEqualTo("https://gw.example.com");
    assertThat(c.tokenTtl()).isEqualTo(Duration.ofSeconds(3600));
    assertThat(c.jdbcUrl()).isEqualTo("jdbc:postgresql://db/gw");
    assertThat(c.registrationToken()).isNull();
    assertThat(c.allowLoopbackMetadata()).isFalse();
    assertThat(c.toString()).doesNotContain("xxxx");
  }

  @Test
  void eachMissingOrUnsafeSettingRefusesToStartNamingItsVariable() {
    refused(without("SVC_MCP_OAUTH_ISSUER"), "SVC_MCP_OAUTH_ISSUER");
    refused(with("SVC_MCP_OAUTH_ISSUER", "http://gw.example.com"), "SVC_MCP_OAUTH_ISSUER");
    refused(with("SVC_MCP_OAUTH_ISSUER", "https://gw.example.com?x=1"), "SVC_MCP_OAUTH_ISSUER");
    refused(with("SVC_MCP_OAUTH_ISSUER", "not a url"), "SVC_MCP_OAUTH_ISSUER");
    refused(without("SVC_MCP_OAUTH_SECRET"), "SVC_MCP_OAUTH_SECRET");
    refused(with("SVC_MCP_OAUTH_SECRET", "x".repeat(31)), "SVC_MCP_OAUTH_SECRET");
    refused(without("SVC_DATABASE_URL"), "SVC_DATABASE_URL");
    refused(with("SVC_MCP_API_KEY", "static"), "SVC_MCP_API_KEY");
    refused(with("SVC_MCP_OAUTH_TOKEN_TTL", "0"), "SVC_MCP_OAUTH_TOKEN_TTL");
    refused(with("SVC_MCP_OAUTH_TOKEN_TTL", "1h"), "SVC_MCP_OAUTH_TOKEN_TTL");
    refused(with("SVC_MCP_OAUTH_ENABLED", "ture"), "SVC_MCP_OAUTH_ENABLED");
    refused(
        with("SVC_MCP_OAUTH_CIMD_ALLOW_LOOPBACK", "maybe"), "SVC_MCP_OAUTH_CIMD_ALLOW_LOOPBACK");
  }

  @Test
  void theGatewaysConfigurationRefusesTheSameWay() {
    Map<String, String> env = with("SVC_MCP_API_KEY", "static");
    env.put("SVC_GATEWAY_MODE", "api");
    env.put("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
    assertThatThrownBy(() -> GatewayConfig.fromEnv(env)).hasMessageContaining("SVC_MCP_API_KEY");
    env.remove("SVC_MCP_API_KEY");
    env.remove("SVC_DATABASE_URL");
    assertThatThrownBy(() -> GatewayConfig.fromEnv(env)).hasMessageContaining("SVC_DATABASE_URL");
    env.put("SVC_DATABASE_URL", "mysql://db/x");
    assertThatThrownBy(() -> GatewayConfig.fromEnv(env)).hasMessageContaining("SVC_DATABASE_URL");
    env.put("SVC_DATABASE_URL", "postgresql://db/x");
    GatewayConfig c = GatewayConfig.fromEnv(env);
    assertThat(c.oauth().enabled()).isTrue();
    assertThat(c.clientAuthEnabled()).isTrue();
    assertThat(c.toString()).doesNotContain("xxxx");
  }

  @Test
  void plainHttpIssuerOnlyOnLoopback() {
    assertThat(
            OAuthConfig.fromEnv(with("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:8000"), JDBC)
                .issuer())
        .isEqualTo("http://127.0.0.1:8000");
    assertThat(
            OAuthConfig.fromEnv(with("SVC_MCP_OAUTH_ISSUER", "http://localhost:8000"), JDBC)
                .resource())
        .isEqualTo("http://localhost:8000");
  }

  @Test
  void optionalSettingsAreRead() {
    Map<String, String> env = good();
    env.put("SVC_MCP_OAUTH_TOKEN_TTL", "60");
    env.put("SVC_MCP_OAUTH_REGISTRATION_TOKEN", "reg");
    OAuthConfig c = OAuthConfig.fromEnv(env, JDBC);
    assertThat(c.tokenTtl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.registrationToken()).isEqualTo("reg");
    assertThat(c.protectedResourceMetadataUrl())
        .isEqualTo("https://gw.example.com/.well-known/oauth-protected-resource");
  }

  private static Map<String, String> without(String name) {
    Map<String, String> env = good();
    env.remove(name);
    return env;
  }

  private static Map<String, String> with(String name, String value) {
    Map<String, String> env = good();
    env.put(name, value);
    return env;
  }

  private static void refused(Map<String, String> env, String variable) {
    assertThatThrownBy(() -> OAuthConfig.fromEnv(env, JDBC))
        .as(variable)
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.variable()).isEqualTo(variable))
        .hasMessageContaining(variable);
  }
}
