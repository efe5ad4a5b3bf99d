package io.taskmesh.gateway.http;

import io.javalin.config.JavalinConfig;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.EagerContentHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Keeps slow or stalled clients from holding the gateway's server threads (issue 33 item 1: 300
 * connections that each trickled a body one byte a second left {@code /health} unanswered).
 *
 * <ul>
 *   <li>A request body is loaded before any handler runs, asynchronously: waiting for its bytes
 *       takes no thread, only the bytes received (at most {@code maxBodyBytes}; a larger body is
 *       refused by the route as before).
 *   <li>A body must be complete within {@value #BODY_DEADLINE_MS} ms of its request's arrival (1
 *       MiB in that time is 35 KB/s); otherwise the connection is closed. Bytes that trickle in
 *       keep a connection from ever being idle: only a deadline lets go of a body sent one byte a
 *       second.
 *   <li>No minimum data rate (Jetty's {@code minRequestDataRate}): Jetty checks it when the servlet
 *       reads, which here is after the whole body was loaded, and divides the body's bytes by the
 *       time since they arrived, so a two-byte body read a few milliseconds late on a busy machine
 *       was refused (408, surfacing as a 500). The deadline above is what cuts slow bodies.
 *   <li>A blocking read or write that makes no progress for {@value #BLOCKING_IDLE_MS} ms fails,
 *       and an idle connection is closed after Jetty's idle timeout; both are above the 15 s SSE
 *       keepalive, so a quiet stream is never taken for a stalled one.
 * </ul>
 */
public final class SlowClients {
  static final long BLOCKING_IDLE_MS = 20_000;

  static final long BODY_DEADLINE_MS = 30_000;

  private SlowClients() {}

  public static void guard(JavalinConfig cfg, long maxBodyBytes) {
    cfg.jetty.modifyHttpConfiguration(http -> http.setIdleTimeout(BLOCKING_IDLE_MS));
    cfg.jetty.modifyServletContextHandler(
        context -> {
          context.insertHandler(
              new EagerContentHandler(
                  new EagerContentHandler.RetainedContentLoaderFactory(maxBodyBytes, -1, false)));
          context.insertHandler(new BodyDeadline());
        });
  }

  /** Closes a connection whose request body is not complete {@value #BODY_DEADLINE_MS} ms on. */
  static final class BodyDeadline extends Handler.Wrapper {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      if (!hasBody(request)) {
        return super.handle(request, response, callback);
      }
      AtomicBoolean complete = new AtomicBoolean();
      // cancelled once the body is in: left to fire, every request of a busy minute would wake
      // the scheduler 30 s later, when the gateway may long be idle
      Scheduler.Task deadline =
          request
              .getComponents()
              .getScheduler()
              .schedule(
                  () -> {
                    if (!complete.get()) {
                      request.getConnectionMetaData().getConnection().getEndPoint().close();
                    }
                  },
                  BODY_DEADLINE_MS,
                  TimeUnit.MILLISECONDS);
      Request watched =
          new Request.Wrapper(request) {
            @Override
            public Content.Chunk read() {
              Content.Chunk chunk = super.read();
              if (chunk != null
                  && (chunk.isLast() || Content.Chunk.isFailure(chunk))
                  && complete.compareAndSet(false, true)) {
                deadline.cancel();
              }
              return chunk;
            }
          };
      return super.handle(watched, response, callback);
    }

    private static boolean hasBody(Request request) {
      long length = request.getLength();
      return length > 0
          || (length < 0 && request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING));
    }
  }
}
