package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** docs/api/openapi.json, as packaged in this jar, is a valid OpenAPI 3.1 document. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ApiDocumentTest {
  private static final Set<String> SERVERS =
      Set.of(
          "gateway:api",
          "gateway:mesh",
          "gateway:testing",
          "mesh-api:external",
          "mesh-api:internal",
          "ops-port",
          "kv-connector");

  /** The optional features an operation may require ({@code x-requires}). */
  private static final Set<String> FEATURES = Set.of("oauth");

  private static SwaggerParseResult parse() {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    return new OpenAPIV3Parser()
        .readContents(new String(ApiDocument.openApiJson(), StandardCharsets.UTF_8), null, options);
  }

  @Test
  void parsesAsOpenApi31WithoutMessages() {
    SwaggerParseResult result = parse();
    assertThat(result.getMessages()).isEmpty();
    OpenAPI api = result.getOpenAPI();
    assertThat(api).isNotNull();
    assertThat(api.getOpenapi()).startsWith("3.1.");
    assertThat(api.getPaths()).isNotEmpty();
  }

  @Test
  void everyOperationSaysWhichProcessServesItAndHasAnIdAndResponses() {
    OpenAPI api = parse().getOpenAPI();
    api.getPaths()
        .forEach(
            (path, item) ->
                item.readOperationsMap()
                    .forEach(
                        (method, o) -> {
                          String where = method + " " + path;
                          assertThat(o.getOperationId()).as(where).isNotBlank();
                          assertThat(o.getResponses()).as(where).isNotEmpty();
                          assertThat(servedBy(o))
                              .as(where)
                              .isNotEmpty()
                              .allSatisfy(s -> assertThat(SERVERS).contains(s));
                          assertThat(requires(o))
                              .as(where)
                              .allSatisfy(f -> assertThat(FEATURES).contains(f));
                        }));
  }

  @Test
  void everyReferenceResolves() {
    // a dangling $ref is reported by the resolver as a message; the first test checks there is
    // none,
    // this one checks the document really uses the components it declares
    OpenAPI api = parse().getOpenAPI();
    assertThat(api.getComponents().getSchemas())
        .containsKeys("Task", "MeshItem", "KvRecord", "ErrorBody");
    assertThat(api.getComponents().getResponses())
        .containsKeys("GatewayNotFound", "MeshNotFound", "KvUnavailable");
  }

  @Test
  void operationsServedByListsMethodAndPathOfOneProcess() {
    assertThat(ApiDocument.operationsServedBy("kv-connector"))
        .contains("GET /healthz", "PUT /keys/{key}", "POST /query")
        .doesNotContain("GET /health");
    assertThat(ApiDocument.operationsServedBy("mesh-api:internal"))
        .containsExactlyInAnyOrder(
            "GET /health",
            "GET /ready",
            "GET /metrics",
            "GET /api/v1/mesh/{id}",
            "POST /api/v1/mesh/{id}/events");
  }

  @Test
  void oauthOperationsAreServedOnlyWhenOAuthIsOn() {
    Set<String> oauth =
        Set.of(
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/oauth-authorization-server",
            "POST /oauth/register",
            "GET /oauth/authorize",
            "POST /oauth/token");
    assertThat(ApiDocument.operationsServedBy("gateway:api"))
        .doesNotContainAnyElementsOf(oauth)
        .contains("POST /mcp");
    assertThat(ApiDocument.operationsServedBy("gateway:api", Set.of("oauth")))
        .containsAll(oauth)
        .containsAll(ApiDocument.operationsServedBy("gateway:api"));
    assertThat(ApiDocument.operationsServedBy("gateway:mesh", Set.of("oauth")))
        .isEqualTo(ApiDocument.operationsServedBy("gateway:mesh"));
  }

  @Test
  void theMcpRoutesAcceptAnOAuthTokenAndNameTheMetadataInTheirChallenge() {
    OpenAPI api = parse().getOpenAPI();
    for (String path : List.of("/mcp", "/mcp/sse", "/tools/call", "/stream/{id}")) {
      api.getPaths()
          .get(path)
          .readOperationsMap()
          .forEach(
              (method, o) -> {
                assertThat(o.getSecurity())
                    .as(method + " " + path)
                    .anySatisfy(r -> assertThat(r).containsKey("mcpOAuth"));
                String ref = o.getResponses().get("401").get$ref();
                String name = ref.substring(ref.lastIndexOf('/') + 1);
                assertThat(
                        api.getComponents()
                            .getResponses()
                            .get(name)
                            .getHeaders()
                            .get("WWW-Authenticate")
                            .getDescription())
                    .as(method + " " + path)
                    .contains("resource_metadata=");
              });
    }
  }

  @SuppressWarnings("unchecked")
  private static List<String> requires(Operation o) {
    Map<String, Object> ext = o.getExtensions();
    return ext == null ? List.of() : (List<String>) ext.getOrDefault("x-requires", List.of());
  }

  @SuppressWarnings("unchecked")
  private static List<String> servedBy(Operation o) {
    Map<String, Object> ext = o.getExtensions();
    return ext == null ? List.of() : (List<String>) ext.getOrDefault("x-served-by", List.of());
  }
}
