package io.taskmesh.gateway.mcp;

import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.json;
import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.wire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.FlowConfig;
import org.junit.jupiter.api.Test;

/** The exact JSON of the tool list and of the answers of tools/call that are not a task's end. */
class McpToolJsonTest {
  @Test
  void aFlowWithoutSchemasIsAToolOfAnyObjectThatMayRunAsATask() {
    FlowConfig flow = new FlowConfig("echo", "echo", null, null, null, json("{}"), null);
    assertThat(wire(McpToolList.tool(flow)))
        .isEqualTo(
            json(
                "{'name':'echo','description':'Runs the flow echo','inputSchema':{'type':'object'},"
                    + "'outputSchema':{'type':'object'},'execution':{'taskSupport':'optional'}}"));
  }

  @Test
  void aFlowsOwnSchemasDescriptionAndTaskSupportAreTheTools() {
    FlowConfig flow =
        new FlowConfig(
            "echo",
            "echo",
            null,
            "Says it back",
            null,
            json(
                "{'inputSchema':{'type':'object','required':['x']},"
                    + "'outputSchema':{'type':'object','properties':{'y':{'type':'number'}}},"
                    + "'taskSupport':'required'}"),
            null);
    assertThat(wire(McpToolList.tool(flow)))
        .isEqualTo(
            json(
                "{'name':'echo','description':'Says it back',"
                    + "'inputSchema':{'type':'object','required':['x']},"
                    + "'outputSchema':{'type':'object','properties':{'y':{'type':'number'}}},"
                    + "'execution':{'taskSupport':'required'}}"));
  }

  @Test
  void aCallThatCannotStartIsAToolErrorWithItsReason() {
    assertThat(wire(McpToolMethods.errorResult("no such tool")))
        .isEqualTo(json("{'content':[{'type':'text','text':'no such tool'}],'isError':true}"));
  }

  @Test
  void aTaskAugmentedCallAnswersTheWorkingTaskAndTheTextForTheModel() {
    ObjectNode expected =
        (ObjectNode)
            json(
                "{'task':{'taskId':'t-1','status':'working','statusMessage':'Task started',"
                    + "'createdAt':'2026-01-01T00:00:00Z','lastUpdatedAt':'2026-01-01T00:00:00Z',"
                    + "'ttl':null,'pollInterval':1000},'_meta':{}}");
    ((ObjectNode) expected.get("_meta"))
        .put("io.modelcontextprotocol/model-immediate-response", ToolCalls.resultText("t-1"));
    assertThat(wire(McpToolMethods.createdInSession("t-1", "2026-01-01T00:00:00Z")))
        .isEqualTo(expected);
  }
}
