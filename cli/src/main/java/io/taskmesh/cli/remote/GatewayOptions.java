package io.taskmesh.cli.remote;

import io.taskmesh.cli.client.GatewayClient;
import picocli.CommandLine.Option;

/**
 * Where the gateway is and who is asking: shared by every command that talks to a running gateway.
 */
public final class GatewayOptions {
  /** The gateway of {@code ./taskmesh dev} on its default port. */
  public static final String DEV_GATEWAY = "http://127.0.0.1:8000";

  @Option(
      names = "--url",
      paramLabel = "URL",
      defaultValue = "${env:TASKMESH_URL:-" + DEV_GATEWAY + "}",
      description =
          "the gateway (default: env TASKMESH_URL, else the dev stack's ${DEFAULT-VALUE})")
  String url;

  @Option(
      names = "--token",
      paramLabel = "T",
      defaultValue = "${env:TASKMESH_TOKEN}",
      description = "bearer key or access token for the gateway (default: env TASKMESH_TOKEN)")
  String token;

  GatewayClient client() {
    return new GatewayClient(url, token);
  }
}
