package io.taskmesh.connectors;

/** The backend for a connector type. */
public final class Backends {
  private Backends() {}

  public static StateBackend create(ConnectorConfig config) {
    return switch (config.type().family()) {
      case OBJSTORE -> S3Backend.create(config);
      case BLOB -> GcsBackend.create(config);
      case KV -> RedisBackend.create(config);
    };
  }
}
