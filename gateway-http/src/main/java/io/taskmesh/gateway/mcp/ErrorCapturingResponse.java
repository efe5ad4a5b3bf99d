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

/**
 * Holds back the body of an error response (status 4xx/5xx set before the body, as our filters and
 * Jetty do) so {@link McpErrorResponses} can answer a JSON-RPC error instead; every other response
 * streams through untouched.
 */
final class ErrorCapturingResponse extends HttpServletResponseWrapper {
  private int failedStatus;
  private final StringWriter capturedText = new StringWriter();
  private final ByteArrayOutputStream capturedBytes = new ByteArrayOutputStream();

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
    return super.getWriter();
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
}
