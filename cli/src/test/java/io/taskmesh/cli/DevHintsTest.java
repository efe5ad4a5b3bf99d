package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DevHintsTest {
  private static final String API = "http://127.0.0.1:8000";
  private static final String MESH = "http://127.0.0.1:9000";

  @Test
  void withoutClientAuthTheCurlsCarryNoToken() {
    List<String> lines = DevHints.tryLines(API, API, Map.of());
    assertThat(lines.get(0)).isEqualTo("Try:");
    assertThat(String.join("\n", lines))
        .doesNotContain("Authorization")
        .contains(API + "/tools/call")
        .contains("curl -sN " + API + "/mesh/<task_id>/stream")
        .contains("./taskmesh call shout")
        .endsWith("Dashboard: " + API + "/ui/");
  }

  @Test
  void withOAuthTheLinesSayWhereATokenComesFromAndSendIt() {
    List<String> lines = DevHints.tryLines(API, MESH, Map.of("SVC_MCP_OAUTH_ENABLED", "true"));
    String text = String.join("\n", lines);
    assertThat(text)
        .contains("OAuth is on")
        .contains(API + "/mcp ")
        .contains("PKCE")
        .contains("gateway-http/README.md");
    assertThat(lines)
        .filteredOn(
            l ->
                l.startsWith("  curl -s ")
                    && (l.contains("/tools/call") || l.contains("/tasks/<task_id>")))
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).contains("Authorization: Bearer $TOKEN"));
    // the mesh routes are internal: no client token, and in an api deployment they live on the mesh
    // one
    assertThat(lines)
        .filteredOn(l -> l.contains("/mesh/<task_id>/stream"))
        .containsExactly("  curl -sN " + MESH + "/mesh/<task_id>/stream");
  }

  @Test
  void withAStaticKeyTheCurlsSendIt() {
    List<String> lines = DevHints.tryLines(API, API, Map.of("SVC_MCP_API_KEY", "k"));
    assertThat(String.join("\n", lines))
        .doesNotContain("OAuth")
        .contains("Authorization: Bearer $SVC_MCP_API_KEY")
        .contains("--token $SVC_MCP_API_KEY")
        .contains("Dashboard: " + API + "/ui/ (it asks for the same token)");
  }
}
