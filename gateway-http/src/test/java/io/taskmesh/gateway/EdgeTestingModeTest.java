package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The testing mode serves the api and the mesh route sets on one port, in-process over in-memory
 * ports: a task made through one set reads through the other, unknown ids answer 404 on both stream
 * routes, and MCP's Streamable HTTP answers an initialize.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeTestingModeTest {
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.TESTING);
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  @Test
  void aTaskStartedAsAToolReadsInBothForms() {
    HttpResponse<String> call =
        gateway.post("/tools/call", "{\"name\":\"echo\",\"arguments\":{\"x\":1}}");
    assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
    String id = EdgeGateway.taskIdOfToolCall(call);
    assertThat(EdgeGateway.json(gateway.get("/tasks/" + id)).get("status").asText())
        .isEqualTo("pending");
    JsonNode mesh = EdgeGateway.json(gateway.get("/mesh/" + id));
    assertThat(mesh.get("route").get("curr").asText()).isEqualTo("echo");
    assertThat(mesh.get("payload").get("x").asInt()).isEqualTo(1);
  }

  @Test
  void aMeshChildReadsThroughTheApiRoute() {
    assertThat(gateway.post("/mesh", "{\"id\":\"testing-child\",\"curr\":\"a\"}").statusCode())
        .isEqualTo(201);
    assertThat(gateway.get("/tasks/testing-child").statusCode()).isEqualTo(200);
  }

  @Test
  void unknownIdsAnswer404OnBothStreamRoutes() {
    // each waits a while for a created event still folding, so both ask at once
    List<CompletableFuture<Integer>> asks =
        List.of("/stream/no-such-task", "/mesh/no-such-task/stream").stream()
            .map(path -> CompletableFuture.supplyAsync(() -> gateway.get(path).statusCode()))
            .toList();
    assertThat(asks).allSatisfy(ask -> assertThat(ask.join()).isEqualTo(404));
    assertThat(gateway.tasks.subscriberCount("no-such-task"))
        .as("the refused streams unsubscribed")
        .isZero();
  }

  @Test
  void mcpAnswersAnInitialize() {
    HttpResponse<String> r =
        gateway.post(
            "/mcp",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"edge\",\"version\":\"1\"}}}",
            "Accept",
            "application/json, text/event-stream");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Mcp-Session-Id")).isPresent();
    assertThat(r.body()).contains("\"taskmesh\"");
  }
}
