package io.taskmesh.gateway.mcp;

import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.exact;
import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.json;
import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.state;
import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.wire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.modelcontextprotocol.spec.McpSchema.ListPromptsResult;
import io.taskmesh.gateway.follow.TaskViews;
import io.taskmesh.gateway.mcp.wire.EmptyResult;
import io.taskmesh.gateway.mcp.wire.ListenMessages;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Acknowledged;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Finished;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Honored;
import io.taskmesh.gateway.mcp.wire.TaskList;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.TaskListing;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The exact JSON of the results, error bodies and stream messages the method table answers with,
 * now records: what a client reads is what the JSON trees they replaced wrote (absent members stay
 * absent, a null id stays a written null).
 */
class McpResultsJsonTest {
  private static final TaskState RUNNING = state(TaskStatus.RUNNING, "busy", null, null, null);

  @Test
  void aTaskIsAResourceNamedForItsFlowAndStatus() {
    assertThat(wire(McpResources.page(new TaskListing.Page(List.of(RUNNING), 1, 0))))
        .isEqualTo(
            json(
                "{'resources':[{'uri':'taskmesh://tasks/t-1','name':'task t-1',"
                    + "'title':'echo (running)','mimeType':'application/json'}]}"));
  }

  @Test
  void aPageWithMoreAfterItHasANextCursor() {
    assertThat(
            wire(McpResources.page(new TaskListing.Page(List.of(RUNNING), 2, 0))).has("nextCursor"))
        .isTrue();
  }

  @Test
  void theOneTemplateIsATaskById() {
    assertThat(wire(McpResources.templates()))
        .isEqualTo(
            json(
                "{'resourceTemplates':[{'uriTemplate':'taskmesh://tasks/{id}','name':'task',"
                    + "'title':'A taskmesh task by id','description':'The state of one of your"
                    + " tasks: status, progress, result','mimeType':'application/json'}]}"));
  }

  @Test
  void aReadResourceIsTheTaskJsonAsText() {
    String uri = "taskmesh://tasks/t-1";
    assertThat(wire(McpResources.contents(uri, RUNNING)))
        .isEqualTo(
            Json.MAPPER
                .createObjectNode()
                .set(
                    "contents",
                    Json.MAPPER
                        .createArrayNode()
                        .add(
                            Json.MAPPER
                                .createObjectNode()
                                .put("uri", uri)
                                .put("mimeType", "application/json")
                                .put("text", Json.write(TaskViews.task(RUNNING))))));
  }

  @Test
  void anErrorWithoutAKnownIdWritesANullId() {
    assertThat(exact(JsonRpcError.transport(400, JsonRpcError.INVALID_REQUEST, "bad").body()))
        .isEqualTo(
            exact(
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"bad\"}}"));
  }

  @Test
  void anErrorWithDataWritesItUnderTheError() {
    JsonRpcError e =
        McpFailures.unsupportedVersion(IntNode.valueOf(7), "1999-01-01", List.of("2026-07-28"));
    assertThat(exact(e.body()))
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','id':7,'error':{'code':-32022,'message':'Unsupported protocol"
                    + " version: 1999-01-01','data':{'supported':['2026-07-28'],"
                    + "'requested':'1999-01-01'}}}"));
  }

  @Test
  void aMissingExtensionNamesItUnderRequiredCapabilities() {
    McpError e = McpTaskExtension.missingCapability();
    assertThat(wire(e.data()))
        .isEqualTo(
            json("{'requiredCapabilities':{'extensions':{'io.modelcontextprotocol/tasks':{}}}}"));
  }

  @Test
  void emptyResultsAreEmptyObjects() {
    assertThat(wire(EmptyResult.INSTANCE)).isEqualTo(json("{}"));
    assertThat(wire(new ListPromptsResult(List.of(), null, null)))
        .isEqualTo(json("{'prompts':[]}"));
  }

  @Test
  void aResponseCarriesItsIdAndResult() {
    assertThat(wire(McpSessionCalls.success(TextNode.valueOf("r1"), EmptyResult.INSTANCE)))
        .isEqualTo(json("{'jsonrpc':'2.0','id':'r1','result':{}}"));
  }

  @Test
  void aTaskListHasNoCursorOnItsLastPage() {
    assertThat(wire(new TaskList(List.of(McpTaskViews.task(RUNNING)), null)))
        .isEqualTo(
            exact(
                "{\"tasks\":[{\"taskId\":\"t-1\",\"status\":\"working\",\"statusMessage\":\"busy\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttl\":null,\"pollInterval\":1000}]}"));
  }

  @Test
  void theQuestionOfAPausedTaskIsATextFormNamingTheTask() {
    TaskState paused = state(TaskStatus.PAUSED, null, null, null, null);
    assertThat(wire(McpInputAsker.elicitation("t-1", paused)))
        .isEqualTo(
            json(
                "{'message':'Your name?','requestedSchema':{'type':'object','properties':"
                    + "{'text':{'type':'string','description':'the input the task continues"
                    + " with'}},'required':['text']},"
                    + "'_meta':{'io.modelcontextprotocol/related-task':{'taskId':'t-1'}}}"));
  }

  @Test
  void aListenIsAcknowledgedWithWhatItHonors() {
    Object ack =
        new Acknowledged(
            new Honored(null, List.of("t-1"), null), ListenMessages.meta(TextNode.valueOf("l")));
    assertThat(exact(McpTasks.notification("notifications/subscriptions/acknowledged", ack)))
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','method':'notifications/subscriptions/acknowledged','params':"
                    + "{'notifications':{'taskIds':['t-1']},"
                    + "'_meta':{'io.modelcontextprotocol/subscriptionId':'l'}}}"));
  }

  @Test
  void aListenEndsWithACompleteResultNamingIt() {
    Object id = TextNode.valueOf("l");
    assertThat(wire(McpSessionCalls.success(TextNode.valueOf("l"), Finished.of(id))))
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','id':'l','result':{'resultType':'complete',"
                    + "'_meta':{'io.modelcontextprotocol/subscriptionId':'l'}}}"));
  }

  @Test
  void aTaskHeardOnAListenCarriesTheStamp() {
    assertThat(
            wire(McpTaskExtension.detailed(RUNNING)
                    .withMeta(ListenMessages.meta(TextNode.valueOf("l"))))
                .at("/_meta")
                .equals(json("{'io.modelcontextprotocol/subscriptionId':'l'}")))
        .isTrue();
    assertThat(wire(Map.of("k", 1))).isEqualTo(json("{'k':1}"));
  }
}
