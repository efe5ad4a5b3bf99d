package io.taskmesh.gateway.mcp;

import java.util.List;

/**
 * The MCP protocol revisions the gateway speaks, newest first: the one list both eras answer from.
 * The newest is sessionless; the others are negotiated by {@code initialize} and kept by the
 * session.
 */
final class McpRevisions {
  /** The sessionless revision: each request carries it ({@link McpStateless}). */
  static final String STATELESS = "2026-07-28";

  /** What {@code initialize} answers when the client asks for a revision we do not speak. */
  static final String SESSION_LATEST = "2025-11-25";

  /** Every revision, newest first. */
  static final List<String> ALL =
      List.of(STATELESS, SESSION_LATEST, "2025-06-18", "2025-03-26", "2024-11-05");

  /** The revisions a session can be initialized with. */
  static final List<String> SESSION = ALL.stream().filter(v -> !STATELESS.equals(v)).toList();

  private McpRevisions() {}

  /** Whether a client that names {@code version} speaks the session era. */
  static boolean bySession(String version) {
    return SESSION.contains(version);
  }
}
