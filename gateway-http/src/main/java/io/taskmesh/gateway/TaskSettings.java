package io.taskmesh.gateway;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import io.taskmesh.topology.TaskTopics;
import io.taskmesh.topology.TaskViewConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The task-view side of the gateway's environment.
 *
 * <ul>
 *   <li>{@code SVC_ADVERTISED_URL}: how other replicas reach this one for forwarded task queries
 *       ({@code http://host:port}); default {@code http://<SVC_HOST>:<SVC_PORT>} when the host is a
 *       concrete address, {@code 127.0.0.1} for {@code 0.0.0.0}; with port 0 the port the gateway
 *       chose and serves on (so a replica started on port 0 is still reachable by the others).
 *   <li>{@code SVC_SSE_KEEPALIVE}: SSE keepalive comment interval, default 15 s (spec).
 *   <li>the task topics and store ({@link TaskTopics#fromEnv}).
 *   <li>{@code SVC_TASK_EVENTS_RETENTION_MS}: retention of the event log when the gateway creates
 *       it, default -1 (forever; {@link TaskViewConfig#RETAIN_FOREVER}).
 * </ul>
 */
public record TaskSettings(
    String applicationServer, Duration sseKeepalive, TaskTopics topics, long eventsRetentionMs) {

  public static TaskSettings fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    return new TaskSettings(
        applicationServer(env),
        positive("SVC_SSE_KEEPALIVE", env.duration("SVC_SSE_KEEPALIVE", "15s")),
        TaskTopics.fromEnv(vars),
        TaskViewConfig.eventsRetentionFromEnv(vars));
  }

  static String applicationServer(Env env) {
    String url = env.optional("SVC_ADVERTISED_URL");
    if (url != null) {
      URI u;
      try {
        u = URI.create(url);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "SVC_ADVERTISED_URL", "must be a URL like http://10.0.0.5:8000, not '" + url + "'");
      }
      if (!"http".equals(u.getScheme()) || u.getHost() == null || u.getPort() <= 0) {
        throw new ConfigException(
            "SVC_ADVERTISED_URL", "must be http://host:port, not '" + url + "'");
      }
      return u.getHost() + ":" + u.getPort();
    }
    String port = env.string("SVC_PORT", "8000");
    if (port.equals("0")) {
      return null; // the gateway advertises the port it chooses ({@link #advertisedFor})
    }
    return advertisedFor(env.string("SVC_HOST", "0.0.0.0"), port);
  }

  /** {@code host:port} other replicas use to reach a gateway bound to them. */
  static String advertisedFor(String host, String port) {
    return (host.equals("0.0.0.0") || host.isEmpty() ? "127.0.0.1" : host) + ":" + port;
  }

  private static Duration positive(String name, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new ConfigException(name, "must be positive");
    }
    return d;
  }
}
