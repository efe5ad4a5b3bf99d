package io.taskmesh.connectors;

/** The backend for a connector type. */
public final class Backends {
  private Backends() {}

  public static StateBackend create(ConnectorConfig config) {
    return switch (config.type()) {
      case OBJSTORE_BUFFERED_LWW, OBJSTORE_PASSTHROUGH, OBJSTORE_BUFFERED_CAS -> S3Backend.create(config);
    };
  }
}
