package io.taskmesh.gateway;

/**
 * {@code SVC_GATEWAY_MODE} ({@code api}, {@code mesh}, {@code testing}): which route set this
 * process serves (first spec, route map).
 */
public enum GatewayMode {
  API,
  MESH,
  TESTING;

  boolean servesApi() {
    return this != MESH;
  }

  boolean servesMesh() {
    return this != API;
  }
}
