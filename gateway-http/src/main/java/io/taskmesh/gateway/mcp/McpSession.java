package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.sse.SseWriters;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's MCP session: who opened it, its streams and what it subscribed to. A Streamable HTTP
 * session has a standalone stream (GET) for notifications plus one stream per request answered over
 * SSE; a legacy SSE session has its one stream for everything.
 */
final class McpSession {
  private final String id;
  private final String owner;
  private final boolean legacy;
  private final SseWriters writers;
  private final McpStream notifications;
  private final Map<String, McpStream> requestStreams = new ConcurrentHashMap<>();
  private final Map<String, AutoCloseable> subscriptions = new ConcurrentHashMap<>();
  private final AtomicLong streams = new AtomicLong();
  private final Map<String, CompletableFuture<JsonNode>> asked = new ConcurrentHashMap<>();
  private final AtomicLong askIds = new AtomicLong();
  private volatile JsonNode capabilities;
  private volatile boolean hearsInfo;
  private volatile long lastUsedNanos = System.nanoTime();

  McpSession(String owner, boolean legacy, SseWriters writers) {
    this.id = UUID.randomUUID().toString();
    this.owner = owner;
    this.legacy = legacy;
    this.writers = writers;
    this.notifications = new McpStream(id + "-0", legacy, writers);
  }

  String id() {
    return id;
  }

  /** The owner its tasks carry (null when MCP auth is off). */
  String owner() {
    return owner;
  }

  boolean legacy() {
    return legacy;
  }

  /** What the client declared at {@code initialize}: which requests it can be asked. */
  JsonNode capabilities() {
    return capabilities;
  }

  void capabilities(JsonNode declared) {
    this.capabilities = declared != null && declared.isObject() ? declared : null;
  }

  /**
   * Whether the client asked, with {@code logging/setLevel}, for log messages at {@code info} (the
   * level FLY tokens are sent at): then a plain call hears its flow's tokens even without a
   * progress token, since the client said it wants logs.
   */
  boolean hearsInfo() {
    return hearsInfo;
  }

  void logLevel(String level) {
    this.hearsInfo = "debug".equals(level) || "info".equals(level);
  }

  /** Sends a request to the client; completes with its response message. */
  CompletableFuture<JsonNode> ask(String method, Object params) {
    String id = "taskmesh-" + askIds.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    asked.put(id, answer);
    send(Json.write(new JSONRPCRequest(McpSchema.JSONRPC_VERSION, method, id, params)));
    return answer;
  }

  /** Takes a response the client sent to one of our requests; others are ignored. */
  void answered(JsonNode response) {
    CompletableFuture<JsonNode> answer = asked.remove(response.path("id").asText());
    if (answer != null) {
      answer.complete(response);
    }
  }

  /** The stream notifications go to: the GET stream, or the legacy transport's only stream. */
  McpStream notifications() {
    return notifications;
  }

  /** A new stream for one request's answer (Streamable HTTP), findable again for resumption. */
  McpStream openRequestStream() {
    McpStream channel = new McpStream(id + "-" + streams.incrementAndGet(), false, writers);
    requestStreams.put(channel.id(), channel);
    return channel;
  }

  /** The stream an event id belongs to ({@code <stream>:<seq>}), for a reconnect. */
  Optional<McpStream> streamOf(String eventId) {
    if (eventId == null) {
      return Optional.empty();
    }
    int colon = eventId.lastIndexOf(':');
    String stream = colon < 0 ? eventId : eventId.substring(0, colon);
    if (stream.equals(notifications.id())) {
      return Optional.of(notifications);
    }
    return Optional.ofNullable(requestStreams.get(stream));
  }

  /** Sends a notification (or a legacy transport's answer) to the client. */
  void send(String json) {
    notifications.send(json);
  }

  /** Resource subscriptions by URI, each the handle that ends it. */
  Map<String, AutoCloseable> subscriptions() {
    return subscriptions;
  }

  /** Drops request streams that ended long ago: only the newest few can still be resumed. */
  void forgetOldStreams(int keep) {
    if (requestStreams.size() > keep) {
      requestStreams.keySet().stream()
          .sorted((a, b) -> Long.compare(seqOf(a), seqOf(b)))
          .limit(requestStreams.size() - keep)
          .toList()
          .forEach(requestStreams::remove);
    }
  }

  private static long seqOf(String stream) {
    return Long.parseLong(stream.substring(stream.lastIndexOf('-') + 1));
  }

  /** Notes that the client used the session (a request, or a stream attached). */
  void touch() {
    lastUsedNanos = System.nanoTime();
  }

  /** Whether the client has neither used the session nor held one of its streams for that long. */
  boolean idleFor(long nanos) {
    return System.nanoTime() - lastUsedNanos > nanos && !notifications.isAttached();
  }

  void close() {
    notifications.close();
    requestStreams.values().forEach(McpStream::close);
    subscriptions.values().forEach(Subscriptions::closeQuietly);
    subscriptions.clear();
    asked.values().forEach(a -> a.cancel(false));
  }
}
