package io.taskmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.FlowConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The "Try:" lines {@code ./taskmesh dev} prints once the stack runs. They follow the gateway's
 * client auth: with a static key or OAuth on, a curl without a bearer token would only get a 401,
 * so the lines carry the header and, for OAuth, say where a token comes from.
 */
final class DevHints {
  static final String DEFAULT_GATEWAY = "http://127.0.0.1:8000";
  private static final String README = "gateway-http/README.md, section \"OAuth 2.1\"";

  private DevHints() {}

  /**
   * @param gatewayUrl the gateway clients call (testing mode, or the api deployment)
   * @param meshUrl the gateway that serves the mesh routes (the same one in testing mode)
   * @param flows the flows dev loaded: the lines start the first one, with its schema's arguments
   * @param env dev's environment, whose {@code SVC_MCP_*} settings the gateway got
   */
  static List<String> tryLines(
      String gatewayUrl, String meshUrl, Map<String, FlowConfig> flows, Map<String, String> env) {
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
    FlowConfig flow = flows.values().stream().findFirst().orElse(null);
    String name = flow == null ? "echo" : flow.name();
    Map<String, String> args = exampleArguments(flow);
    lines.add(
        "       -d '{\"name\":\""
            + name
            + "\",\"arguments\":{"
            + args.entrySet().stream()
                .map(a -> "\"" + a.getKey() + "\":\"" + a.getValue() + "\"")
                .collect(Collectors.joining(","))
            + "}}'");
    lines.add("  curl -s" + bearer + " " + gatewayUrl + "/tasks/<task_id>");
    lines.add("  curl -sN " + meshUrl + "/mesh/<task_id>/stream");
    // call's default gateway is dev's default port; any other port has to be named
    String urlPrefix = gatewayUrl.equals(DEFAULT_GATEWAY) ? "" : "TASKMESH_URL=" + gatewayUrl + " ";
    lines.add(
        "  "
            + urlPrefix
            + "./taskmesh call "
            + name
            + args.entrySet().stream()
                .map(a -> " --arg " + a.getKey() + "='" + a.getValue() + "'")
                .collect(Collectors.joining())
            + (oauth ? " --token $TOKEN" : apiKey ? " --token $SVC_MCP_API_KEY" : ""));
    lines.add(
        "Dashboard: "
            + gatewayUrl
            + "/ui/"
            + (oauth || apiKey ? " (it asks for the same token)" : ""));
    return lines;
  }

  /**
   * Text for each required string property of the flow's {@code inputSchema} (the first string
   * property when none is required); {@code hello: world} for a schema that names none.
   */
  static Map<String, String> exampleArguments(FlowConfig flow) {
    JsonNode props =
        flow == null || flow.mcp() == null
            ? null
            : flow.mcp().path("inputSchema").get("properties");
    if (props == null || !props.isObject() || props.isEmpty()) {
      return Map.of("hello", "world");
    }
    Map<String, String> args = new LinkedHashMap<>();
    flow.mcp()
        .path("inputSchema")
        .path("required")
        .forEach(
            r -> {
              if ("string".equals(props.path(r.asText()).path("type").asText())) {
                args.put(r.asText(), "hello world");
              }
            });
    if (args.isEmpty()) {
      props
          .properties()
          .iterator()
          .forEachRemaining(
              p -> {
                if (args.isEmpty() && "string".equals(p.getValue().path("type").asText())) {
                  args.put(p.getKey(), "hello world");
                }
              });
    }
    return args;
  }
}
