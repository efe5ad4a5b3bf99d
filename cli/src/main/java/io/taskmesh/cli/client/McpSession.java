package io.taskmesh.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A minimal MCP Streamable HTTP client session on {@code /mcp}: plain JSON-RPC POSTs, reading an
 * answer given either as JSON or as an event stream, as the transport allows the server to choose.
 */
final class McpSession implements AutoCloseable {
  static final String PROTOCOL_VERSION = "2025-06-18";
  private final GatewayClient gateway;
  private String sessionId;
  private int nextId = 1;

  McpSession(GatewayClient gateway) {
    this.gateway = gateway;
    ObjectNode params = Json.MAPPER.createObjectNode();
    params.put("protocolVersion", PROTOCOL_VERSION);
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "taskmesh-cli").put("version", "0.1.0");
    call("initialize", params);
    ObjectNode initialized = Json.MAPPER.createObjectNode();
    initialized.put("jsonrpc", "2.0");
    initialized.put("method", "notifications/initialized");
    post(initialized);
  }

  /** The {@code result} of a request, or its JSON-RPC error as one line. */
  JsonNode call(String method, JsonNode params) {
    ObjectNode request = Json.MAPPER.createObjectNode();
    request.put("jsonrpc", "2.0");
    int id = nextId++;
    request.put("id", id);
    request.put("method", method);
    request.set("params", params);
    HttpResponse<String> r = post(request);
    sessionId = r.headers().firstValue("Mcp-Session-Id").orElse(sessionId);
    JsonNode answer = answerOf(r);
    if (answer.has("error")) {
      throw new ClientException(
          ClientException.GATEWAY,
          "MCP "
              + method
              + " failed: "
              + answer.at("/error/message").asText(answer.get("error").toString()));
    }
    return answer.path("result");
  }

  private HttpResponse<String> post(JsonNode message) {
    HttpRequest.Builder b =
        gateway
            .request("/mcp")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(message)));
    if (sessionId != null) {
      b.header("Mcp-Session-Id", sessionId);
      b.header("MCP-Protocol-Version", PROTOCOL_VERSION);
    }
    return gateway.send(b);
  }

  /** The JSON-RPC response in a JSON body or in the first {@code data:} event of a stream. */
  static JsonNode answerOf(HttpResponse<String> r) {
    boolean stream =
        r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
    if (!stream) {
      return GatewayClient.json(r);
    }
    AtomicReference<JsonNode> found = new AtomicReference<>();
    try {
      EventStreams.read(
          new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)),
          e -> {
            try {
              JsonNode message = Json.MAPPER.readTree(e.data());
              if (message.has("result") || message.has("error")) {
                found.set(message);
                throw new EventStreams.StopReading();
              }
            } catch (IOException notJson) {
              // a stream may carry other messages; only the response matters here
            }
          });
    } catch (IOException e) {
      throw new ClientException(
          ClientException.GATEWAY, "unreadable MCP answer: " + e.getMessage());
    }
    if (found.get() == null) {
      throw new ClientException(ClientException.GATEWAY, "MCP answered without a response");
    }
    return found.get();
  }

  /** Ends the session; a gateway that already forgot it is fine. */
  @Override
  public void close() {
    if (sessionId == null) {
      return;
    }
    try {
      gateway.send(gateway.request("/mcp").header("Mcp-Session-Id", sessionId).DELETE());
    } catch (ClientException ignored) {
      // the session expires on the server anyway
    }
  }
}
