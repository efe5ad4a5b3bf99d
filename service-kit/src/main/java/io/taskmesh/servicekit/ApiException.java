package io.taskmesh.servicekit;

/**
 * A domain error a service answers with its HTTP status and the {@code error} code of the {@code
 * {error, message}} body. One type for kv-connector and mesh-api, so both edges map the same thing
 * the same way (status as carried, body from {@link #error()} and the message).
 */
public class ApiException extends RuntimeException {
  private final int status;
  private final String error;

  public ApiException(int status, String error, String message) {
    super(message);
    this.status = status;
    this.error = error;
  }

  public ApiException(int status, String error, String message, Throwable cause) {
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

  public static ApiException badRequest(String message) {
    return new ApiException(400, "bad_request", message);
  }

  public static ApiException notFound(String message) {
    return new ApiException(404, "not_found", message);
  }

  public static ApiException tooLarge(long limit) {
    return new ApiException(
        413, "payload_too_large", "request body is larger than " + limit + " bytes");
  }

  public static ApiException unavailable(String message) {
    return new ApiException(503, "unavailable", message);
  }

  public static ApiException unavailable(String message, Throwable cause) {
    return new ApiException(503, "unavailable", message, cause);
  }
}
