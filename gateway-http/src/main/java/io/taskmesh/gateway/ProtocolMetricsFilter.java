package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
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
 */
final class ProtocolMetricsFilter implements Filter {
  static final int SNIFF_BYTES = 8192;

  private static final Set<String> V1_WORDS =
      Set.of(
          "message:send",
          "message:stream",
          "tasks",
          "pushNotificationConfigs",
          "extendedAgentCard");

  private final long maxBodyBytes;
  private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();

  ProtocolMetricsFilter(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) req;
    String path = http.getRequestURI();
    String protocol = path.startsWith("/mcp") ? "mcp" : "a2a";
    String method = null;
    ServletRequest forward = req;
    if ("POST".equals(http.getMethod()) && isJson(http.getContentType())) {
      byte[] body =
          http.getInputStream().readNBytes((int) Math.min(Integer.MAX_VALUE, maxBodyBytes + 1));
      method = jsonRpcMethod(body);
      forward = new CachedBodyRequest(http, body);
    }
    if (method == null) {
      method = http.getMethod() + " " + route(path);
    }
    Sniffing sniff = new Sniffing((HttpServletResponse) res);
    try {
      chain.doFilter(forward, sniff);
    } finally {
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

  /** The body's JSON-RPC method; {@code batch} for an array, {@code invalid} when unreadable. */
  static String jsonRpcMethod(byte[] body) {
    try {
      JsonNode n = Json.MAPPER.readTree(body);
      if (n == null) {
        return "invalid";
      }
      if (n.isArray()) {
        return "batch";
      }
      JsonNode m = n.get("method");
      if (m != null && m.isTextual()) {
        return m.asText().length() <= 64 ? m.asText() : "invalid";
      }
      return n.has("result") || n.has("error") ? "response" : null;
    } catch (IOException | RuntimeException unreadable) {
      return "invalid";
    }
  }

  /** A route with its ids replaced, so the label's values stay few. */
  static String route(String path) {
    if (!path.startsWith("/a2a/v1/")) {
      return path.startsWith("/mcp") ? path : "/a2a";
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
