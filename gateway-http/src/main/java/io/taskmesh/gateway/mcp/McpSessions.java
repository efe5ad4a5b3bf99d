package io.taskmesh.gateway.mcp;

import io.taskmesh.servicekit.sse.SseWriters;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The open MCP sessions of this gateway, by id. */
final class McpSessions {
  private final Map<String, McpSession> open = new ConcurrentHashMap<>();
  private final SseWriters writers;

  /**
   * @param writers the writer threads of the sessions' streams
   */
  McpSessions(SseWriters writers) {
    this.writers = writers;
  }

  McpSession open(String owner, boolean legacy) {
    McpSession s = new McpSession(owner, legacy, writers);
    open.put(s.id(), s);
    return s;
  }

  Optional<McpSession> get(String id) {
    Optional<McpSession> s = id == null ? Optional.empty() : Optional.ofNullable(open.get(id));
    s.ifPresent(McpSession::touch);
    return s;
  }

  /** Who opened an open session (null when MCP auth is off), without counting as a use. */
  Optional<String> ownerOf(String id) {
    McpSession s = id == null ? null : open.get(id);
    return s == null ? Optional.empty() : Optional.ofNullable(s.owner());
  }

  /**
   * Ends sessions a client left without {@code DELETE}: unused and without an open stream for
   * {@code idle}. A client that comes back gets 404 and initializes again, as the transport says.
   */
  void closeIdle(Duration idle) {
    open.values().stream().filter(s -> s.idleFor(idle.toNanos())).toList().forEach(this::close);
  }

  void close(McpSession session) {
    open.remove(session.id());
    session.close();
  }

  Collection<McpSession> all() {
    return open.values();
  }

  void closeAll() {
    open.values().forEach(this::close);
  }
}
