package io.taskmesh.gateway;

/** {@code SVC_GATEWAY_MODE}: which route set this process serves (first spec, route map). */
public enum GatewayMode {
  API, MESH, TESTING;

  public static GatewayMode parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("SVC_GATEWAY_MODE is required: one of api, mesh, testing");
    }
    return switch (value.trim()) {
      case "api" -> API;
      case "mesh" -> MESH;
      case "testing" -> TESTING;
      default -> throw new IllegalArgumentException(
          "SVC_GATEWAY_MODE must be one of api, mesh, testing, not '" + value + "'");
    };
  }

  boolean servesApi() {
    return this != MESH;
  }

  boolean servesMesh() {
    return this != API;
  }
}
