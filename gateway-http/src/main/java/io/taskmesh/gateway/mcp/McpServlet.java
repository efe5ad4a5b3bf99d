package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.http.HostCheck;
import io.taskmesh.gateway.http.ParsedBody;
import io.taskmesh.gateway.http.RefusedBodies;
import io.taskmesh.schemas.Json;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Both MCP transports over the method table ({@link McpSessionCalls}): Streamable HTTP on {@code
 * /mcp} (POST a message, GET the session's stream, DELETE the session) and the older HTTP+SSE
 * transport ({@code GET /mcp/sse} opens a session and its stream, messages are POSTed to {@code
 * /mcp/message}). A sessionless POST naming revision 2026-07-28 goes to {@link McpStateless}
 * instead. The filters in front ({@link McpErrorResponses}, {@link McpAuthFilter}, {@link
 * McpRequestGuard}) have already authenticated the request and checked its headers and body.
 */
final class McpServlet extends HttpServlet {
  static final String PRINCIPAL = "taskmesh.mcp.principal";
  private static final String SESSION = McpAuthFilter.SESSION_HEADER;
  private static final int RESUMABLE_STREAMS = 32;

  private final transient McpSessionCalls protocol;
  private final transient McpStateless stateless;
  private final transient McpSessions sessions;
  private final transient HostCheck hostCheck;
  private final transient McpAuth auth;

  McpServlet(
      McpSessionCalls protocol,
      McpStateless stateless,
      McpSessions sessions,
      HostCheck hostCheck,
      McpAuth auth) {
    this.protocol = protocol;
    this.stateless = stateless;
    this.sessions = sessions;
    this.hostCheck = hostCheck;
    this.auth = auth;
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
    boolean hostAllowed = hostCheck.hostAllowed(req.getHeader("Host"));
    if (!hostAllowed || !hostCheck.originAllowed(req.getHeader("Origin"))) {
      // an unread body would leave the connection unusable for the client's next request
      RefusedBodies.drain(req);
      (hostAllowed
              ? JsonRpcError.transport(403, JsonRpcError.INVALID_REQUEST, "Origin not allowed")
              : JsonRpcError.transport(421, JsonRpcError.INVALID_REQUEST, "Host not allowed"))
          .writeTo(res);
      return;
    }
    String path = req.getServletPath();
    String method = req.getMethod();
    if (McpEndpoints.STREAMABLE_PATH.equals(path)) {
      switch (method) {
        case "POST" -> streamablePost(req, res);
        case "GET" -> streamableGet(req, res);
        case "DELETE" -> streamableDelete(req, res);
        default -> notAllowed(req, res, "GET, POST, DELETE");
      }
    } else if (McpEndpoints.SSE_PATH.equals(path) && "GET".equals(method)) {
      legacyOpen(req);
    } else if (McpEndpoints.MESSAGE_PATH.equals(path) && "POST".equals(method)) {
      legacyMessage(req, res);
    } else if (McpEndpoints.SSE_PATH.equals(path)) {
      RefusedBodies.drain(req);
      res.sendError(404);
    } else {
      notAllowed(req, res, "POST");
    }
  }

  private static void notAllowed(HttpServletRequest req, HttpServletResponse res, String allow)
      throws IOException {
    RefusedBodies.drain(req);
    res.setHeader("Allow", allow);
    JsonRpcError.transport(405, JsonRpcError.INVALID_REQUEST, "method not allowed").writeTo(res);
  }

  private String owner(HttpServletRequest req) {
    Object principal = req.getAttribute(PRINCIPAL);
    return auth.owner(principal == null ? null : principal.toString());
  }

  /** The revision a request names: the header, or the 2026-07-28 per-request {@code _meta} key. */
  private static String requestedVersion(HttpServletRequest req, JsonNode message) {
    String header = req.getHeader("MCP-Protocol-Version");
    if (header != null) {
      return header.trim();
    }
    JsonNode meta = message.path("params").path("_meta").get(StatelessRequestCheck.META_VERSION);
    return meta != null && meta.isTextual() ? meta.asText() : null;
  }

  /** The message the request guard has already parsed. */
  private static JsonNode body(HttpServletRequest req) throws IOException {
    return ParsedBody.read(req);
  }

  private static boolean isRequest(JsonNode message) {
    return message.has("method") && message.hasNonNull("id");
  }

  private void streamablePost(HttpServletRequest req, HttpServletResponse res) throws IOException {
    JsonNode message = body(req);
    if (McpStateless.applies(req, message)) {
      stateless.serve(req, res, message, owner(req));
      return;
    }
    if ("initialize".equals(message.path("method").asText()) && isRequest(message)) {
      McpSession session = sessions.open(owner(req), false);
      Object answer = protocol.request(session, message).join();
      res.setHeader(SESSION, session.id());
      writeJson(res, answer);
      return;
    }
    String version = requestedVersion(req, message);
    if (version != null && !McpRevisions.bySession(version)) {
      // a session's requests speak the revision it was initialized with: never 2026-07-28
      McpFailures.unsupportedVersion(message.get("id"), version, McpRevisions.SESSION).writeTo(res);
      return;
    }
    Optional<McpSession> session =
        session(req, res, req.getHeader(SESSION), "Mcp-Session-Id", message.get("id"));
    if (session.isEmpty()) {
      return;
    }
    if (!isRequest(message)) {
      protocol.notification(session.get(), message);
      res.setStatus(202);
      return;
    }
    PendingStream own = new PendingStream();
    CompletableFuture<Object> answer = protocol.request(session.get(), message, own);
    if (answer.isDone() && !own.holdsAny()) {
      writeJson(res, answer.join());
      return;
    }
    // a request that waits (tools/call, tasks/result) is answered on its own resumable stream,
    // with what it sends meanwhile (a call's progress) before the answer
    McpStream stream = session.get().openRequestStream();
    session.get().forgetOldStreams(RESUMABLE_STREAMS);
    AsyncContext async = req.startAsync();
    stream.attach(async, 0, true);
    own.attach(stream::send);
    answer.thenAccept(m -> stream.sendLast(Json.write(m)));
  }

  /**
   * The session's stream: a fresh one, or with {@code Last-Event-ID} the stream that event was on,
   * from the event after it.
   */
  private void streamableGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    Optional<McpSession> session =
        session(req, res, req.getHeader(SESSION), "Mcp-Session-Id", null);
    if (session.isEmpty()) {
      return;
    }
    String lastEventId = req.getHeader("Last-Event-ID");
    Optional<McpStream> resumed = session.get().streamOf(lastEventId);
    AsyncContext async = req.startAsync();
    if (resumed.isPresent()) {
      resumed.get().attach(async, Math.max(0, resumed.get().seqOf(lastEventId)), false);
    } else {
      session.get().notifications().attachFresh(async);
    }
  }

  private void streamableDelete(HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    Optional<McpSession> session =
        session(req, res, req.getHeader(SESSION), "Mcp-Session-Id", null);
    if (session.isPresent()) {
      sessions.close(session.get());
      res.setStatus(204);
    }
  }

  private void legacyOpen(HttpServletRequest req) {
    McpSession session = sessions.open(owner(req), true);
    AsyncContext async = req.startAsync();
    async.addListener(new OnStreamEnd(() -> sessions.close(session)));
    McpStream stream = session.notifications();
    stream.attachFresh(async);
    stream.sendUnkept("endpoint", McpEndpoints.MESSAGE_PATH + "?sessionId=" + session.id());
  }

  private void legacyMessage(HttpServletRequest req, HttpServletResponse res) throws IOException {
    JsonNode message = body(req);
    Optional<McpSession> session =
        session(
            req,
            res,
            req.getParameter("sessionId"),
            "sessionId query parameter",
            message.get("id"));
    if (session.isEmpty()) {
      return;
    }
    if (isRequest(message)) {
      protocol.request(session.get(), message).thenAccept(m -> session.get().send(Json.write(m)));
    } else {
      protocol.notification(session.get(), message);
    }
    res.setStatus(202);
  }

  /** The session a request names: 400 without one, 404 for an unknown or foreign one. */
  private Optional<McpSession> session(
      HttpServletRequest req, HttpServletResponse res, String id, String what, JsonNode requestId)
      throws IOException {
    if (id == null || id.isBlank()) {
      new JsonRpcError(400, requestId, JsonRpcError.INVALID_REQUEST, "Bad Request: missing " + what)
          .writeTo(res);
      return Optional.empty();
    }
    Optional<McpSession> session = sessions.get(id);
    boolean legacyPath = McpEndpoints.MESSAGE_PATH.equals(req.getServletPath());
    if (session.isEmpty()
        || session.get().legacy() != legacyPath
        || !Objects.equals(session.get().owner(), owner(req))) {
      JsonRpcError.transport(404, JsonRpcError.INVALID_REQUEST, "session not found").writeTo(res);
      return Optional.empty();
    }
    return session;
  }

  /** One JSON-RPC message as a 200 {@code application/json} answer (both eras). */
  static void writeJson(HttpServletResponse res, Object message) throws IOException {
    byte[] bytes = Json.write(message).getBytes(StandardCharsets.UTF_8);
    res.setStatus(200);
    res.setContentType("application/json");
    res.setCharacterEncoding("UTF-8");
    res.setContentLength(bytes.length);
    res.getOutputStream().write(bytes);
  }
}
