package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.schemas.FlowConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DevHintsTest {
  private static final String API = "http://127.0.0.1:8000";
  private static final String MESH = "http://127.0.0.1:9000";
  private static final Map<String, FlowConfig> EXAMPLES =
      FlowRegistry.parse(TestStacks.root().resolve("examples").resolve("flows.yaml"));

  @Test
  void withoutClientAuthTheCurlsCarryNoToken() {
    List<String> lines = DevHints.tryLines(API, API, EXAMPLES, Map.of());
    assertThat(lines.get(0)).isEqualTo("Try:");
    assertThat(String.join("\n", lines))
        .doesNotContain("Authorization")
        .contains(API + "/tools/call")
        .contains("curl -sN " + API + "/mesh/<task_id>/stream")
        .contains("\"name\":\"echo\"")
        .contains("  ./taskmesh call echo --arg hello='world'")
        .endsWith("Dashboard: " + API + "/ui/");
  }

  @Test
  void withOAuthTheLinesSayWhereATokenComesFromAndSendIt() {
    List<String> lines =
        DevHints.tryLines(API, MESH, EXAMPLES, Map.of("SVC_MCP_OAUTH_ENABLED", "true"));
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
    List<String> lines = DevHints.tryLines(API, API, EXAMPLES, Map.of("SVC_MCP_API_KEY", "k"));
    assertThat(String.join("\n", lines))
        .doesNotContain("OAuth")
        .contains("Authorization: Bearer $SVC_MCP_API_KEY")
        .contains("--token $SVC_MCP_API_KEY")
        .contains("Dashboard: " + API + "/ui/ (it asks for the same token)");
  }

  @Test
  void theLinesStartAFlowThatWasLoadedWithItsSchemasArguments(@TempDir Path dir) throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        String.join(
            "\n",
            "flows:",
            "  - name: summarize",
            "    entrypoint: summarizer",
            "    mcp:",
            "      inputSchema:",
            "        type: object",
            "        properties: {document: {type: string}, words: {type: integer}}",
            "        required: [document, words]",
            ""));
    String text =
        String.join("\n", DevHints.tryLines(API, API, FlowRegistry.parse(flows), Map.of()));
    assertThat(text)
        .contains("{\"name\":\"summarize\",\"arguments\":{\"document\":\"hello world\"}}")
        .contains("./taskmesh call summarize --arg document='hello world'")
        .doesNotContain("echo")
        .doesNotContain("shout");
  }

  @Test
  void onAnotherPortTheCallLineNamesTheGateway() {
    String other = "http://127.0.0.1:41234";
    assertThat(DevHints.tryLines(other, other, EXAMPLES, Map.of()))
        .contains("  TASKMESH_URL=" + other + " ./taskmesh call echo --arg hello='world'");
    assertThat(DevHints.tryLines(API, API, EXAMPLES, Map.of()))
        .noneMatch(l -> l.contains("TASKMESH_URL"));
  }
}
