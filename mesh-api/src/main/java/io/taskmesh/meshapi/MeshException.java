package io.taskmesh.meshapi;

/**
 * A domain error carrying its HTTP status and the {@code error} code of the {@code {error,
 * message}} body.
 */
public class MeshException extends RuntimeException {
  private final int status;
  private final String error;

  public MeshException(int status, String error, String message) {
    super(message);
    this.status = status;
    this.error = error;
  }

  public MeshException(int status, String error, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.error = error;
  }

  public int status() {
    return status;
  }

  public String error() {
    return error;
  }

  public static MeshException badRequest(String message) {
    return new MeshException(400, "bad_request", message);
  }

  public static MeshException notFound(String id) {
    return new MeshException(404, "not_found", "envelope '" + id + "' not found");
  }

  public static MeshException unavailable(String message, Throwable cause) {
    return new MeshException(503, "unavailable", message, cause);
  }
}
