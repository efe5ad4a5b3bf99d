package io.taskmesh.gateway;

/**
 * One row of a 4xx matrix: a request the gateway must refuse with {@code status}, changing nothing.
 */
record BadRequest(String why, String method, String path, String body, int status) {
  /** A body over the 1 MiB limit of every route (the spec's FLY limit). */
  static final String OVERSIZED =
      "{\"pad\":\"" + "x".repeat((int) GatewayApp.MAX_BODY_BYTES) + "\"}";

  static BadRequest post(String why, String path, String body, int status) {
    return new BadRequest(why, "POST", path, body, status);
  }

  @Override
  public String toString() {
    return method + " " + path + ": " + why + " -> " + status;
  }
}
