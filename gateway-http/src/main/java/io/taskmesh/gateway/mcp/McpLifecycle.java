package io.taskmesh.gateway.mcp;

import io.modelcontextprotocol.spec.McpSchema.Implementation;
import io.taskmesh.gateway.mcp.wire.DiscoverResult;
import io.taskmesh.gateway.mcp.wire.EmptyResult;
import io.taskmesh.gateway.mcp.wire.InitializeResult;
import io.taskmesh.gateway.mcp.wire.ServerCapabilities;
import java.util.Map;

/**
 * How a client learns what the server is and speaks: {@code initialize} (and the session's log
 * level) in the session era, {@code server/discover} in the sessionless one.
 */
final class McpLifecycle {
  private final String serverVersion;

  McpLifecycle(String serverVersion) {
    this.serverVersion = serverVersion;
  }

  /** Agrees on a revision (the client's when we speak it) and notes what the client can do. */
  InitializeResult initialize(McpCall call) {
    String asked = call.params().path("protocolVersion").asText("");
    String chosen = McpRevisions.bySession(asked) ? asked : McpRevisions.SESSION_LATEST;
    call.session().capabilities(call.params().path("capabilities"));
    return initializeResult(chosen);
  }

  InitializeResult initializeResult(String revision) {
    return new InitializeResult(
        revision, ServerCapabilities.sessionEra(), serverInfo(), SESSION_INSTRUCTIONS);
  }

  static final String SESSION_INSTRUCTIONS =
      "Each tool runs a taskmesh flow and answers the flow's result when it ends (a failure"
          + " is a tool error naming the failing actor). A call that outlives the wait answers"
          + " the task id instead; call a tool as an MCP task (params.task) to follow it with"
          + " tasks/get and tasks/result, or read the task as the resource taskmesh://tasks/{id}.";

  static final String SESSIONLESS_INSTRUCTIONS =
      "Each tool runs a taskmesh flow as a long-running task. Declare the "
          + McpTaskExtension.ID
          + " extension to get the task back from tools/call and follow it with tasks/get"
          + " (tasks/update answers its input requests) or hear it on subscriptions/listen"
          + " (taskIds); without the extension, a call is answered on its own stream with the"
          + " task's progress (given a progressToken) and the flow's result. Each task is also the resource"
          + " taskmesh://tasks/{id}.";

  private Implementation serverInfo() {
    return new Implementation("taskmesh", null, serverVersion, null, null, null);
  }

  /** {@code logging/setLevel}: the session hears its flows' tokens at info and below. */
  EmptyResult logLevel(McpCall call) {
    call.session().logLevel(call.params().path("level").asText(null));
    return EmptyResult.INSTANCE;
  }

  /** {@code server/discover}: every revision we speak and what this one offers. */
  DiscoverResult discover() {
    // list changes are delivered on subscriptions/listen; the prompt list (empty) never changes
    return new DiscoverResult(
        McpRevisions.ALL,
        ServerCapabilities.sessionless(McpTaskExtension.ID),
        SESSIONLESS_INSTRUCTIONS,
        Map.of(DiscoverResult.SERVER_INFO, serverInfo()));
  }
}
