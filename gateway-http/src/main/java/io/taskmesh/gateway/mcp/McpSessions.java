package io.taskmesh.gateway.mcp;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The open MCP sessions of this gateway, by id. */
final class McpSessions {
  private final Map<String, McpSession> open = new ConcurrentHashMap<>();

  McpSession open(String owner, boolean legacy) {
    McpSession s = new McpSession(owner, legacy);
    open.put(s.id(), s);
    return s;
  }

  Optional<McpSession> get(String id) {
    return id == null ? Optional.empty() : Optional.ofNullable(open.get(id));
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
