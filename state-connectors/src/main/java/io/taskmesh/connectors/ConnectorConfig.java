package io.taskmesh.connectors;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A connector's settings, read from the environment in one place ({@link #fromEnv}); every
 * error names the variable.
 *
 * @param endpoint {@code OBJSTORE_ENDPOINT_URL}, null for the provider's default endpoint
 * @param prefix {@code STATE_PREFIX}, prepended to every key (may be empty)
 */
public record ConnectorConfig(ConnectorType type, Path socket, String bucket, String prefix, String region,
                              URI endpoint, Duration presignTtl) {
  public static final String DEFAULT_REGION = "us-east-1";
  public static final long DEFAULT_PRESIGN_TTL_SECONDS = 3600;

  public static ConnectorConfig fromEnv(ConnectorType type, Map<String, String> env) {
    Path socket = Path.of(required(env, "CONNECTOR_SOCKET"));
    String bucket = required(env, "STATE_BUCKET");
    String prefix = env.getOrDefault("STATE_PREFIX", "");
    String region = nonBlank(env.get("OBJSTORE_REGION")) ? env.get("OBJSTORE_REGION").trim() : DEFAULT_REGION;
    URI endpoint = nonBlank(env.get("OBJSTORE_ENDPOINT_URL")) ? httpUri("OBJSTORE_ENDPOINT_URL", env.get("OBJSTORE_ENDPOINT_URL")) : null;
    Duration ttl = Duration.ofSeconds(positiveLong(env, "STATE_PRESIGN_TTL", DEFAULT_PRESIGN_TTL_SECONDS));
    return new ConnectorConfig(type, socket, bucket, prefix, region, endpoint, ttl);
  }

  private static boolean nonBlank(String s) {
    return s != null && !s.isBlank();
  }

  private static String required(Map<String, String> env, String name) {
    String value = env.get(name);
    if (!nonBlank(value)) {
      throw new ConfigException(name + " is required");
    }
    return value.trim();
  }

  private static long positiveLong(Map<String, String> env, String name, long fallback) {
    String value = env.get(name);
    if (!nonBlank(value)) {
      return fallback;
    }
    try {
      long n = Long.parseLong(value.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new ConfigException(name + " must be a positive number of seconds, got '" + value + "'");
  }

  private static URI httpUri(String name, String value) {
    try {
      URI uri = new URI(value.trim());
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return uri;
      }
    } catch (URISyntaxException ignored) {
      // reported below
    }
    throw new ConfigException(name + " must be an http(s) URL, got '" + value + "'");
  }
}
