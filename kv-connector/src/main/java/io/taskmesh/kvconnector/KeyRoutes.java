package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * {@code GET/HEAD/PUT/DELETE /keys/{key}}, the hot routes, served as a plain Jetty core handler in
 * front of Javalin; everything else falls through to Javalin (its servlet context is this
 * wrapper's child). Why: on these one-statement requests the ee10 servlet layer and Javalin's
 * per-request context cost several times the SQL itself (see the README's benchmark).
 *
 * <p>Semantics are those of the Javalin routes they replace: the key is the rest of the path,
 * percent-decoded as Javalin decodes path parameters ({@code +} stays {@code +}); errors go through
 * the same {@link ErrorAnswer} mapping.
 */
final class KeyRoutes extends Handler.Wrapper {
  static final String PREFIX = "/keys/";
  private static final String JSON = "application/json";
  private final KvStore store;
  private final int maxBodyBytes;

  KeyRoutes(KvStore store, int maxBodyBytes) {
    this.store = store;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getPath();
    if (path == null || !path.startsWith(PREFIX) || path.length() == PREFIX.length()) {
      return super.handle(request, response, callback);
    }
    String method = request.getMethod();
    try {
      String key = key(path.substring(PREFIX.length()));
      switch (method) {
        case "GET" -> get(key, response, callback);
        case "HEAD" -> head(key, response, callback);
        case "PUT" -> put(key, request, response, callback);
        case "DELETE" -> delete(key, response, callback);
        default -> throw new KvException(405, "method_not_allowed", "no route for " + method + " " + path);
      }
    } catch (Exception e) {
      ErrorAnswer a = ErrorAnswer.of(e, method, path);
      if (a.retryAfter()) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
      }
      send(response, callback, a.status(), a.body());
    }
    return true;
  }

  private void get(String key, Response response, Callback callback) throws Exception {
    KvRecord r = store.get(key).orElseThrow(() -> KvException.notFound("key '" + key + "' not found"));
    send(response, callback, 200, r.toJson());
  }

  private void head(String key, Response response, Callback callback) throws Exception {
    if (!store.exists(key)) {
      empty(response, callback, 404);
      return;
    }
    response.getHeaders().put("X-Is-File", "true");
    empty(response, callback, 200);
  }

  private void put(String key, Request request, Response response, Callback callback) throws Exception {
    String json = JsonBodies.read(Content.Source.asInputStream(request), request.getLength(), maxBodyBytes);
    Fields query = Request.extractQueryParameters(request, StandardCharsets.UTF_8);
    String ifStatus = query.getValue("if_status");
    boolean createOnly = "*".equals(request.getHeaders().get(HttpHeader.IF_NONE_MATCH));
    if (ifStatus != null && createOnly) {
      throw KvException.badRequest("if_status and If-None-Match: * cannot be combined");
    }
    KvStore.PutResult r;
    if (ifStatus != null) {
      Optional<KvStore.PutResult> done = store.putIfStatus(key, json, ifStatus);
      if (done.isEmpty()) {
        Optional<String> stored = store.storedStatus(key);
        throw new KvException(409, "conflict", stored.isEmpty()
            ? "key '" + key + "' does not exist"
            : "stored status is '" + stored.get() + "', not '" + ifStatus + "'");
      }
      r = done.get();
    } else if (createOnly) {
      r = store.create(key, json).orElseThrow(() ->
          new KvException(412, "precondition_failed", "key '" + key + "' already exists"));
    } else {
      r = store.upsert(key, json);
    }
    StringBuilder sb = new StringBuilder("{\"key\":\"");
    JsonStringEncoder.getInstance().quoteAsString(key, sb);
    sb.append("\",\"created_at\":\"").append(r.createdAt()).append("\",\"updated_at\":\"")
        .append(r.updatedAt()).append("\"}");
    send(response, callback, r.created() ? 201 : 200, sb.toString());
  }

  private void delete(String key, Response response, Callback callback) throws Exception {
    if (!store.delete(key)) {
      throw KvException.notFound("key '" + key + "' not found");
    }
    empty(response, callback, 204);
  }

  /** The rest of the path after {@code /keys/}, decoded and checked. */
  static String key(String raw) {
    String key = raw;
    if (raw.indexOf('%') >= 0 || raw.indexOf('+') >= 0) {
      try {
        key = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw KvException.badRequest("the key is not validly percent-encoded: " + e.getMessage());
      }
    }
    return KvApp.checkedKey(key);
  }

  private static void send(Response response, Callback callback, int status, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }

  private static void empty(Response response, Callback callback, int status) {
    response.setStatus(status);
    response.write(true, null, callback);
  }
}
