package io.taskmesh.gateway;

import io.taskmesh.gateway.a2a.model.A2aSettings;
import io.taskmesh.gateway.fly.DatabaseUrl;
import io.taskmesh.gateway.oauth.OAuthConfig;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.topology.TaskTopics;
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
    A2aSettings a2a,
    String internalToken,
    OAuthConfig oauth,
    String uiMeshApiUrl,
    Path uiEvalsDir,
    String meshApiEventsTopic,
    Duration toolCallWait,
    Duration newTaskWait,
    Duration startupRetryTimeout) {

  /** Shortest {@code SVC_INTERNAL_TOKEN} accepted: a shared secret, not a password to remember. */
  static final int MIN_INTERNAL_TOKEN = 16;

  public static GatewayConfig fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    GatewayMode mode = env.choice("SVC_GATEWAY_MODE", GatewayMode.class, null);
    String bootstrap = env.required("KAFKA_BOOTSTRAP_SERVERS");
    String configPath = env.optional("SVC_CONFIG_PATH");
    String stateDir = env.optional("SVC_STATE_DIR");
    // every Kafka name the gateway uses derives from the namespace unless set on its own
    String namespace = TaskTopics.namespace(env);
    return new GatewayConfig(
        mode,
        env.string("SVC_HOST", "0.0.0.0"),
        env.integer("SVC_PORT", 8000, 0, 65535),
        bootstrap,
        namespace,
        configPath == null ? null : Path.of(configPath),
        TaskTopics.applicationId(vars),
        stateDir == null
            ? Path.of(System.getProperty("java.io.tmpdir"), "taskmesh-gateway-state")
            : Path.of(stateDir),
        env.integer("SVC_TASK_TOPIC_PARTITIONS", 3, 1, 10_000),
        (short) env.integer("SVC_TOPIC_REPLICATION_FACTOR", 1, 1, 32),
        env.optional("SVC_MESH_URL"),
        env.string("SVC_MCP_API_KEY", ""),
        env.optional("SVC_DATABASE_URL"),
        env.duration("SVC_CONFIG_POLL_INTERVAL", "10s"),
        hostList(env.list("SVC_MCP_ALLOWED_HOSTS", "localhost:*,127.0.0.1:*,[::1]:*")),
        env.list("SVC_MCP_ALLOWED_ORIGINS", "http://localhost:*,http://127.0.0.1:*,http://[::1]:*"),
        A2aSettings.fromEnv(vars),
        internalToken(env.optional("SVC_INTERNAL_TOKEN")),
        OAuthConfig.fromEnv(vars, DatabaseUrl::toJdbc),
        env.optional("SVC_UI_MESH_API_URL"),
        env.optional("SVC_UI_EVALS_DIR") == null ? null : Path.of(env.optional("SVC_UI_EVALS_DIR")),
        env.string("SVC_MESH_API_EVENTS_TOPIC", Topics.meshApiEvents(namespace)),
        positive("SVC_TOOL_CALL_WAIT", env.duration("SVC_TOOL_CALL_WAIT", "300s")),
        positive("SVC_NEW_TASK_WAIT", env.duration("SVC_NEW_TASK_WAIT", "30s")),
        StartupRetry.limit(env));
  }

  /** The same configuration with other OAuth settings (tests inject a clock this way). */
  public GatewayConfig withOAuth(OAuthConfig o) {
    return new GatewayConfig(
        mode,
        host,
        port,
        bootstrapServers,
        namespace,
        configPath,
        applicationId,
        stateDir,
        taskPartitions,
        replicationFactor,
        meshUrl,
        mcpApiKey,
        databaseUrl,
        configPollInterval,
        mcpAllowedHosts,
        mcpAllowedOrigins,
        a2a,
        internalToken,
        o,
        uiMeshApiUrl,
        uiEvalsDir,
        meshApiEventsTopic,
        toolCallWait,
        newTaskWait,
        startupRetryTimeout);
  }

  /**
   * Whether clients authenticate at all (MCP bearer or OAuth, A2A key/JWT): then tasks have owners
   * to protect.
   */
  public boolean clientAuthEnabled() {
    return !mcpApiKey.isEmpty() || oauth.enabled() || (a2a != null && a2a.authEnabled());
  }

  /** Secrets stay out of logs: a record's default toString would print them. */
  @Override
  public String toString() {
    return "GatewayConfig[mode="
        + mode
        + ", host="
        + host
        + ", port="
        + port
        + ", bootstrapServers="
        + bootstrapServers
        + ", namespace="
        + namespace
        + ", configPath="
        + configPath
        + ", applicationId="
        + applicationId
        + ", mcpApiKey="
        + (mcpApiKey.isEmpty() ? "unset" : "***")
        + ", databaseUrl="
        + (databaseUrl == null ? "unset" : "***")
        + ", internalToken="
        + (internalToken == null ? "unset" : "***")
        + ", oauth="
        + oauth
        + "]";
  }

  private static String internalToken(String v) {
    if (v != null && v.length() < MIN_INTERNAL_TOKEN) {
      throw new ConfigException(
          "SVC_INTERNAL_TOKEN", "must be at least " + MIN_INTERNAL_TOKEN + " characters");
    }
    return v;
  }

  /**
   * DNS-rebinding protection: {@code *} turns the Host check off (a deployment behind an ingress).
   */
  private static List<String> hostList(List<String> hosts) {
    return hosts.contains("*") ? List.of() : hosts;
  }

  private static Duration positive(String name, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new ConfigException(name, "must be positive");
    }
    return d;
  }
}
