package io.taskmesh.gateway.a2a.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.taskmesh.gateway.a2a.A2aRoutes;
import io.taskmesh.gateway.a2a.A2aWire;
import io.taskmesh.gateway.a2a.JsonRpc;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.JsonErrors;
import java.io.IOException;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A2A 1.0 beside 0.3: JSON-RPC at {@code POST /a2a/v1} (the 1.0 method names) and the HTTP+JSON
 * binding under {@code /a2a/v1/} (spec 5.3, 11.3). Both run the same operations as the 0.3 edge
 * ({@link A2aRoutes}), on the same tasks, with the same auth; only names, objects and errors are
 * 1.0's. Every request names its protocol version in {@code A2A-Version} (header, or query
 * parameter): {@code 1.0} is served; another version, or none (which the spec reads as 0.3, served
 * at {@code /a2a/}), is VersionNotSupportedError.
 */
public final class A2aV1Routes {
  static final String BASE = "/a2a/v1";
  static final String VERSION_HEADER = "A2A-Version";
  static final String SERVED_VERSION = "1.0";

  private final A2aRoutes edge;

  private A2aV1Routes(A2aRoutes edge) {
    this.edge = edge;
  }

  /** Mounts the 1.0 bindings on the gateway whose 0.3 edge is {@code edge}. */
  public static void register(JavalinConfig cfg, A2aRoutes edge) {
    edge.pushForm(V1Wire.PUSH_FORM, V1Objects::streamResponse);
    new A2aV1Routes(edge).mount(cfg);
  }

  private void mount(JavalinConfig cfg) {
    cfg.routes.post(BASE, this::rpc);
    // the 1.0 card where a client whose base URL is this interface looks for it (public, as the
    // root card; no A2A-Version: discovery comes before a version is chosen)
    cfg.routes.get(BASE + "/.well-known/agent-card.json", edge::v1Card);
    cfg.routes.post(BASE + "/message:send", ctx -> http(ctx, V1Method.SEND, () -> body(ctx)));
    cfg.routes.post(BASE + "/message:stream", ctx -> http(ctx, V1Method.STREAM, () -> body(ctx)));
    cfg.routes.get(BASE + "/tasks", ctx -> http(ctx, V1Method.LIST, () -> V1Query.listTasks(ctx)));
    cfg.routes.get(
        BASE + "/tasks/{id}", ctx -> http(ctx, V1Method.GET, () -> V1Query.getTask(ctx)));
    // {id}:cancel and {id}:subscribe are one path segment: the action follows the id's last ':'
    cfg.routes.post(BASE + "/tasks/{idAction}", this::taskAction);
    cfg.routes.post(
        BASE + "/tasks/{id}/pushNotificationConfigs",
        ctx ->
            http(
                ctx,
                V1Method.PUSH_CREATE,
                () -> {
                  ObjectNode params = body(ctx);
                  params.put("taskId", ctx.pathParam("id"));
                  return params;
                }));
    cfg.routes.get(
        BASE + "/tasks/{id}/pushNotificationConfigs",
        ctx -> http(ctx, V1Method.PUSH_LIST, () -> V1Query.of("taskId", ctx.pathParam("id"))));
    cfg.routes.get(
        BASE + "/tasks/{id}/pushNotificationConfigs/{configId}",
        ctx -> http(ctx, V1Method.PUSH_GET, () -> V1Query.configRef(ctx)));
    cfg.routes.delete(
        BASE + "/tasks/{id}/pushNotificationConfigs/{configId}",
        ctx -> http(ctx, V1Method.PUSH_DELETE, () -> V1Query.configRef(ctx)));
    cfg.routes.get(
        BASE + "/extendedAgentCard",
        ctx -> http(ctx, V1Method.EXTENDED_CARD, Json.MAPPER::createObjectNode));
  }

  /** {@code POST /a2a/v1}: one JSON-RPC 2.0 call by its 1.0 method name. */
  private void rpc(Context ctx) throws Exception {
    String[] owner = new String[1];
    if (!edge.authenticate(ctx, o -> owner[0] = o)) {
      return;
    }
    byte[] body = ctx.bodyAsBytes();
    JsonRpc.Request req;
    try {
      jsonContentType(ctx);
      req = JsonRpc.parse(body);
      versionCheck(ctx);
    } catch (A2aException e) {
      ctx.status(200)
          .contentType("application/json")
          .result(Json.write(V1Wire.jsonRpcError(JsonRpc.idOf(body), e)));
      return;
    }
    V1Method method = V1Method.BY_NAME.get(req.method());
    A2aWire wire = method == null ? V1Wire.jsonRpc(V1Method.GET) : V1Wire.jsonRpc(method);
    if (method == null) {
      wire.error(
          ctx,
          req.id(),
          new A2aException(A2aException.METHOD_NOT_FOUND, "Method not found: " + req.method()));
      return;
    }
    ObjectNode params;
    try {
      params = method.in().apply(V1Objects.camelKeys(req.paramsObject()));
    } catch (A2aException e) {
      wire.error(ctx, req.id(), e);
      return;
    }
    edge.serve(
        ctx,
        method.operation(),
        new JsonRpc.Request(req.id(), req.method(), params),
        owner[0],
        method.streaming(),
        wire);
  }

  private void taskAction(Context ctx) throws Exception {
    String idAction = ctx.pathParam("idAction");
    int colon = idAction.lastIndexOf(':');
    String action = colon < 0 ? "" : idAction.substring(colon + 1);
    V1Method method =
        switch (action) {
          case "cancel" -> V1Method.CANCEL;
          case "subscribe" -> V1Method.SUBSCRIBE;
          default -> null;
        };
    if (method == null) {
      V1Wire.httpError(
          ctx,
          new A2aException(
              A2aException.METHOD_NOT_FOUND,
              "Not found: POST " + BASE + "/tasks/{id}:cancel or :subscribe"));
      return;
    }
    // the body (optional, e.g. metadata) is read like every other: one that is not a JSON object
    // is refused before the task is touched, so a garbled cancel never cancels
    http(
        ctx,
        method,
        () -> {
          ObjectNode params = body(ctx);
          JsonNode metadata = params.get("metadata");
          if (metadata != null && !metadata.isNull() && !metadata.isObject()) {
            throw new A2aException(
                A2aException.INVALID_PARAMS, "Invalid params: 'metadata' must be an object");
          }
          String id = idAction.substring(0, colon);
          JsonNode bodyId = params.get("id");
          if (bodyId != null && !(bodyId.isTextual() && bodyId.asText().equals(id))) {
            throw new A2aException(
                A2aException.INVALID_PARAMS,
                "Invalid params: 'id' in the body must be the task id of the path");
          }
          params.put("id", id);
          return params;
        });
  }

  /** One HTTP+JSON call: auth, version, then the operation with its params. */
  private void http(Context ctx, V1Method method, Supplier<ObjectNode> params) throws Exception {
    String[] owner = new String[1];
    if (!edge.authenticate(ctx, o -> owner[0] = o)) {
      return;
    }
    A2aWire wire = V1Wire.http(method);
    ObjectNode translated;
    try {
      versionCheck(ctx);
      translated = method.in().apply(V1Objects.camelKeys(params.get()));
    } catch (A2aException e) {
      wire.error(ctx, null, e);
      return;
    }
    edge.serve(
        ctx,
        method.operation(),
        new JsonRpc.Request(null, method.name(), translated),
        owner[0],
        method.streaming(),
        wire);
  }

  /** The request body as a JSON object (a bad body is INVALID_ARGUMENT). */
  private static ObjectNode body(Context ctx) {
    jsonContentType(ctx);
    byte[] bytes = ctx.bodyAsBytes();
    if (bytes.length == 0) {
      return Json.MAPPER.createObjectNode();
    }
    JsonNode node;
    try {
      node = Json.requestTree(bytes);
    } catch (IOException e) {
      throw new A2aException(
          A2aException.PARSE_ERROR, "Invalid JSON payload: " + JsonErrors.describe(e));
    }
    if (node == null || !node.isObject()) {
      throw new A2aException(
          A2aException.PARSE_ERROR, "Invalid JSON payload: the body must be a JSON object");
    }
    return (ObjectNode) node;
  }

  /**
   * A request body must be JSON ({@code application/json}, or a {@code +json} type such as {@code
   * application/a2a+json}); one that names another Content-Type is ContentTypeNotSupportedError
   * (HTTP+JSON: 415). A body without a Content-Type is read as JSON.
   */
  static void jsonContentType(Context ctx) {
    String type = ctx.header("Content-Type");
    if (type == null || type.isBlank()) {
      return;
    }
    String media = type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!media.equals("application/json") && !media.endsWith("+json")) {
      throw new A2aException(
          A2aException.CONTENT_TYPE_NOT_SUPPORTED,
          "Content type not supported: Content-Type "
              + media
              + "; send the request as application/json");
    }
  }

  /**
   * The A2A-Version of the request must be 1.0 (patch ignored, spec 3.6). Absent or empty means 0.3
   * (spec 3.6.2), which this interface does not serve.
   */
  static void versionCheck(Context ctx) {
    String version = ctx.header(VERSION_HEADER);
    if (version == null) {
      version = ctx.queryParam(VERSION_HEADER);
    }
    version = version == null ? "" : version.trim();
    if (version.isEmpty()) {
      throw new A2aException(
          A2aException.VERSION_NOT_SUPPORTED,
          "A2A-Version is absent, which means 0.3; this "
              + "interface serves 1.0 only (send 'A2A-Version: 1.0'); A2A 0.3 is served at /a2a/");
    }
    if (!version.equals(SERVED_VERSION) && !version.startsWith(SERVED_VERSION + ".")) {
      throw new A2aException(
          A2aException.VERSION_NOT_SUPPORTED,
          "A2A-Version "
              + version
              + " is not supported: this interface serves 1.0; A2A 0.3 is served at /a2a/");
    }
  }
}
