package io.taskmesh.connectors;

import io.taskmesh.connectors.ConnectorType.Family;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * A connector's settings, read from the environment in one place ({@link #fromEnv}); every error
 * names the variable. Settings of another family than the type's are left null.
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
public record ConnectorConfig(
    ConnectorType type,
    Path socket,
    String bucket,
    String prefix,
    String region,
    URI endpoint,
    Duration presignTtl,
    String cloudProject,
    URI storageEmulatorHost,
    Path googleCredentials,
    URI kvstoreUrl) {
  public static final String DEFAULT_REGION = "us-east-1";
  public static final int DEFAULT_PRESIGN_TTL_SECONDS = 3600;

  public static ConnectorConfig fromEnv(ConnectorType type, Map<String, String> vars) {
    Env env = Env.of(vars);
    Path socket = Path.of(env.required("CONNECTOR_SOCKET"));
    String prefix = env.string("STATE_PREFIX", "");
    Duration ttl =
        Duration.ofSeconds(
            env.integer("STATE_PRESIGN_TTL", DEFAULT_PRESIGN_TTL_SECONDS, 1, Integer.MAX_VALUE));
    Family family = type.family();
    String bucket = family == Family.KV ? null : env.required("STATE_BUCKET");
    String region = null;
    URI endpoint = null;
    String project = null;
    URI emulator = null;
    Path credentials = null;
    URI kv = null;
    switch (family) {
      case OBJSTORE -> {
        region = env.optional("OBJSTORE_REGION");
        region = region == null ? DEFAULT_REGION : region;
        String endpointUrl = env.optional("OBJSTORE_ENDPOINT_URL");
        endpoint =
            endpointUrl == null
                ? null
                : uri("OBJSTORE_ENDPOINT_URL", endpointUrl, Set.of("http", "https"));
      }
      case BLOB -> {
        project = env.optional("CLOUD_PROJECT");
        String emulatorHost = env.optional("STORAGE_EMULATOR_HOST");
        emulator = emulatorHost == null ? null : emulatorHost(emulatorHost);
        String keyFile = env.optional("GOOGLE_APPLICATION_CREDENTIALS");
        credentials = keyFile == null ? null : Path.of(keyFile);
      }
      case KV -> kv = uri("KVSTORE_URL", env.required("KVSTORE_URL"), Set.of("redis", "rediss"));
    }
    return new ConnectorConfig(
        type, socket, bucket, prefix, region, endpoint, ttl, project, emulator, credentials, kv);
  }

  /**
   * Google's tools accept the emulator as {@code host:port} or as a URL; http when no scheme is
   * given.
   */
  private static URI emulatorHost(String v) {
    return uri(
        "STORAGE_EMULATOR_HOST", v.contains("://") ? v : "http://" + v, Set.of("http", "https"));
  }

  private static URI uri(String name, String value, Set<String> schemes) {
    try {
      URI uri = new URI(value);
      if (schemes.contains(uri.getScheme()) && uri.getHost() != null) {
        return uri;
      }
    } catch (URISyntaxException ignored) {
      // reported below
    }
    throw new ConfigException(
        name,
        "must be a "
            + String.join(" or ", schemes.stream().sorted().toList())
            + " URL, got '"
            + value
            + "'");
  }
}
