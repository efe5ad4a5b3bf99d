package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 33 item 3: every unauthenticated JSON-RPC request with a new method name added a Prometheus
 * series (20,000 requests, 20,000 series). Labels now come from fixed lists: a flood of made-up
 * method names, HTTP methods and paths, with and without credentials, adds a bounded number of
 * series, and a served method is still counted under its own name.
 */
@Timeout(60)
class EdgeMetricLabelsTest {
  private static final String MCP_KEY = "mcp-key-for-labels";
  private static final String A2A_KEY = "a2a-key-for-labels";
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway =
        EdgeGateway.start(
            GatewayMode.TESTING, Map.of("SVC_MCP_API_KEY", MCP_KEY, "SVC_A2A_API_KEY", A2A_KEY));
  }

  @AfterAll
  static void stop() throws IOException {
    gateway.close();
  }

  private static long protocolSeries() {
    return gateway
        .get("/metrics")
        .body()
        .lines()
        .filter(l -> l.startsWith("taskmesh_protocol_requests_total{"))
        .count();
  }

  private static String rpc(String method) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{}}";
  }

  /** One round of made-up names on every counted route, as a stranger and as a client. */
  private static void flood(int n) {
    String mcpAccept = "application/json, text/event-stream";
    for (int i = 0; i < n; i++) {
      String name = "m-" + UUID.randomUUID();
      gateway.post("/a2a/", rpc(name));
      gateway.post("/a2a/", rpc(name), "X-API-Key", A2A_KEY);
      gateway.post("/a2a/v1", rpc(name), "A2A-Version", "1.0");
      gateway.post("/a2a/v1", rpc(name), "A2A-Version", "1.0", "X-API-Key", A2A_KEY);
      gateway.post("/mcp", rpc(name), "Accept", mcpAccept);
      gateway.post("/mcp", rpc(name), "Accept", mcpAccept, "Authorization", "Bearer " + MCP_KEY);
      gateway.get("/a2a/v1/" + name + "/x/" + name + ":" + name, "A2A-Version", "1.0");
      gateway.get("/mcp/" + name);
      gateway.send("X" + i, "/a2a/", rpc(name));
    }
  }

  @Test
  void madeUpMethodsAndPathsAddNoSeries() {
    flood(5);
    long after5 = protocolSeries();
    flood(60);
    long after65 = protocolSeries();
    assertThat(after65).as("series after 65 rounds of new names vs after 5").isEqualTo(after5);
    assertThat(gateway.get("/metrics").body()).doesNotContain("=\"m-").contains("method=\"other\"");
  }

  @Test
  void aServedMethodIsCountedUnderItsName() {
    HttpResponse<String> r =
        gateway.post("/a2a/v1", rpc("ListTasks"), "A2A-Version", "1.0", "X-API-Key", A2A_KEY);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(
            gateway
                .get("/metrics")
                .body()
                .lines()
                .filter(l -> l.startsWith("taskmesh_protocol_requests_total{"))
                .toList())
        .anySatisfy(l -> assertThat(l).contains("method=\"ListTasks\"").contains("result=\"ok\""));
    for (String unauth : List.of("/a2a/", "/a2a/v1")) {
      assertThat(gateway.post(unauth, rpc("ListTasks"), "A2A-Version", "1.0").statusCode())
          .isEqualTo(401);
    }
  }
}
