package io.taskmesh.gateway.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Reads and drops what a client is still sending before a refusal goes out. A server that answers
 * (for example 413) and closes while a large body is still in flight makes the client see a reset
 * connection instead of the answer; HTTP clients that write the whole body before reading, as
 * Java's does, then report no response at all.
 */
public final class RefusedBodies {
  /** The most a refused body is read; past it the connection just closes. */
  public static final long DRAIN_CAP = 16L * 1024 * 1024;

  private RefusedBodies() {}

  /**
   * A filter for every route: once a handler has refused a body as too large (413, typically
   * without reading it), what the client still sends is read before the connection can close.
   */
  public static Filter afterTooLarge() {
    return new Filter() {
      @Override
      public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
          throws IOException, ServletException {
        chain.doFilter(req, res);
        if (res instanceof HttpServletResponse http && http.getStatus() == 413) {
          drain((HttpServletRequest) req);
        }
      }
    };
  }

  public static void drain(HttpServletRequest request) {
    try {
      request
          .getInputStream()
          .skipNBytes(Math.min(Math.max(request.getContentLengthLong(), 0), DRAIN_CAP));
    } catch (IOException | RuntimeException e) {
      // the client went away or sent less than it announced: the refusal is written all the same
    }
  }
}
