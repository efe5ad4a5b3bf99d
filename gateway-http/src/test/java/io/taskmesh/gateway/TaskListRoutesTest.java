package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.McpAuth;
import io.taskmesh.schemas.TaskEvent;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code GET /tasks} and {@code POST /tasks/{id}/cancel} with the static MCP key on: a client sees
 * and cancels only its own tasks (the OAuth owner of another client stands in as a foreign owner),
 * filters and paging hold, and refusals change nothing.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TaskListRoutesTest {
  private static final String KEY = "list-key";
  private static final String[] AUTH = {"Authorization", "Bearer " + KEY};
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.API, Map.of("SVC_MCP_API_KEY", KEY));
    gateway.seedTask("mine-1", McpAuth.STATIC_KEY_PRINCIPAL);
    gateway.seedTask("mine-2", McpAuth.STATIC_KEY_PRINCIPAL);
    gateway.seedTask("theirs", "someone-else");
    gateway.tasks.append(TaskEvent.canceled("mine-1", "test"));
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  @Test
  void listsOnlyTheCallersTasksWithTheirFlow() {
    JsonNode page = EdgeGateway.json(gateway.get("/tasks", AUTH));

    assertThat(page.get("tasks"))
        .extracting(t -> t.get("id").asText())
        .containsExactlyInAnyOrder("mine-1", "mine-2");
    assertThat(page.get("tasks"))
        .allSatisfy(t -> assertThat(t.get("flow").asText()).isEqualTo("echo"));
    assertThat(page.get("total").asInt()).isEqualTo(2);
  }

  @Test
  void filtersByStatusAndFlowAndCutsPages() {
    assertThat(EdgeGateway.json(gateway.get("/tasks?status=canceled", AUTH)).get("tasks"))
        .extracting(t -> t.get("id").asText())
        .containsExactly("mine-1");
    assertThat(EdgeGateway.json(gateway.get("/tasks?flow=other", AUTH)).get("tasks")).isEmpty();
    JsonNode one = EdgeGateway.json(gateway.get("/tasks?limit=1", AUTH));
    assertThat(one.get("tasks")).hasSize(1);
    assertThat(one.get("total").asInt()).isEqualTo(2);
  }

  @Test
  void refusesBadParametersAndMissingCredentials() {
    assertThat(gateway.get("/tasks?status=done", AUTH).statusCode()).isEqualTo(400);
    assertThat(gateway.get("/tasks?limit=0", AUTH).statusCode()).isEqualTo(400);
    assertThat(gateway.get("/tasks?limit=x", AUTH).statusCode()).isEqualTo(400);
    assertThat(gateway.get("/tasks").statusCode()).isEqualTo(401);
    assertThat(gateway.post("/tasks/mine-2/cancel", "").statusCode()).isEqualTo(401);
  }

  @Test
  void cancelsTheCallersRunningTaskOnly() throws Exception {
    // its own gateway: the cancel changes what the listing tests see
    try (EdgeGateway own = EdgeGateway.start(GatewayMode.API, Map.of("SVC_MCP_API_KEY", KEY))) {
      own.seedTask("running", McpAuth.STATIC_KEY_PRINCIPAL);
      own.seedTask("over", McpAuth.STATIC_KEY_PRINCIPAL);
      own.seedTask("theirs", "someone-else");
      own.tasks.append(TaskEvent.canceled("over", "test"));
      String before = own.recorded();
      assertThat(own.post("/tasks/theirs/cancel", "", AUTH).statusCode()).isEqualTo(404);
      assertThat(own.post("/tasks/nope/cancel", "", AUTH).statusCode()).isEqualTo(404);
      HttpResponse<String> over = own.post("/tasks/over/cancel", "", AUTH);
      assertThat(over.statusCode()).isEqualTo(409);
      assertThat(over.body()).contains("already canceled");
      assertThat(own.recorded()).isEqualTo(before);

      HttpResponse<String> canceled = own.post("/tasks/running/cancel", "", AUTH);

      assertThat(canceled.statusCode()).as(canceled.body()).isEqualTo(202);
      assertThat(EdgeGateway.json(own.get("/tasks/running", AUTH)).get("status").asText())
          .isEqualTo("canceled");
    }
  }
}
