package io.taskmesh.gateway;

import io.taskmesh.gateway.oauth.OAuthConfig;
import io.taskmesh.schemas.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Everything the gateway reads from its environment, validated at start-up. */
public record GatewayConfig(
    GatewayMode mode,
    String host,
    int port,
    String bootstrapServers,
    String namespace,
    Path configPath,
    String applicationId,
    Path stateDir,
    int taskPartitions,
    short replicationFactor,
    String meshUrl,
    String mcpApiKey,
    String databaseUrl,
    Duration configPollInterval,
    List<String> mcpAllowedHosts,
    List<String> mcpAllowedOrigins,
    io.taskmesh.gateway.a2a.A2aSettings a2a,
    String internalToken,
    OAuthConfig oauth) {

  /** Shortest {@code SVC_INTERNAL_TOKEN} accepted: a shared secret, not a password to remember. */
  static final int MIN_INTERNAL_TOKEN = 16;

  public static GatewayConfig fromEnv(Map<String, String> env) {
    GatewayMode mode = GatewayMode.parse(env.get("SVC_GATEWAY_MODE"));
    String bootstrap = require(env, "KAFKA_BOOTSTRAP_SERVERS");
    String configPath = env.getOrDefault("SVC_CONFIG_PATH", "");
    String stateDir = env.getOrDefault("SVC_STATE_DIR", "");
    return new GatewayConfig(
        mode,
        env.getOrDefault("SVC_HOST", "0.0.0.0"),
        intVar(env, "SVC_PORT", 8000, 0, 65535),
        bootstrap,
        env.getOrDefault("SVC_NAMESPACE", "default"),
        configPath.isBlank() ? null : Path.of(configPath),
        env.getOrDefault("SVC_STREAMS_APPLICATION_ID", "svc-gateway"),
        stateDir.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "taskmesh-gateway-state") : Path.of(stateDir),
        intVar(env, "SVC_TASK_TOPIC_PARTITIONS", 3, 1, 10_000),
        (short) intVar(env, "SVC_TOPIC_REPLICATION_FACTOR", 1, 1, 32),
        blankToNull(env.get("SVC_MESH_URL")),
        env.getOrDefault("SVC_MCP_API_KEY", ""),
        blankToNull(env.get("SVC_DATABASE_URL")),
        Durations.parse("SVC_CONFIG_POLL_INTERVAL", env.getOrDefault("SVC_CONFIG_POLL_INTERVAL", "10s")),
        hostList(env.getOrDefault("SVC_MCP_ALLOWED_HOSTS", "localhost:*,127.0.0.1:*,[::1]:*")),
        csv(env.getOrDefault("SVC_MCP_ALLOWED_ORIGINS", "http://localhost:*,http://127.0.0.1:*,http://[::1]:*")),
        io.taskmesh.gateway.a2a.A2aSettings.fromEnv(env),
        internalToken(env.get("SVC_INTERNAL_TOKEN")),
        OAuthConfig.fromEnv(env, DatabaseUrl::toJdbc));
  }

  /** The same configuration with other OAuth settings (tests inject a clock this way). */
  public GatewayConfig withOAuth(OAuthConfig o) {
    return new GatewayConfig(mode, host, port, bootstrapServers, namespace, configPath, applicationId, stateDir,
        taskPartitions, replicationFactor, meshUrl, mcpApiKey, databaseUrl, configPollInterval, mcpAllowedHosts,
        mcpAllowedOrigins, a2a, internalToken, o);
  }

  /** Whether clients authenticate at all (MCP bearer or OAuth, A2A key/JWT): then tasks have owners to protect. */
  public boolean clientAuthEnabled() {
    return !mcpApiKey.isEmpty() || oauth.enabled() || (a2a != null && a2a.authEnabled());
  }

  /** Secrets stay out of logs: a record's default toString would print them. */
  @Override
  public String toString() {
    return "GatewayConfig[mode=" + mode + ", host=" + host + ", port=" + port + ", bootstrapServers=" + bootstrapServers
        + ", namespace=" + namespace + ", configPath=" + configPath + ", applicationId=" + applicationId
        + ", mcpApiKey=" + (mcpApiKey.isEmpty() ? "unset" : "***") + ", databaseUrl=" + (databaseUrl == null ? "unset" : "***")
        + ", internalToken=" + (internalToken == null ? "unset" : "***") + ", oauth=" + oauth + "]";
  }

  private static String internalToken(String v) {
    if (v == null || v.isBlank()) {
      return null;
    }
    if (v.trim().length() < MIN_INTERNAL_TOKEN) {
      throw new IllegalArgumentException("SVC_INTERNAL_TOKEN must be at least " + MIN_INTERNAL_TOKEN + " characters");
    }
    return v.trim();
  }

  private static String require(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
    return v.trim();
  }

  private static int intVar(Map<String, String> env, String name, int dflt, int min, int max) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min || n > max) {
        throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", not " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, not '" + v + "'");
    }
  }

  /** DNS-rebinding protection: {@code *} turns the Host check off (a deployment behind an ingress). */
  private static List<String> hostList(String v) {
    List<String> hosts = csv(v);
    return hosts.contains("*") ? List.of() : hosts;
  }

  private static List<String> csv(String v) {
    return java.util.Arrays.stream(v.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }

  private static String blankToNull(String v) {
    return v == null || v.isBlank() ? null : v.trim();
  }
}
