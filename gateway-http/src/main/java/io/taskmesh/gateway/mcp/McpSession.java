package io.taskmesh.gateway.mcp;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's MCP session: who opened it, the revision it speaks, its streams and what it
 * subscribed to. A Streamable HTTP session has a standalone stream (GET) for notifications plus one
 * stream per request answered over SSE; a legacy SSE session has its one stream for everything.
 */
final class McpSession {
  private final String id;
  private final String owner;
  private final boolean legacy;
  private final SseChannel notifications;
  private final Map<String, SseChannel> requestStreams = new ConcurrentHashMap<>();
  private final Map<String, AutoCloseable> subscriptions = new ConcurrentHashMap<>();
  private final AtomicLong streams = new AtomicLong();
  private volatile String protocolVersion = McpProtocol.LATEST;
  private volatile boolean closed;

  McpSession(String owner, boolean legacy) {
    this.id = UUID.randomUUID().toString();
    this.owner = owner;
    this.legacy = legacy;
    this.notifications = new SseChannel(id + "-0", legacy);
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

  String protocolVersion() {
    return protocolVersion;
  }

  void protocolVersion(String version) {
    this.protocolVersion = version;
  }

  /** The stream notifications go to: the GET stream, or the legacy transport's only stream. */
  SseChannel notifications() {
    return notifications;
  }

  /** A new stream for one request's answer (Streamable HTTP), findable again for resumption. */
  SseChannel openRequestStream() {
    SseChannel channel = new SseChannel(id + "-" + streams.incrementAndGet(), false);
    requestStreams.put(channel.id(), channel);
    return channel;
  }

  /** The stream an event id belongs to ({@code <stream>:<seq>}), for a reconnect. */
  Optional<SseChannel> streamOf(String eventId) {
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

  void keepAlive() {
    notifications.keepAlive();
    requestStreams.values().forEach(SseChannel::keepAlive);
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

  boolean closed() {
    return closed;
  }

  void close() {
    closed = true;
    notifications.close();
    requestStreams.values().forEach(SseChannel::close);
    subscriptions.values().forEach(McpTasks::closeQuietly);
    subscriptions.clear();
  }
}
