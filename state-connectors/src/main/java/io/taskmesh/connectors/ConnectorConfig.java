package io.taskmesh.connectors;

import io.taskmesh.connectors.ConnectorType.Family;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * A connector's settings, read from the environment in one place ({@link #fromEnv}); every
 * error names the variable. Settings of another family than the type's are left null.
 *
 * @param bucket {@code STATE_BUCKET} (object and blob stores)
 * @param prefix {@code STATE_PREFIX}, prepended to every key (may be empty)
 * @param endpoint {@code OBJSTORE_ENDPOINT_URL}, null for the provider's default endpoint
 * @param cloudProject {@code CLOUD_PROJECT} (blob), null for the client's default
 * @param storageEmulatorHost {@code STORAGE_EMULATOR_HOST} (blob), null for Google's endpoint
 * @param googleCredentials {@code GOOGLE_APPLICATION_CREDENTIALS} (blob), a key file; null for the
 *     client's default credentials
 * @param kvstoreUrl {@code KVSTORE_URL} (kv), {@code redis://} or {@code rediss://}
 */
public record ConnectorConfig(ConnectorType type, Path socket, String bucket, String prefix, String region,
                              URI endpoint, Duration presignTtl, String cloudProject, URI storageEmulatorHost,
                              Path googleCredentials, URI kvstoreUrl) {
  public static final String DEFAULT_REGION = "us-east-1";
  public static final long DEFAULT_PRESIGN_TTL_SECONDS = 3600;

  public static ConnectorConfig fromEnv(ConnectorType type, Map<String, String> env) {
    Path socket = Path.of(required(env, "CONNECTOR_SOCKET"));
    String prefix = env.getOrDefault("STATE_PREFIX", "");
    Duration ttl = Duration.ofSeconds(positiveLong(env, "STATE_PRESIGN_TTL", DEFAULT_PRESIGN_TTL_SECONDS));
    Family family = type.family();
    String bucket = family == Family.KV ? null : required(env, "STATE_BUCKET");
    String region = null;
    URI endpoint = null;
    String project = null;
    URI emulator = null;
    Path credentials = null;
    URI kv = null;
    switch (family) {
      case OBJSTORE -> {
        region = nonBlank(env.get("OBJSTORE_REGION")) ? env.get("OBJSTORE_REGION").trim() : DEFAULT_REGION;
        endpoint = nonBlank(env.get("OBJSTORE_ENDPOINT_URL"))
            ? uri("OBJSTORE_ENDPOINT_URL", env.get("OBJSTORE_ENDPOINT_URL"), Set.of("http", "https")) : null;
      }
      case BLOB -> {
        project = nonBlank(env.get("CLOUD_PROJECT")) ? env.get("CLOUD_PROJECT").trim() : null;
        emulator = nonBlank(env.get("STORAGE_EMULATOR_HOST")) ? emulatorHost(env.get("STORAGE_EMULATOR_HOST")) : null;
        credentials = nonBlank(env.get("GOOGLE_APPLICATION_CREDENTIALS"))
            ? Path.of(env.get("GOOGLE_APPLICATION_CREDENTIALS").trim()) : null;
      }
      case KV -> kv = uri("KVSTORE_URL", required(env, "KVSTORE_URL"), Set.of("redis", "rediss"));
    }
    return new ConnectorConfig(type, socket, bucket, prefix, region, endpoint, ttl, project, emulator, credentials, kv);
  }

  /** Google's tools accept the emulator as {@code host:port} or as a URL; http when no scheme is given. */
  private static URI emulatorHost(String value) {
    String v = value.trim();
    return uri("STORAGE_EMULATOR_HOST", v.contains("://") ? v : "http://" + v, Set.of("http", "https"));
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

  private static URI uri(String name, String value, Set<String> schemes) {
    try {
      URI uri = new URI(value.trim());
      if (schemes.contains(uri.getScheme()) && uri.getHost() != null) {
        return uri;
      }
    } catch (URISyntaxException ignored) {
      // reported below
    }
    throw new ConfigException(name + " must be a " + String.join(" or ", schemes.stream().sorted().toList())
        + " URL, got '" + value + "'");
  }
}
