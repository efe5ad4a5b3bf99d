package io.taskmesh.meshapi;

import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import io.taskmesh.servicekit.StartupRetry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * mesh-api configuration, read once from the environment and validated eagerly.
 *
 * @param bindHost {@code SVC_MESH_API_BIND_HOST}, default {@code 0.0.0.0}
 * @param externalPort {@code SVC_MESH_API_PORT}, default 8080 (0 = any free port)
 * @param internalPort {@code SVC_MESH_API_INTERNAL_PORT}, default 8081 (0 = any free port)
 * @param internalUrl {@code SVC_MESH_API_INTERNAL_URL}: base URL sidecars reach the internal port
 *     at; default {@code http://127.0.0.1:<internal port>}
 * @param prefix {@code SVC_MESH_API_PREFIX}, default {@code /api/v1}, empty allowed
 * @param namespace {@code SVC_NAMESPACE}: default namespace of create (null: the query must name
 *     one)
 * @param connectorSocket {@code CONNECTOR_SOCKET}: the kv-connector's Unix socket
 * @param kafkaBootstrap {@code KAFKA_BOOTSTRAP_SERVERS}
 * @param eventsTopic {@code SVC_MESH_API_EVENTS_TOPIC}, default {@code svc.mesh-api-events}
 * @param eventsPartitions {@code SVC_MESH_API_EVENTS_PARTITIONS}, default 3 (when the topic is
 *     created)
 * @param eventsReplication {@code SVC_MESH_API_EVENTS_REPLICATION}, default 1 (when the topic is
 *     created)
 * @param deadlineScan {@code SVC_MESH_API_DEADLINE_SCAN_MS}, default 1000
 * @param keepalive {@code SVC_MESH_API_KEEPALIVE_MS}, default 15000
 * @param startupRetryTimeout {@code SVC_STARTUP_RETRY_TIMEOUT}, default {@code 60s}: how long
 *     start-up retries a broker that does not answer yet
 */
public record MeshConfig(
    String bindHost,
    int externalPort,
    int internalPort,
    String internalUrl,
    String prefix,
    String namespace,
    Path connectorSocket,
    String kafkaBootstrap,
    String eventsTopic,
    int eventsPartitions,
    short eventsReplication,
    Duration deadlineScan,
    Duration keepalive,
    Duration startupRetryTimeout) {

  static final Pattern TOPIC_PART = Pattern.compile("^[a-zA-Z0-9._-]+$");
  private static final Pattern PREFIX = Pattern.compile("^(/[a-zA-Z0-9._~-]+)*$");

  public static MeshConfig fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    String host = env.string("SVC_MESH_API_BIND_HOST", "0.0.0.0");
    if (host.isEmpty()) {
      throw new ConfigException("SVC_MESH_API_BIND_HOST", "must not be empty");
    }
    int ext = env.integer("SVC_MESH_API_PORT", 8080, 0, 65535);
    int internal = env.integer("SVC_MESH_API_INTERNAL_PORT", 8081, 0, 65535);
    if (ext == internal && ext != 0) {
      throw new ConfigException(
          "SVC_MESH_API_INTERNAL_PORT", "must differ from SVC_MESH_API_PORT (" + ext + ")");
    }
    String internalUrl = env.optional("SVC_MESH_API_INTERNAL_URL");
    if (internalUrl != null && !internalUrl.matches("^https?://[^/\\s]+$")) {
      throw new ConfigException(
          "SVC_MESH_API_INTERNAL_URL",
          "'"
              + internalUrl
              + "' must be scheme://host[:port] without a path (the prefix is added)");
    }
    String prefix = env.string("SVC_MESH_API_PREFIX", "/api/v1");
    if (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (!PREFIX.matcher(prefix).matches()) {
      throw new ConfigException(
          "SVC_MESH_API_PREFIX", "'" + prefix + "' must be empty or like /api/v1");
    }
    String ns = env.optional("SVC_NAMESPACE");
    if (ns != null && !TOPIC_PART.matcher(ns).matches()) {
      throw new ConfigException(
          "SVC_NAMESPACE", "'" + ns + "' may only contain letters, digits, '.', '_' and '-'");
    }
    String socket = env.required("CONNECTOR_SOCKET");
    if (socket.getBytes(StandardCharsets.UTF_8).length > 107) {
      throw new ConfigException(
          "CONNECTOR_SOCKET", "path is longer than 107 bytes, the Unix socket limit");
    }
    String kafka = env.required("KAFKA_BOOTSTRAP_SERVERS");
    for (String hp : kafka.split(",")) {
      if (!hp.trim().matches("^[^:\\s]+:\\d{1,5}$")) {
        throw new ConfigException(
            "KAFKA_BOOTSTRAP_SERVERS", "'" + hp.trim() + "' is not host:port");
      }
    }
    // the namespace's topic (svc.mesh-api-events in the default namespace), as the gateway's
    // dashboard reads it: two deployments on one cluster never see each other's envelopes
    String topic = env.string("SVC_MESH_API_EVENTS_TOPIC", Topics.meshApiEvents(ns));
    if (!TOPIC_PART.matcher(topic).matches() || topic.length() > 249) {
      throw new ConfigException(
          "SVC_MESH_API_EVENTS_TOPIC", "'" + topic + "' is not a valid topic name");
    }
    int partitions = env.integer("SVC_MESH_API_EVENTS_PARTITIONS", 3, 1, 1000);
    int replication = env.integer("SVC_MESH_API_EVENTS_REPLICATION", 1, 1, 10);
    int scan = env.integer("SVC_MESH_API_DEADLINE_SCAN_MS", 1000, 50, 3_600_000);
    int keepalive = env.integer("SVC_MESH_API_KEEPALIVE_MS", 15_000, 10, 3_600_000);
    return new MeshConfig(
        host,
        ext,
        internal,
        internalUrl,
        prefix,
        ns,
        Path.of(socket).toAbsolutePath(),
        kafka,
        topic,
        partitions,
        (short) replication,
        Duration.ofMillis(scan),
        Duration.ofMillis(keepalive),
        StartupRetry.limit(env));
  }
}
