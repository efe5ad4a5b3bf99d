package io.taskmesh.gateway.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.TopicCreator;
import io.taskmesh.servicekit.TopicFanout;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import io.taskmesh.servicekit.sse.SseWriters;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The dashboard's read-only view of mesh-api envelopes ({@code /ui/mesh...}, api and testing modes,
 * the dashboard's auth). mesh-api has no auth, no CORS and no stream over all envelopes, so the
 * gateway does not send the browser there: list and read are proxied GETs to mesh-api's external
 * API ({@code SVC_UI_MESH_API_URL}), and the live feed reads the status events mesh-api fans out to
 * its replicas ({@code SVC_MESH_API_EVENTS_TOPIC}), the same records its own SSE streams are made
 * of. Without {@code SVC_UI_MESH_API_URL} every route answers that mesh-api is not configured.
 */
public final class UiMeshRoutes implements AutoCloseable {
  static final String URL_VAR = "SVC_UI_MESH_API_URL";

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,200}");
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final String baseUrl;
  private final Function<Context, String> auth;
  private final TopicFanout<JsonNode> events;
  private final HttpClient http;
  private final SseWriters writers = new SseWriters("ui-mesh-sse", 1, SsePolicy.TASK_STREAM);

  /**
   * @param baseUrl mesh-api's external URL with its prefix ({@code http://host:8080/api/v1}), or
   *     null when the deployment has no mesh-api
   * @param auth the dashboard's auth: throws 401 without a valid token
   */
  public UiMeshRoutes(
      String baseUrl,
      String bootstrap,
      String topic,
      short replication,
      Function<Context, String> auth) {
    this.auth = auth;
    this.baseUrl = baseUrl == null || baseUrl.isBlank() ? null : baseUrl.replaceAll("/+$", "");
    if (this.baseUrl == null) {
      this.events = null;
      this.http = null;
      return;
    }
    // mesh-api creates it too; whichever starts first, both then read the same topic
    TopicCreator.ensure(bootstrap, List.of(topic), TopicCreator.Spec.of(3, replication));
    this.events =
        new TopicFanout<>(bootstrap, topic, "gateway-ui-mesh", v -> Json.read(v, JsonNode.class))
            .start();
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  }

  boolean configured() {
    return baseUrl != null;
  }

  /** Before {@code /ui/{file}}: Javalin takes the first route that matches. */
  public void mount(JavalinConfig cfg) {
    cfg.routes.get("/ui/mesh", this::list);
    cfg.routes.get("/ui/mesh/stream", this::stream);
    cfg.routes.get("/ui/mesh/{id}", this::read);
  }

  /** {@code GET /ui/mesh}: mesh-api's list ({@code status}, {@code limit}, {@code offset}). */
  private void list(Context ctx) throws InterruptedException {
    String unused = auth.apply(ctx); // only for its 401: mesh-api tasks have no owner
    if (!configured()) {
      ctx.json(Map.of("configured", false, "messages", List.of(), "total", 0));
      return;
    }
    StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
    for (String name : List.of("status", "limit", "offset")) {
      String v = ctx.queryParam(name);
      if (v != null) {
        q.add(name + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    }
    forward(ctx, "/mesh/" + q);
  }

  /** {@code GET /ui/mesh/{id}}: one envelope as mesh-api answers it. */
  private void read(Context ctx) throws InterruptedException {
    String unused = auth.apply(ctx); // only for its 401: mesh-api tasks have no owner
    String id = ctx.pathParam("id");
    if (!configured()) {
      notConfigured(ctx);
      return;
    }
    if (!ID.matcher(id).matches()) {
      ctx.status(400).json(Map.of("error", "bad_request", "message", "not an envelope id: " + id));
      return;
    }
    forward(ctx, "/mesh/" + id);
  }

  /** mesh-api's answer, status and JSON body as they are; 503 when it cannot be reached. */
  private void forward(Context ctx, String path) throws InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(TIMEOUT)
            .header("Accept", "application/json")
            .GET()
            .build();
    try {
      HttpResponse<byte[]> res = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
      ctx.status(res.statusCode())
          .contentType(res.headers().firstValue("Content-Type").orElse("application/json"))
          .result(res.body());
    } catch (IOException e) {
      ctx.status(503)
          .header("Retry-After", "1")
          .json(Map.of("error", "mesh_api_unavailable", "message", "mesh-api: " + e));
    }
  }

  private static void notConfigured(Context ctx) {
    ctx.status(404)
        .json(
            Map.of(
                "error",
                "mesh_api_not_configured",
                "message",
                "this gateway has no mesh-api (" + URL_VAR + " is not set)"));
  }

  /**
   * {@code GET /ui/mesh/stream}: a {@code status} event ({@code id}, {@code status}, {@code actor},
   * {@code progress}, {@code result}/{@code error}/{@code message} when present, {@code at}) for
   * every status change of any envelope from now on; no history, never closed by the server.
   * Envelopes have no owner in mesh-api: every signed-in dashboard user sees all of them.
   */
  private void stream(Context ctx) throws Exception {
    String unused = auth.apply(ctx); // only for its 401: mesh-api tasks have no owner
    if (!configured()) {
      notConfigured(ctx);
      return;
    }
    UiRoutes.feedStream(
        ctx, writers, "envelopes", writer -> events.subscribeAll(e -> forwardEvent(e, writer)));
  }

  private static void forwardEvent(JsonNode e, SseWriter writer) {
    if (writer.isClosed() || !"status".equals(e.path("type").asText()) || !e.has("id")) {
      return;
    }
    ObjectNode data =
        e.path("data").isObject() ? e.get("data").deepCopy() : Json.MAPPER.createObjectNode();
    data.put("id", e.get("id").asText());
    data.put("at", Instant.now().toString());
    writer.send(new Frame("status", Json.write(data), null, false, false));
  }

  @Override
  public void close() {
    writers.close();
    if (events != null) {
      events.close();
    }
  }
}
