package io.taskmesh.kvconnector;

/**
 * A domain error with the HTTP status and the {@code error} code of the {@code {error, message}}
 * body.
 */
public class KvException extends RuntimeException {
  private final int status;
  private final String error;

  public KvException(int status, String error, String message) {
    super(message);
    this.status = status;
    this.error = error;
  }

  public int status() {
    return status;
  }

  public String error() {
    return error;
  }

  public static KvException badRequest(String message) {
    return new KvException(400, "bad_request", message);
  }

  public static KvException notFound(String message) {
    return new KvException(404, "not_found", message);
  }

  public static KvException tooLarge(long limit) {
    return new KvException(
        413, "payload_too_large", "request body is larger than " + limit + " bytes");
  }

  public static KvException unavailable(String message) {
    return new KvException(503, "unavailable", message);
  }
}
