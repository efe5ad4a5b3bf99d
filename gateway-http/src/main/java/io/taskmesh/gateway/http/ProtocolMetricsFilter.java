package io.taskmesh.gateway.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts MCP and A2A requests by protocol, method and result ({@code
 * taskmesh_protocol_requests_total}) in front of the protocol code, so the MCP and A2A classes stay
 * untouched. The method is the JSON-RPC {@code method} of the body, or for the A2A 1.0 REST binding
 * the HTTP method and route; the result is {@code error} when the answer is a 4xx/5xx or a JSON-RPC
 * error, {@code unauthorized} for 401/403, {@code ok} otherwise. Only the first {@value
 * #SNIFF_BYTES} bytes of a JSON answer are kept to look for the error.
 *
 * <p>Two things a client controls are kept out of it (issue 33): the body is never read here, only
 * the first {@value #SNIFF_BYTES} bytes the protocol code reads (after its auth) are looked at
 * afterwards, so a client without credentials cannot make the gateway wait for a slow body; and
 * every label value comes from a fixed list ({@code other} for the rest), so requests with made-up
 * method names or paths cannot add series without bound.
 */
public final class ProtocolMetricsFilter implements Filter {
  static final int SNIFF_BYTES = 8192;

  /** The JSON-RPC methods the gateway serves (MCP, A2A 0.3 and 1.0): the only method labels. */
  static final Set<String> KNOWN_METHODS =
      Set.of(
          // MCP
          "initialize",
          "ping",
          "tools/list",
          "tools/call",
          "tasks/get",
          "tasks/result",
          "tasks/list",
          "tasks/cancel",
          "tasks/update",
          "resources/list",
          "resources/read",
          "resources/subscribe",
          "resources/unsubscribe",
          "resources/templates/list",
          "prompts/list",
          "prompts/get",
          "logging/setLevel",
          "server/discover",
          "subscriptions/listen",
          "notifications/initialized",
          "notifications/cancelled",
          "notifications/progress",
          "elicitation/create",
          // A2A 0.3
          "message/send",
          "message/stream",
          "tasks/resubscribe",
          "tasks/pushNotificationConfig/set",
          "tasks/pushNotificationConfig/get",
          "tasks/pushNotificationConfig/list",
          "tasks/pushNotificationConfig/delete",
          "agent/getAuthenticatedExtendedCard",
          "agent/authenticatedExtendedCard",
          // A2A 1.0
          "SendMessage",
          "SendStreamingMessage",
          "GetTask",
          "ListTasks",
          "CancelTask",
          "SubscribeToTask",
          "CreateTaskPushNotificationConfig",
          "GetTaskPushNotificationConfig",
          "ListTaskPushNotificationConfigs",
          "DeleteTaskPushNotificationConfig",
          "GetExtendedAgentCard");

  static final String OTHER = "other";

  private static final Set<String> HTTP_METHODS =
      Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");

  /** The routes the filter sees, with ids replaced ({@link #route}); others are counted as one. */
  private static final Set<String> KNOWN_ROUTES =
      Set.of(
          "/mcp",
          "/mcp/sse",
          "/mcp/message",
          "/a2a",
          "/a2a/v1",
          "/a2a/v1/message:send",
          "/a2a/v1/message:stream",
          "/a2a/v1/tasks",
          "/a2a/v1/tasks/{id}",
          "/a2a/v1/tasks/{id}:cancel",
          "/a2a/v1/tasks/{id}:subscribe",
          "/a2a/v1/tasks/{id}/pushNotificationConfigs",
          "/a2a/v1/tasks/{id}/pushNotificationConfigs/{id}",
          "/a2a/v1/extendedAgentCard",
          "/a2a/v1/.well-known/agent-card.json");

  private static final Set<String> V1_WORDS =
      Set.of(
          "message:send",
          "message:stream",
          "tasks",
          "pushNotificationConfigs",
          "extendedAgentCard",
          ".well-known",
          "agent-card.json");

  private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) req;
    String path = http.getRequestURI();
    String protocol = path.startsWith("/mcp") ? "mcp" : "a2a";
    SniffedRequest sniffed = new SniffedRequest(http);
    Sniffing sniff = new Sniffing((HttpServletResponse) res);
    try {
      chain.doFilter(sniffed, sniff);
    } finally {
      String method = null;
      if ("POST".equals(http.getMethod()) && isJson(http.getContentType())) {
        // the protocol code has parsed the body (MCP): its tree, else the start it read
        method =
            ParsedBody.kept(http)
                .map(ProtocolMetricsFilter::jsonRpcMethod)
                .orElseGet(() -> jsonRpcMethod(sniffed.head()));
      }
      if (method == null) {
        method = httpMethod(http.getMethod()) + " " + route(path);
      }
      counter(protocol, method, sniff.result()).increment();
    }
  }

  /** The counter of one tag set, registered on its first request and looked up after that. */
  private Counter counter(String protocol, String method, String result) {
    return counters.computeIfAbsent(
        List.of(protocol, method, result),
        k ->
            Counter.builder("taskmesh.protocol.requests")
                .description("MCP and A2A requests by protocol, method and result")
                .tag("protocol", protocol)
                .tag("method", method)
                .tag("result", result)
                .register(ServiceMetrics.registry()));
  }

  private static boolean isJson(String contentType) {
    return contentType != null && contentType.toLowerCase(Locale.ROOT).contains("json");
  }

  private static String httpMethod(String method) {
    return HTTP_METHODS.contains(method) ? method : OTHER;
  }

  /**
   * The JSON-RPC method of a body's start, when it is one we serve ({@value #OTHER} otherwise);
   * {@code batch} for an array, {@code invalid} when unreadable, {@code response} for a JSON-RPC
   * response; null when the protocol code read nothing (a refused request: counted by its route).
   */
  static String jsonRpcMethod(byte[] start) {
    if (start.length == 0) {
      return null;
    }
    try (JsonParser p = Json.MAPPER.getFactory().createParser(start)) {
      JsonToken first = p.nextToken();
      if (first == JsonToken.START_ARRAY) {
        return "batch";
      }
      if (first != JsonToken.START_OBJECT) {
        return "invalid";
      }
      boolean response = false;
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("method".equals(name)) {
          return value == JsonToken.VALUE_STRING && KNOWN_METHODS.contains(p.getText())
              ? p.getText()
              : OTHER;
        }
        response |= "result".equals(name) || "error".equals(name);
        p.skipChildren();
      }
      return response ? "response" : "invalid";
    } catch (IOException | RuntimeException cut) {
      // malformed, or cut off before the method: the protocol code has answered it either way
      return "invalid";
    }
  }

  /** As {@link #jsonRpcMethod(byte[])}, for a body already parsed (a missing node: not JSON). */
  static String jsonRpcMethod(JsonNode body) {
    if (body.isArray()) {
      return "batch";
    }
    if (!body.isObject()) {
      return "invalid";
    }
    JsonNode method = body.get("method");
    if (method != null) {
      return method.isTextual() && KNOWN_METHODS.contains(method.asText())
          ? method.asText()
          : OTHER;
    }
    return body.has("result") || body.has("error") ? "response" : "invalid";
  }

  /** A route with its ids replaced and unknown shapes folded into one, so the values stay few. */
  static String route(String path) {
    String shape = shape(path);
    return KNOWN_ROUTES.contains(shape) ? shape : OTHER;
  }

  private static String shape(String path) {
    if (path.startsWith("/mcp")) {
      return path;
    }
    if (!path.startsWith("/a2a/v1/")) {
      return path.equals("/a2a/v1") ? path : "/a2a";
    }
    StringBuilder b = new StringBuilder("/a2a/v1");
    for (String seg : path.substring("/a2a/v1/".length()).split("/")) {
      if (seg.isEmpty()) {
        continue;
      }
      int colon = seg.indexOf(':');
      b.append('/');
      if (V1_WORDS.contains(seg)) {
        b.append(seg);
      } else if (colon > 0) {
        b.append("{id}").append(seg.substring(colon));
      } else {
        b.append("{id}");
      }
    }
    return b.toString();
  }

  /**
   * Passes the body through to whoever reads it and keeps its first {@value #SNIFF_BYTES} bytes;
   * reads nothing on its own.
   */
  private static final class SniffedRequest extends HttpServletRequestWrapper {
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private ServletInputStream stream;

    SniffedRequest(HttpServletRequest request) {
      super(request);
    }

    byte[] head() {
      return head.toByteArray();
    }

    private void keep(byte[] b, int off, int len) {
      if (len > 0 && head.size() < SNIFF_BYTES) {
        head.write(b, off, Math.min(len, SNIFF_BYTES - head.size()));
      }
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        ServletInputStream in = super.getInputStream();
        stream =
            new ServletInputStream() {
              @Override
              public int read() throws IOException {
                int b = in.read();
                if (b >= 0) {
                  keep(new byte[] {(byte) b}, 0, 1);
                }
                return b;
              }

              @Override
              public int read(byte[] b, int off, int len) throws IOException {
                int n = in.read(b, off, len);
                keep(b, off, n);
                return n;
              }

              @Override
              public boolean isFinished() {
                return in.isFinished();
              }

              @Override
              public boolean isReady() {
                return in.isReady();
              }

              @Override
              public void setReadListener(ReadListener listener) {
                in.setReadListener(listener);
              }
            };
      }
      return stream;
    }
  }

  /** Passes everything through; keeps the status and the start of a JSON body. */
  private static final class Sniffing extends HttpServletResponseWrapper {
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private int status = 200;
    private ServletOutputStream stream;
    private PrintWriter writer;

    Sniffing(HttpServletResponse response) {
      super(response);
    }

    @Override
    public void setStatus(int sc) {
      status = sc;
      super.setStatus(sc);
    }

    @Override
    public void sendError(int sc) throws IOException {
      status = sc;
      super.sendError(sc);
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
      status = sc;
      super.sendError(sc, msg);
    }

    private void keep(byte[] b, int off, int len) {
      if (head.size() < SNIFF_BYTES && isJson(getContentType())) {
        head.write(b, off, Math.min(len, SNIFF_BYTES - head.size()));
      }
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
      if (stream == null) {
        ServletOutputStream out = super.getOutputStream();
        stream =
            new ServletOutputStream() {
              @Override
              public void write(int b) throws IOException {
                keep(new byte[] {(byte) b}, 0, 1);
                out.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) throws IOException {
                keep(b, off, len);
                out.write(b, off, len);
              }

              @Override
              public void flush() throws IOException {
                out.flush();
              }

              @Override
              public void close() throws IOException {
                out.close();
              }

              @Override
              public boolean isReady() {
                return out.isReady();
              }

              @Override
              public void setWriteListener(WriteListener listener) {
                out.setWriteListener(listener);
              }
            };
      }
      return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
      if (writer == null) {
        PrintWriter out = super.getWriter();
        writer =
            new PrintWriter(out) {
              @Override
              public void write(String s, int off, int len) {
                byte[] b = s.substring(off, off + len).getBytes(StandardCharsets.UTF_8);
                keep(b, 0, b.length);
                super.write(s, off, len);
              }

              @Override
              public void write(char[] buf, int off, int len) {
                write(new String(buf, off, len), 0, len);
              }

              @Override
              public void write(int c) {
                write(String.valueOf((char) c), 0, 1);
              }
            };
      }
      return writer;
    }

    String result() {
      int sc = Math.max(status, getStatus());
      if (sc == 401 || sc == 403) {
        return "unauthorized";
      }
      if (sc >= 400) {
        return "error";
      }
      return head.size() > 0 && hasJsonRpcError(head.toByteArray()) ? "error" : "ok";
    }

    /** A top-level {@code "error"} member, looked for in the (possibly cut) start of the body. */
    private static boolean hasJsonRpcError(byte[] start) {
      try {
        JsonNode n = Json.MAPPER.readTree(start);
        if (n != null && n.isArray()) {
          for (JsonNode e : n) {
            if (e.has("error")) {
              return true;
            }
          }
          return false;
        }
        return n != null && n.has("error");
      } catch (IOException cut) {
        // longer than the sniffed part: look for the member at the top of the object
        String s = new String(start, StandardCharsets.UTF_8);
        return s.startsWith("{\"jsonrpc\":\"2.0\",\"id\":") && s.contains(",\"error\":{");
      }
    }
  }
}
