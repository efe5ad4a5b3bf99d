package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * replay-eval reports on the dashboard ({@code SVC_UI_EVALS_DIR}): listed and served to a caller
 * with the dashboard's token, refused without it, and nothing outside the folder is reachable.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeUiEvalsTest {
  private static final String KEY = "edge-ui-evals-key";
  private static final String[] AUTH = {"Authorization", "Bearer " + KEY};
  @TempDir static Path root;
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() throws Exception {
    Path evals = Files.createDirectories(root.resolve("evals"));
    Files.writeString(evals.resolve("upper-1.json"), "{\"id\":\"upper-1\",\"envelopes\":[]}");
    Files.writeString(root.resolve("secret.json"), "{\"secret\":true}");
    gateway =
        EdgeGateway.start(
            GatewayMode.API, Map.of("SVC_MCP_API_KEY", KEY, "SVC_UI_EVALS_DIR", evals.toString()));
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  @Test
  void aReportIsListedAndServedAsItWasWritten() {
    HttpResponse<String> list = gateway.get("/ui/evals", AUTH);
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(EdgeGateway.json(list).at("/evals/0/id").asText()).isEqualTo("upper-1");

    HttpResponse<String> report = gateway.get("/ui/evals/upper-1", AUTH);
    assertThat(report.statusCode()).isEqualTo(200);
    assertThat(report.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/json");
    assertThat(report.body()).isEqualTo("{\"id\":\"upper-1\",\"envelopes\":[]}");
  }

  @Test
  void withoutTheDashboardsTokenReportsAreRefused() {
    assertThat(gateway.status("GET", "/ui/evals", null)).isEqualTo(401);
    assertThat(gateway.status("GET", "/ui/evals/upper-1", null)).isEqualTo(401);
  }

  @Test
  void nothingOutsideTheReportsFolderIsReachable() {
    assertThat(gateway.get("/ui/evals/..%2Fsecret", AUTH).statusCode()).isEqualTo(404);
    assertThat(gateway.get("/ui/evals/..", AUTH).statusCode()).isEqualTo(404);
    assertThat(gateway.get("/ui/evals/nope", AUTH).statusCode()).isEqualTo(404);
  }
}
