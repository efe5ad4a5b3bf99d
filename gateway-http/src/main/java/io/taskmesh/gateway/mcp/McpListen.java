package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema.ResourcesUpdatedNotification;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.mcp.wire.ExtensionTask;
import io.taskmesh.gateway.mcp.wire.ListenMessages;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Acknowledged;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Finished;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Honored;
import io.taskmesh.gateway.mcp.wire.ListenMessages.Stamp;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.servicekit.sse.SseWriters;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code subscriptions/listen} of MCP 2026-07-28: the one stream on which a sessionless client
 * hears what the session era pushed unasked. The answer is an SSE stream that opens with {@code
 * notifications/subscriptions/acknowledged} (what of the filter is honored) and then carries, each
 * stamped with the subscription id: {@code notifications/tasks} (the tasks extension's full task
 * state, progress in its {@code statusMessage}) for {@code taskIds}, {@code
 * notifications/resources/updated} for {@code resourceSubscriptions}, and {@code
 * notifications/tools/list_changed} for {@code toolsListChanged}. Only the caller's own tasks are
 * honored; a foreign or unknown id is left out of the acknowledgement, not revealed. Once every
 * honored task is final and no list-change is wanted the stream ends with the listen result, the
 * revision's graceful close.
 */
final class McpListen {
  /** Tasks and resources one listen may follow: a bound on the feed subscriptions it holds. */
  static final int MAX_ITEMS = 100;

  private final McpTasks tasks;
  private final SseWriters writers;
  private final Map<String, Listening> open = new ConcurrentHashMap<>();

  /**
   * @param writers the writer threads of the listens' streams
   */
  McpListen(McpTasks tasks, SseWriters writers) {
    this.tasks = tasks;
    this.writers = writers;
  }

  /**
   * Checks the filter (an {@link McpError} before anything is written) and answers the request with
   * the stream.
   */
  void open(HttpServletRequest req, JsonNode id, JsonNode params, String owner) {
    JsonNode filter = params == null ? null : params.get("notifications");
    if (filter == null || !filter.isObject()) {
      throw McpError.invalidParams("'notifications' must be an object naming what to listen for");
    }
    Set<String> taskIds = strings(filter, "taskIds");
    Set<String> uris = strings(filter, "resourceSubscriptions");
    if (taskIds.size() + uris.size() > MAX_ITEMS) {
      throw McpError.invalidParams(
          "a listen follows at most " + MAX_ITEMS + " tasks and resources together");
    }
    if (!taskIds.isEmpty() && !McpTaskExtension.declaredBy(params)) {
      throw McpTaskExtension.missingCapability();
    }
    boolean toolsChanged = filter.path("toolsListChanged").asBoolean(false);
    Map<String, TaskState> followedTasks = new LinkedHashMap<>();
    taskIds.forEach(t -> tasks.find(t, owner).ifPresent(s -> followedTasks.put(t, s)));
    Map<String, TaskState> followedUris = new LinkedHashMap<>();
    uris.forEach(u -> taskOf(u, owner).ifPresent(s -> followedUris.put(u, s)));

    Honored honored =
        new Honored(
            toolsChanged ? Boolean.TRUE : null,
            filter.has("taskIds") ? List.copyOf(followedTasks.keySet()) : null,
            filter.has("resourceSubscriptions") ? List.copyOf(followedUris.keySet()) : null);

    String key = owner + "\n" + Json.write(id);
    Listening listening = new Listening(id, key, toolsChanged);
    Listening before = open.put(key, listening);
    if (before != null) {
      before.close(); // the client reused the id: the newer listen replaces the older
    }
    AsyncContext async = req.startAsync();
    listening.channel.attach(async, 0, false);
    async.addListener(new OnStreamEnd(listening::close));
    listening.send(
        "notifications/subscriptions/acknowledged",
        new Acknowledged(honored, ListenMessages.meta(id)));
    followedTasks.values().forEach(s -> listening.followTask(s, owner));
    followedUris.forEach((u, s) -> listening.followResource(u, s, owner));
    listening.finishIfDone();
  }

  /** A {@code notifications/cancelled} naming a listen of the caller ends it. */
  void cancel(String owner, JsonNode requestId) {
    Listening l = open.remove(owner + "\n" + Json.write(requestId));
    if (l != null) {
      l.close();
    }
  }

  void toolsChanged() {
    open.values().forEach(Listening::toolsChanged);
  }

  /** A comment on each open stream, so a client that went away is noticed and let go. */
  void closeAll() {
    open.values().forEach(Listening::close);
    open.clear();
  }

  private Optional<TaskState> taskOf(String uri, String owner) {
    if (!uri.startsWith(McpResources.PREFIX)) {
      return Optional.empty();
    }
    String id = uri.substring(McpResources.PREFIX.length());
    return id.isEmpty() || id.contains("/") ? Optional.empty() : tasks.find(id, owner);
  }

  private static Set<String> strings(JsonNode filter, String field) {
    JsonNode values = filter.get(field);
    Set<String> out = new LinkedHashSet<>();
    if (values == null || values.isNull()) {
      return out;
    }
    if (!values.isArray()) {
      throw McpError.invalidParams("'notifications." + field + "' must be an array of strings");
    }
    for (JsonNode v : values) {
      if (!v.isTextual()) {
        throw McpError.invalidParams("'notifications." + field + "' must be an array of strings");
      }
      out.add(v.asText());
    }
    return out;
  }

  /** One open listen: its stream, the feed subscriptions it holds, what is still to come. */
  private final class Listening {
    private final JsonNode id;
    private final boolean toolsChanged;
    private final String key;
    private final McpStream channel = new McpStream("listen-" + UUID.randomUUID(), false, writers);
    private final List<AutoCloseable> subscriptions = new CopyOnWriteArrayList<>();
    private final Set<String> pending = new HashSet<>();
    private final Map<String, String> lastSent = new HashMap<>();
    private final Map<String, Long> lastSeq = new HashMap<>();
    // not guarded by this object's lock: a container thread ending the connection closes it
    private final AtomicBoolean over = new AtomicBoolean();

    Listening(JsonNode id, String key, boolean toolsChanged) {
      this.id = id;
      this.key = key;
      this.toolsChanged = toolsChanged;
    }

    synchronized void followTask(TaskState initial, String owner) {
      String item = "task:" + initial.id();
      pending.add(item);
      hold(tasks.watch(initial.id(), owner, s -> onTask(item, s)));
      onTask(item, initial);
    }

    synchronized void followResource(String uri, TaskState initial, String owner) {
      String item = "resource:" + uri;
      if (isFinal(initial)) {
        return; // a final task's resource does not change any more
      }
      pending.add(item);
      lastSeq.put(item, initial.seq());
      hold(tasks.watch(initial.id(), owner, s -> onResource(item, uri, s)));
    }

    /** Each change of the task's status or status message, as tasks/get would show it. */
    private synchronized void onTask(String item, TaskState s) {
      if (over.get() || !newer(item, s)) {
        return;
      }
      ExtensionTask task = McpTaskExtension.detailed(s);
      String seen = task.status() + "\n" + task.statusMessage();
      if (!seen.equals(lastSent.put(item, seen))) {
        send("notifications/tasks", task.withMeta(ListenMessages.meta(id)));
      }
      settle(item, s);
    }

    private synchronized void onResource(String item, String uri, TaskState s) {
      if (over.get() || !newer(item, s)) {
        return;
      }
      send(
          "notifications/resources/updated",
          new ResourcesUpdatedNotification(uri, ListenMessages.meta(id)));
      settle(item, s);
    }

    /** States are read on several threads: an older one may come after a newer one. */
    private boolean newer(String item, TaskState s) {
      Long last = lastSeq.get(item);
      if (last != null && s.seq() <= last) {
        return false;
      }
      lastSeq.put(item, s.seq());
      return true;
    }

    private void settle(String item, TaskState s) {
      if (isFinal(s)) {
        pending.remove(item);
        finishIfDone();
      }
    }

    synchronized void toolsChanged() {
      if (toolsChanged && !over.get()) {
        send("notifications/tools/list_changed", new Stamp(ListenMessages.meta(id)));
      }
    }

    /** Nothing more can come: the listen result closes the subscription gracefully. */
    synchronized void finishIfDone() {
      if (over.get() || !pending.isEmpty() || toolsChanged) {
        return;
      }
      if (release()) {
        channel.sendLast(Json.write(McpSessionCalls.success(id, Finished.of(id))));
      }
    }

    void close() {
      if (release()) {
        channel.close();
      }
    }

    private void hold(AutoCloseable subscription) {
      subscriptions.add(subscription);
      if (over.get()) {
        Subscriptions.closeQuietly(subscription); // closed while it was being opened
      }
    }

    /** Lets go of the feed once; whether this call did. */
    private boolean release() {
      if (!over.compareAndSet(false, true)) {
        return false;
      }
      subscriptions.forEach(Subscriptions::closeQuietly);
      subscriptions.clear();
      open.remove(key, this);
      return true;
    }

    /** Sends a notification whose params carry this listen's stamp. */
    private void send(String method, Object params) {
      channel.send(McpTasks.notification(method, params));
    }
  }

  private static boolean isFinal(TaskState s) {
    return s.status() != null && s.status().isFinal();
  }
}
