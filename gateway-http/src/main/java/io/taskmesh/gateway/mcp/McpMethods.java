package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema.ListPromptsResult;
import io.taskmesh.gateway.mcp.wire.EmptyResult;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The one MCP method table: each method name with its handler in the era that defines it. A method
 * both eras share has one handler; one that an era answers its own way (the tool call, the tasks)
 * has one per era; a method an era does not define is -32601 there. The transports ({@link
 * McpSessionCalls}, {@link McpStateless}) only frame what the handlers answer. A result is a record
 * Jackson writes: one of the SDK's schema types ({@code McpSchema}) where it matches the wire, else
 * one of ours ({@code mcp.wire}).
 */
final class McpMethods {
  /** The two ways a client talks to the gateway. */
  enum Era {
    /** 2025-11-25 and older: {@code initialize} opens a session. */
    SESSION,
    /** 2026-07-28: each request on its own. */
    STATELESS
  }

  /**
   * One method's handler: its result (a schema record), done at once except for those that wait; a
   * null result once the request is being answered on a stream of its own.
   */
  @FunctionalInterface
  interface McpMethod {
    CompletableFuture<?> call(McpCall call);
  }

  private final Map<String, Map<Era, McpMethod>> table = new HashMap<>();

  /**
   * Every method the gateway answers. The session era has the lifecycle and resource subscriptions,
   * the sessionless era discovery, listening, prompts and the tasks extension.
   */
  static McpMethods of(
      McpLifecycle lifecycle,
      McpToolMethods tools,
      McpTasks tasks,
      McpTaskExtension extension,
      McpResources resources,
      McpListen listen) {
    McpMethods m = new McpMethods();
    m.session("initialize", c -> done(lifecycle.initialize(c)));
    m.session("ping", c -> done(EmptyResult.INSTANCE));
    m.session("logging/setLevel", c -> done(lifecycle.logLevel(c)));
    m.stateless("server/discover", c -> done(lifecycle.discover()));
    m.stateless(
        "subscriptions/listen",
        c -> {
          listen.open(c.http(), c.id(), c.params(), c.owner());
          return done(null);
        });
    m.both("tools/list", c -> done(tools.list()));
    m.session("tools/call", tools::callInSession);
    m.stateless("tools/call", c -> done(tools.callSessionless(c)));
    m.stateless("prompts/list", c -> done(new ListPromptsResult(List.of(), null, null)));
    m.stateless(
        "prompts/get",
        c -> {
          throw McpError.invalidParams("Unknown prompt: " + c.params().path("name"));
        });
    m.both("resources/list", c -> done(resources.list(c.params(), c.owner())));
    m.both("resources/templates/list", c -> done(McpResources.templates()));
    m.session("resources/read", c -> done(resources.read(c.params(), c.owner())));
    m.stateless("resources/read", c -> done(resources.readNamingUri(c.params(), c.owner())));
    m.session("resources/subscribe", c -> done(resources.subscribe(c.params(), c.session())));
    m.session("resources/unsubscribe", c -> done(resources.unsubscribe(c.params(), c.session())));
    m.session("tasks/get", c -> done(tasks.get(c.params(), c.owner())));
    m.session("tasks/list", c -> done(tasks.list(c.params(), c.owner())));
    m.session("tasks/cancel", c -> tasks.cancel(c.params(), c.owner()));
    m.session("tasks/result", c -> tasks.result(c.params(), c.session()));
    m.stateless("tasks/get", c -> done(extension.get(declaring(c), c.owner())));
    m.stateless("tasks/update", c -> done(extension.update(declaring(c), c.owner())));
    m.stateless("tasks/cancel", c -> done(extension.cancel(declaring(c), c.owner())));
    return m;
  }

  /** Answers a request of {@code era}; -32601 when the era does not define its method. */
  CompletableFuture<?> call(Era era, McpCall call) {
    McpMethod method = table.getOrDefault(call.method(), Map.of()).get(era);
    if (method == null) {
      throw new McpError(JsonRpcError.METHOD_NOT_FOUND, "Method not found: " + call.method());
    }
    return method.call(call);
  }

  private void both(String name, McpMethod method) {
    session(name, method);
    stateless(name, method);
  }

  private void session(String name, McpMethod method) {
    table.computeIfAbsent(name, n -> new EnumMap<>(Era.class)).put(Era.SESSION, method);
  }

  private void stateless(String name, McpMethod method) {
    table.computeIfAbsent(name, n -> new EnumMap<>(Era.class)).put(Era.STATELESS, method);
  }

  /** The params of a tasks method; -32021 when the client did not declare the extension. */
  private static JsonNode declaring(McpCall call) {
    if (!McpTaskExtension.declaredBy(call.params())) {
      throw McpTaskExtension.missingCapability();
    }
    return call.params();
  }

  static CompletableFuture<Object> done(Object result) {
    return CompletableFuture.completedFuture(result);
  }
}
