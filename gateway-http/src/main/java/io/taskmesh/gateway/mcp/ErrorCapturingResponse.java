package io.taskmesh.gateway.mcp;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Holds back the body of an error response (status 4xx/5xx set before the body, as the SDK and our
 * filters do) so {@link McpErrorResponses} can answer a JSON-RPC error instead; every other
 * response streams through, with the SDK's unknown-tool placeholder replaced on the way.
 */
final class ErrorCapturingResponse extends HttpServletResponseWrapper {
  /**
   * The SDK 2.1.0 answers a call of an unknown tool with the fixed message {@code "Unknown tool:
   * invalid_tool_name"} and the real name only in {@code data}; it has no hook for that answer, so
   * the message is rewritten to name the tool, on both transports.
   */
  private static final Pattern UNKNOWN_TOOL =
      Pattern.compile(
          "\"message\":\"Unknown tool: invalid_tool_name\",\"data\":\"Tool not found: ((?:[^\"\\\\]|\\\\.)*)\"");

  private static final String PLACEHOLDER = "invalid_tool_name";

  private int failedStatus;
  private final StringWriter capturedText = new StringWriter();
  private final ByteArrayOutputStream capturedBytes = new ByteArrayOutputStream();
  private PrintWriter writer;

  ErrorCapturingResponse(HttpServletResponse response) {
    super(response);
  }

  int failedStatus() {
    return failedStatus;
  }

  String captured() {
    return capturedText + capturedBytes.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void setStatus(int sc) {
    failedStatus = sc >= 400 ? sc : 0;
    super.setStatus(sc);
  }

  /** Jetty's own error page (HTML) is never written: the filter writes the JSON-RPC error. */
  @Override
  public void sendError(int sc) {
    setStatus(sc);
  }

  @Override
  public void sendError(int sc, String msg) {
    setStatus(sc);
    if (msg != null) {
      capturedText.write(msg);
    }
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    if (failedStatus != 0) {
      return new PrintWriter(capturedText);
    }
    if (writer == null) {
      writer = new UnknownToolRewriter(super.getWriter());
    }
    return writer;
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (failedStatus == 0) {
      return super.getOutputStream();
    }
    return new ServletOutputStream() {
      @Override
      public void write(int b) {
        capturedBytes.write(b);
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setWriteListener(WriteListener listener) {
        throw new IllegalStateException("error bodies are written synchronously");
      }
    };
  }

  /**
   * The SDK writes each JSON-RPC message with one {@code write(String)}, so the rewrite sees it
   * whole.
   */
  private static final class UnknownToolRewriter extends PrintWriter {
    UnknownToolRewriter(PrintWriter out) {
      super(out);
    }

    @Override
    public void write(String s, int off, int len) {
      if (len > PLACEHOLDER.length() && s.contains(PLACEHOLDER)) {
        String part = s.substring(off, off + len);
        Matcher m = UNKNOWN_TOOL.matcher(part);
        if (m.find()) {
          String rewritten =
              m.replaceAll("\"message\":\"Unknown tool: $1\",\"data\":{\"name\":\"$1\"}");
          super.write(rewritten, 0, rewritten.length());
          return;
        }
      }
      super.write(s, off, len);
    }
  }
}
