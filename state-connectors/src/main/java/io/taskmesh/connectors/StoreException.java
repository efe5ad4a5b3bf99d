package io.taskmesh.connectors;

/**
 * A backend failure in the terms of the connector protocol; only the HTTP edge maps it to a status.
 */
public final class StoreException extends RuntimeException {
  /** The spec's statuses, which the runtime turns into Python exceptions. */
  public enum Kind {
    BAD_REQUEST(400),
    FORBIDDEN(403),
    NOT_FOUND(404),
    CONFLICT(409),
    TOO_LARGE(413),
    INTERNAL(500),
    UNAVAILABLE(503),
    TIMEOUT(504);

    final int status;

    Kind(int status) {
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  private final Kind kind;

  public StoreException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public StoreException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
