package io.taskmesh.gateway.mcp;

import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.json;
import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.wire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import org.junit.jupiter.api.Test;

/** The exact JSON a client learns the server from, in both eras. */
class McpLifecycleJsonTest {
  private final McpLifecycle lifecycle = new McpLifecycle("9.9");

  @Test
  void initializeOffersToolsLoggingResourcesAndTasksOfToolCalls() {
    ObjectNode expected =
        (ObjectNode)
            json(
                "{'protocolVersion':'2025-11-25','capabilities':{'tools':{'listChanged':true},"
                    + "'logging':{},'resources':{'subscribe':true,'listChanged':false},"
                    + "'tasks':{'list':{},'cancel':{},'requests':{'tools':{'call':{}}}}},"
                    + "'serverInfo':{'name':'taskmesh','version':'9.9'}}");
    expected.put("instructions", McpLifecycle.SESSION_INSTRUCTIONS);
    assertThat(wire(lifecycle.initializeResult("2025-11-25"))).isEqualTo(expected);
  }

  @Test
  void discoverNamesEveryRevisionTheExtensionAndTheServerUnderMeta() {
    ObjectNode expected =
        (ObjectNode)
            json(
                "{'capabilities':{'tools':{'listChanged':true},'resources':{'subscribe':true},"
                    + "'prompts':{},'extensions':{'io.modelcontextprotocol/tasks':{}}},"
                    + "'_meta':{'io.modelcontextprotocol/serverInfo':"
                    + "{'name':'taskmesh','version':'9.9'}}}");
    expected.set("supportedVersions", Json.MAPPER.valueToTree(McpRevisions.ALL));
    expected.put("instructions", McpLifecycle.SESSIONLESS_INSTRUCTIONS);
    assertThat(wire(lifecycle.discover())).isEqualTo(expected);
  }

  @Test
  void setLevelAnswersAnEmptyResult() {
    assertThat(wire(McpTaskViews.tree(java.util.Map.of()))).isEqualTo(json("{}"));
  }
}
