package io.taskmesh.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The gateway as a person's tools see it: only its public HTTP API ({@code POST /tools/call},
 * {@code GET /tasks}, {@code GET /tasks/{id}}, {@code POST /tasks/{id}/cancel}, {@code GET
 * /stream/{id}}, and MCP {@code tools/list} on {@code /mcp} for the flows and their input schemas).
 * Every failure is a one-line {@link ClientException}.
 */
public final class GatewayClient {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private final HttpClient http = LazyTls.client().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  /**
   * @param token the bearer key or access token; null or blank sends none
   */
  public GatewayClient(String baseUrl, String token) {
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token == null || token.isBlank() ? null : token.trim();
  }

  public String baseUrl() {
    return base;
  }

  /** Starts a task of {@code flow}; returns its id. */
  public String callTool(String flow, JsonNode arguments) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("name", flow);
    body.set("arguments", arguments);
    JsonNode answer =
        json(
            send(
                request("/tools/call")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                    .header("Content-Type", "application/json")));
    JsonNode text = answer.at("/content/0/text");
    try {
      return Json.MAPPER.readTree(text.asText()).get("task_id").asText();
    } catch (IOException | NullPointerException e) {
      throw new ClientException(
          ClientException.GATEWAY, "unexpected answer to a tool call: " + answer);
    }
  }

  public JsonNode task(String id) {
    return json(send(request("/tasks/" + encode(id)).GET()));
  }

  /** One page of the caller's tasks, newest first ({@code GET /tasks}). */
  public JsonNode tasks(String status, String flow, int limit) {
    StringBuilder query = new StringBuilder("?limit=").append(limit);
    if (status != null) {
      query.append("&status=").append(encode(status));
    }
    if (flow != null) {
      query.append("&flow=").append(encode(flow));
    }
    return json(send(request("/tasks" + query).GET()));
  }

  public JsonNode cancel(String id) {
    return json(
        send(
            request("/tasks/" + encode(id) + "/cancel").POST(HttpRequest.BodyPublishers.noBody())));
  }

  /**
   * Answers a task that waits for input with {@code text} ({@code POST /tasks/{id}/input}, the body
   * an A2A text message gives: {@code {"text": ...}}).
   */
  public JsonNode answer(String id, String text) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("text", text);
    return json(
        send(
            request("/tasks/" + encode(id) + "/input")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                .header("Content-Type", "application/json")));
  }

  /**
   * The flows a client may start, with their input schemas: MCP {@code tools/list} over plain
   * JSON-RPC POSTs (initialize, initialized, then the list, every page), the route that lists them.
   */
  public List<JsonNode> flows() {
    McpSession mcp = new McpSession(this);
    try {
      List<JsonNode> tools = new ArrayList<>();
      String cursor = null;
      do {
        ObjectNode params = Json.MAPPER.createObjectNode();
        if (cursor != null) {
          params.put("cursor", cursor);
        }
        JsonNode page = mcp.call("tools/list", params);
        page.path("tools").forEach(tools::add);
        cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
      } while (cursor != null);
      return tools;
    } finally {
      mcp.close();
    }
  }

  /**
   * The flow named {@code name}: an MCP tool, or else an A2A skill (a flow with an {@code a2a}
   * section only; marked {@code "a2a": true}, without an input schema); or a one-line error naming
   * the flows there are.
   */
  public JsonNode flow(String name) {
    List<JsonNode> tools = flows();
    Optional<JsonNode> tool =
        tools.stream().filter(t -> name.equals(t.path("name").asText())).findFirst();
    if (tool.isPresent()) {
      return tool.get();
    }
    List<JsonNode> skills = a2aSkills();
    Optional<JsonNode> skill =
        skills.stream().filter(t -> name.equals(t.path("id").asText())).findFirst();
    if (skill.isPresent()) {
      ObjectNode flow = Json.MAPPER.createObjectNode();
      flow.put("name", name);
      flow.set("description", skill.get().get("description"));
      flow.put("a2a", true);
      return flow;
    }
    List<String> names = new ArrayList<>(tools.stream().map(t -> t.path("name").asText()).toList());
    skills.stream()
        .map(t -> t.path("id").asText())
        .filter(n -> !names.contains(n))
        .forEach(names::add);
    throw new ClientException(
        ClientException.INVALID_INPUT,
        "unknown flow '" + name + "'; flows: " + String.join(", ", names));
  }

  /** The skills of the gateway's public A2A agent card; none when A2A is not served. */
  public List<JsonNode> a2aSkills() {
    // the card is public: asked without the caller's token
    HttpResponse<String> r =
        exchange(
            HttpRequest.newBuilder(uri("/.well-known/agent-card.json"))
                .timeout(REQUEST_TIMEOUT)
                .GET());
    if (r.statusCode() != 200) {
      return List.of();
    }
    List<JsonNode> skills = new ArrayList<>();
    json(r).path("skills").forEach(skills::add);
    return skills;
  }

  /**
   * Starts a task of {@code flow} (from {@link #flow}): {@code POST /tools/call} for a tool, an A2A
   * {@code message/send} that does not wait for a skill; returns its id.
   */
  public String start(JsonNode flow, JsonNode arguments) {
    String name = flow.path("name").asText();
    return flow.path("a2a").asBoolean() ? sendToSkill(name, arguments) : callTool(name, arguments);
  }

  /**
   * A flow served only as an A2A skill starts as the caller's own task over the REST routes (the
   * dashboard's {@code POST /ui/flows/{name}/start}): started over A2A it would belong to A2A's
   * principal, whom {@code /stream/{id}} does not know when the two auths differ.
   */
  private String sendToSkill(String skill, JsonNode arguments) {
    JsonNode answer =
        json(
            send(
                request("/ui/flows/" + encode(skill) + "/start")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(arguments)))
                    .header("Content-Type", "application/json")));
    String id = answer.path("task_id").asText("");
    if (id.isEmpty()) {
      throw new ClientException(
          ClientException.GATEWAY, "unexpected answer to starting flow " + skill + ": " + answer);
    }
    return id;
  }

  /**
   * Reads {@code GET /stream/{id}} from after {@code lastEventId} (null: from the start) until the
   * server closes it or {@code onEvent} throws {@link EventStreams.StopReading}.
   *
   * @throws IOException when the connection drops (the caller resumes)
   */
  public void stream(String id, String lastEventId, Consumer<SseEvent> onEvent) throws IOException {
    HttpRequest.Builder b =
        authorized(HttpRequest.newBuilder(uri("/stream/" + encode(id))))
            .header("Accept", "text/event-stream")
            .GET();
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<InputStream> r;
    try {
      r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    try (InputStream body = r.body()) {
      if (r.statusCode() != 200) {
        throw refused(r.statusCode(), new String(body.readAllBytes(), StandardCharsets.UTF_8));
      }
      EventStreams.read(body, onEvent);
    }
  }

  HttpRequest.Builder request(String path) {
    return authorized(HttpRequest.newBuilder(uri(path)).timeout(REQUEST_TIMEOUT));
  }

  HttpResponse<String> send(HttpRequest.Builder request) {
    HttpResponse<String> r = exchange(request);
    if (r.statusCode() / 100 != 2) {
      throw refused(r.statusCode(), r.body());
    }
    return r;
  }

  /** One request and its answer, whatever its status; no gateway answering is a one-line error. */
  private HttpResponse<String> exchange(HttpRequest.Builder request) {
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw unreachable(base, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClientException(ClientException.GATEWAY, "interrupted", e);
    }
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder b) {
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }

  private URI uri(String path) {
    try {
      return URI.create(base + path);
    } catch (IllegalArgumentException e) {
      throw new ClientException(ClientException.INVALID_INPUT, "not a URL: " + base);
    }
  }

  /**
   * No gateway answered: says in our words what happened and how to point the command at the right
   * one (dev prints its URL; with {@code --port 0} it is not the default).
   */
  static ClientException unreachable(String base, IOException e) {
    String why =
        e instanceof ConnectException
            ? "nothing accepts connections there"
            : e instanceof HttpTimeoutException
                ? "no answer in time"
                : e.getMessage() == null ? "the connection failed" : e.getMessage();
    return new ClientException(
        ClientException.GATEWAY,
        "cannot reach the gateway at "
            + base
            + " ("
            + why
            + "); is ./taskmesh dev running? It prints \"gateway: URL\": pass that URL with --url"
            + " or set TASKMESH_URL",
        e);
  }

  /** The gateway's refusal in one line: its status and the first line of its text. */
  static ClientException refused(int status, String body) {
    String text = body == null ? "" : body.strip();
    int newline = text.indexOf('\n');
    if (newline >= 0) {
      text = text.substring(0, newline);
    }
    String hint = status == 401 ? " (pass --token or set TASKMESH_TOKEN)" : "";
    return new ClientException(
        status == 400 ? ClientException.INVALID_INPUT : ClientException.GATEWAY,
        "gateway answered " + status + (text.isEmpty() ? "" : ": " + text) + hint);
  }

  static JsonNode json(HttpResponse<String> r) {
    try {
      return Json.MAPPER.readTree(r.body());
    } catch (IOException e) {
      throw new ClientException(
          ClientException.GATEWAY,
          "the gateway answered something other than JSON: "
              + r.body().lines().findFirst().orElse(""));
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
