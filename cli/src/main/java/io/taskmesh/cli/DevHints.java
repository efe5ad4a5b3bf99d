package io.taskmesh.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The "Try:" lines {@code ./taskmesh dev} prints once the stack runs. They follow the gateway's
 * client auth: with a static key or OAuth on, a curl without a bearer token would only get a 401,
 * so the lines carry the header and, for OAuth, say where a token comes from.
 */
final class DevHints {
  private static final String README = "gateway-http/README.md, section \"OAuth 2.1\"";

  private DevHints() {}

  /**
   * @param gatewayUrl the gateway clients call (testing mode, or the api deployment)
   * @param meshUrl the gateway that serves the mesh routes (the same one in testing mode)
   * @param env dev's environment, whose {@code SVC_MCP_*} settings the gateway got
   */
  static List<String> tryLines(String gatewayUrl, String meshUrl, Map<String, String> env) {
    boolean oauth =
        "true"
            .equals(env.getOrDefault("SVC_MCP_OAUTH_ENABLED", "").trim().toLowerCase(Locale.ROOT));
    boolean apiKey = !env.getOrDefault("SVC_MCP_API_KEY", "").isBlank();
    String bearer =
        oauth
            ? " -H \"Authorization: Bearer $TOKEN\""
            : apiKey ? " -H \"Authorization: Bearer $SVC_MCP_API_KEY\"" : "";
    List<String> lines = new ArrayList<>();
    if (oauth) {
      lines.add(
          "OAuth is on: /mcp, /tools/call, /tasks/{id} and /stream/{id} answer 401 without an access token.");
      lines.add(
          "  An MCP client gets one itself: give it "
              + gatewayUrl
              + "/mcp and it discovers the server from the 401,");
      lines.add(
          "  registers, authorizes with PKCE and exchanges the code ("
              + gatewayUrl
              + "/.well-known/oauth-authorization-server).");
      lines.add("  For curl, get one by hand as " + README + " shows, and export TOKEN.");
    }
    lines.add("Try:");
    lines.add(
        "  curl -s "
            + gatewayUrl
            + "/tools/call"
            + bearer
            + " -H 'Content-Type: application/json' \\");
    lines.add("       -d '{\"name\":\"echo\",\"arguments\":{\"hello\":\"world\"}}'");
    lines.add("  curl -s" + bearer + " " + gatewayUrl + "/tasks/<task_id>");
    lines.add("  curl -sN " + meshUrl + "/mesh/<task_id>/stream");
    lines.add(
        "  ./taskmesh call shout --arg text='hello world'"
            + (oauth ? " --token $TOKEN" : apiKey ? " --token $SVC_MCP_API_KEY" : ""));
    lines.add(
        "Dashboard: "
            + gatewayUrl
            + "/ui/"
            + (oauth || apiKey ? " (it asks for the same token)" : ""));
    return lines;
  }
}
