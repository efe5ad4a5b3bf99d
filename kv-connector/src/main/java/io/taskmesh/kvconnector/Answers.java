package io.taskmesh.kvconnector;

import io.taskmesh.servicekit.ApiException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Writing answers and reading bodies for the connector's Vert.x handlers: one place for status,
 * headers and errors.
 */
final class Answers {
  /** Header name and value encoded once (Vert.x writes such a CharSequence's bytes as they are). */
  private static final CharSequence CONTENT_TYPE = HttpHeaders.CONTENT_TYPE;

  private static final CharSequence JSON = HttpHeaders.createOptimized("application/json");

  /**
   * Bytes read and thrown away after an over-limit body, so a client still uploading gets its 413.
   */
  static final int DRAIN_LIMIT = 256 * 1024;

  private Answers() {}

  /** Status, JSON body (null: none) and at most one extra header. */
  record Answer(int status, String body, String header, String headerValue) {
    Answer withHeader(String name, String value) {
      return new Answer(status, body, name, value);
    }
  }

  static Answer ok(int status, String json) {
    return new Answer(status, json, null, null);
  }

  static Answer empty(int status) {
    return new Answer(status, null, null, null);
  }

  /** Sends the answer of {@code result}, or the error it failed with. */
  static void reply(HttpServerRequest req, Future<Answer> result) {
    result.onComplete(
        ar -> {
          if (ar.succeeded()) {
            send(req, ar.result());
          } else {
            error(req, ar.cause());
          }
        });
  }

  static Future<Void> error(HttpServerRequest req, Throwable e) {
    ErrorAnswer a = ErrorAnswer.of(e, req.method().name(), req.path());
    Answer answer = ok(a.status(), a.body());
    return send(req, a.retryAfter() ? answer.withHeader("Retry-After", "1") : answer);
  }

  static Future<Void> send(HttpServerRequest req, Answer a) {
    HttpServerResponse res = req.response();
    if (res.ended() || res.closed()) {
      return Future.succeededFuture(); // the client went away, or an error was answered already
    }
    res.setStatusCode(a.status());
    if (a.header() != null) {
      res.putHeader(a.header(), a.headerValue());
    }
    return a.body() == null ? res.end() : res.putHeader(CONTENT_TYPE, JSON).end(a.body());
  }

  /**
   * Reads a body of at most {@code max} bytes that must be exactly one JSON value (413 / 400
   * otherwise, and {@code then} is not called), then answers what {@code then} returns.
   */
  static void readBody(HttpServerRequest req, int max, Function<String, Future<Answer>> then) {
    long declared;
    try {
      String cl = req.getHeader("Content-Length");
      declared = cl == null ? -1 : Long.parseLong(cl.trim());
    } catch (NumberFormatException e) {
      error(req, ApiException.badRequest("Content-Length is not a number"));
      return;
    }
    BodyCollector body = new BodyCollector(req, max, declared);
    req.handler(body);
    req.endHandler(v -> body.end(then));
    req.exceptionHandler(e -> body.abandoned = true);
  }

  private static final class BodyCollector implements Handler<Buffer> {
    private final HttpServerRequest req;
    private final int max;
    private final Buffer bytes;
    private boolean tooLarge;
    private long drained;
    private boolean abandoned;

    BodyCollector(HttpServerRequest req, int max, long declared) {
      this.req = req;
      this.max = max;
      this.tooLarge = declared > max;
      this.bytes = Buffer.buffer(declared >= 0 && declared <= max ? (int) declared : 512);
      if (declared > (long) max + DRAIN_LIMIT) {
        refuseAndClose();
      }
    }

    @Override
    public void handle(Buffer chunk) {
      if (abandoned) {
        return;
      }
      if (!tooLarge && bytes.length() + chunk.length() <= max) {
        bytes.appendBuffer(chunk);
        return;
      }
      tooLarge = true;
      drained += chunk.length();
      if (drained > DRAIN_LIMIT) {
        refuseAndClose();
      }
    }

    /**
     * Larger than what is worth draining: answer now and close, the rest of the upload is cut off.
     */
    private void refuseAndClose() {
      abandoned = true;
      error(req, ApiException.tooLarge(max)).onComplete(x -> req.connection().close());
    }

    void end(Function<String, Future<Answer>> then) {
      if (abandoned) {
        return;
      }
      try {
        if (tooLarge) {
          throw ApiException.tooLarge(max);
        }
        if (bytes.length() == 0) {
          throw ApiException.badRequest(
              "the request body must be a JSON document, got an empty body");
        }
        byte[] raw = bytes.getBytes();
        JsonBodies.checkOneJsonValue(raw);
        reply(req, then.apply(new String(raw, StandardCharsets.UTF_8)));
      } catch (RuntimeException e) {
        error(req, e);
      }
    }
  }
}
