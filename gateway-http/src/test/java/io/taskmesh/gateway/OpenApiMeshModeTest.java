package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskQueries;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway in mesh mode, in-process (no Kafka: the task ports are empty stand-ins), against
 * docs/api/openapi.json: the routes it registers are exactly the document's {@code gateway:mesh}
 * operations, and {@code GET /openapi.json} answers the document.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class OpenApiMeshModeTest {
  private static final TaskQueries NO_TASKS =
      new TaskQueries() {
        @Override
        public Optional<TaskState> get(String taskId) {
          return Optional.empty();
        }

        @Override
        public List<TaskState> localTasksOf(String owner) {
          return List.of();
        }

        @Override
        public List<TaskState> tasksOf(String owner) {
          return List.of();
        }
      };

  private static GatewayApp meshGateway() {
    GatewayConfig config =
        GatewayConfig.fromEnv(
            Map.of(
                "SVC_GATEWAY_MODE",
                "mesh",
                "KAFKA_BOOTSTRAP_SERVERS",
                "127.0.0.1:9",
                "SVC_HOST",
                "127.0.0.1",
                "SVC_PORT",
                "0"));
    // the mesh mode starts no task (no launcher) and reads no feed in these checks
    return new GatewayApp(
        config,
        FlowRegistry.load(null),
        NO_TASKS,
        event -> {},
        (id, listener) -> () -> {},
        null,
        new FlyBus());
  }

  @Test
  void meshModeRoutesAreExactlyTheDocumentedOnes() {
    try (GatewayApp app = meshGateway()) {
      assertThat(RegisteredRoutes.of(app.javalin(), GatewayMode.MESH))
          .containsExactlyInAnyOrderElementsOf(ApiDocument.operationsServedBy("gateway:mesh"));
    }
  }

  @Test
  void theDocumentsModesAddUp() {
    // testing mode serves both sets (checked against a running gateway in OpenApiIT); what every
    // mode serves is in all three sets
    Set<String> api = ApiDocument.operationsServedBy("gateway:api");
    Set<String> mesh = ApiDocument.operationsServedBy("gateway:mesh");
    Set<String> union = new HashSet<>(api);
    union.addAll(mesh);
    assertThat(ApiDocument.operationsServedBy("gateway:testing"))
        .containsExactlyInAnyOrderElementsOf(union);
    Set<String> everyMode = new HashSet<>(api);
    everyMode.retainAll(mesh);
    assertThat(everyMode)
        .containsExactlyInAnyOrder(
            "GET /health",
            "GET /ready",
            "GET /metrics",
            "GET /openapi.json",
            "GET /tasks/{id}",
            "GET /internal/tasks",
            "GET /internal/tasks/{id}");
  }

  @Test
  void oauthAddsItsRoutesToTheApiAndTestingModesOnly() {
    // an api gateway with OAuth is compared with the document in OAuthIT (it needs Postgres)
    Set<String> oauth = Set.of("oauth");
    Set<String> added = new HashSet<>(ApiDocument.operationsServedBy("gateway:api", oauth));
    added.removeAll(ApiDocument.operationsServedBy("gateway:api"));
    assertThat(added)
        .containsExactlyInAnyOrder(
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/oauth-protected-resource/mcp",
            "GET /.well-known/oauth-protected-resource/mcp/sse",
            "GET /.well-known/oauth-authorization-server",
            "POST /oauth/register",
            "GET /oauth/authorize",
            "POST /oauth/token");
    Set<String> testing = new HashSet<>(ApiDocument.operationsServedBy("gateway:testing", oauth));
    testing.removeAll(ApiDocument.operationsServedBy("gateway:testing"));
    assertThat(testing).isEqualTo(added);
    assertThat(ApiDocument.operationsServedBy("gateway:mesh", oauth))
        .isEqualTo(ApiDocument.operationsServedBy("gateway:mesh"));
  }

  @Test
  void servesTheDocumentAtOpenApiJson() throws Exception {
    try (GatewayApp app = meshGateway()) {
      app.javalin().start("127.0.0.1", 0);
      HttpResponse<byte[]> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + app.javalin().port() + "/openapi.json"))
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
      assertThat(r.body()).isEqualTo(ApiDocument.openApiJson());
    }
  }
}
