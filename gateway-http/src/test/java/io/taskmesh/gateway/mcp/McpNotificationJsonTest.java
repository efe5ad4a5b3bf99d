package io.taskmesh.gateway.mcp;

import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.exact;
import static io.taskmesh.gateway.mcp.McpTaskViewsJsonTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.gateway.mcp.wire.ProgressParams;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exact JSON of the notifications the gateway sends as a task moves. */
class McpNotificationJsonTest {
  @Test
  void aNotificationIsJsonRpcWithItsMethodAndParams() {
    assertThat(exact(McpTasks.notification("notifications/tools/list_changed", Map.of())))
        .isEqualTo(
            json("{'jsonrpc':'2.0','method':'notifications/tools/list_changed','params':{}}"));
  }

  @Test
  void theFirstProgressIsAWholeZeroNamingTheTask() {
    String sent =
        McpTasks.notification(
            "notifications/progress", ProgressParams.percent(json("'tok'"), 0, "task t-1 started"));
    assertThat(exact(sent))
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','method':'notifications/progress','params':{'progressToken':'tok',"
                    + "'progress':0,'total':100,'message':'task t-1 started'}}"));
  }

  @Test
  void progressWithoutAnActorHasNoMessageAndKeepsANumericToken() {
    String sent =
        McpTasks.notification(
            "notifications/progress", ProgressParams.percent(json("7"), 40.0, null));
    assertThat(exact(sent))
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','method':'notifications/progress',"
                    + "'params':{'progressToken':7,'progress':40.0,'total':100}}"));
  }

  @Test
  void aFlyEventIsAnInfoMessageOfTheFlyLoggerNamingTheTask() {
    assertThat(exact(McpTasks.flyMessage("t-1", json("{'kind':'token','text':'hi'}"))))
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','method':'notifications/message','params':{'level':'info',"
                    + "'logger':'taskmesh/fly','data':{'taskId':'t-1',"
                    + "'event':{'kind':'token','text':'hi'}}}}"));
  }
}
