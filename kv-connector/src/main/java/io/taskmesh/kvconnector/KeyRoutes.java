package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.taskmesh.servicekit.ApiException;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code GET/HEAD/PUT/DELETE /keys/{key}}, the hot routes: answered on the event loop that read the
 * request, through that loop's {@link KeyStatements}. The key is the rest of the path,
 * percent-decoded as a path parameter ({@code +} stays {@code +}).
 */
final class KeyRoutes {
  static final String PREFIX = "/keys/";
  private final KeyStatements db;
  private final int maxBodyBytes;

  KeyRoutes(KeyStatements db, int maxBodyBytes) {
    this.db = db;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** Serves one request whose path starts with {@link #PREFIX} and has a key after it. */
  void handle(HttpServerRequest req, String path) {
    String key;
    try {
      key = key(path.substring(PREFIX.length()));
    } catch (ApiException e) {
      Answers.error(req, e);
      return;
    }
    switch (req.method().name()) {
      case "GET" ->
          Answers.reply(
              req,
              db.get(key)
                  .map(
                      r ->
                          Answers.ok(
                              200,
                              r.orElseThrow(
                                      () -> ApiException.notFound("key '" + key + "' not found"))
                                  .toJson())));
      case "HEAD" ->
          Answers.reply(
              req,
              db.exists(key)
                  .map(
                      found ->
                          found
                              ? Answers.empty(200).withHeader("X-Is-File", "true")
                              : Answers.empty(404)));
      case "PUT" -> Answers.readBody(req, maxBodyBytes, json -> put(req, key, json));
      case "DELETE" ->
          Answers.reply(
              req,
              db.delete(key)
                  .map(
                      deleted -> {
                        if (!deleted) {
                          throw ApiException.notFound("key '" + key + "' not found");
                        }
                        return Answers.empty(204);
                      }));
      default ->
          Answers.error(
              req,
              new ApiException(
                  405, "method_not_allowed", "no route for " + req.method().name() + " " + path));
    }
  }

  private Future<Answers.Answer> put(HttpServerRequest req, String key, String json) {
    String ifStatus;
    PercentDecoding.checkQuery(req.query());
    try {
      ifStatus = req.getParam("if_status");
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("the query string is not validly percent-encoded");
    }
    boolean createOnly = "*".equals(req.getHeader("If-None-Match"));
    if (ifStatus != null && createOnly) {
      throw ApiException.badRequest("if_status and If-None-Match: * cannot be combined");
    }
    if (ifStatus != null) {
      return db.putIfStatus(key, json, ifStatus)
          .compose(
              done ->
                  done.isPresent()
                      ? Future.succeededFuture(written(key, done.get()))
                      // the 409 names what is stored, so the writer knows why (one more statement,
                      // on conflicts only)
                      : db.storedStatus(key)
                          .map(
                              stored -> {
                                throw new ApiException(
                                    409,
                                    "conflict",
                                    stored.isEmpty()
                                        ? "key '" + key + "' does not exist"
                                        : "stored status is '"
                                            + stored.get()
                                            + "', not '"
                                            + ifStatus
                                            + "'");
                              }));
    }
    if (createOnly) {
      return db.create(key, json)
          .map(
              r ->
                  written(
                      key,
                      r.orElseThrow(
                          () ->
                              new ApiException(
                                  412,
                                  "precondition_failed",
                                  "key '" + key + "' already exists"))));
    }
    return db.upsert(key, json).map(r -> written(key, r));
  }

  private static Answers.Answer written(String key, KeyStatements.PutResult r) {
    StringBuilder sb = new StringBuilder("{\"key\":\"");
    JsonStringEncoder.getInstance().quoteAsString(key, sb);
    sb.append("\",\"created_at\":");
    IsoInstant.appendQuoted(sb, r.createdAt());
    sb.append(",\"updated_at\":");
    IsoInstant.appendQuoted(sb, r.updatedAt());
    sb.append('}');
    return Answers.ok(r.created() ? 201 : 200, sb.toString());
  }

  /** The rest of the path after {@code /keys/}, decoded and checked. */
  static String key(String raw) {
    return KvApp.checkedKey(PercentDecoding.decode(raw, "the key"));
  }
}
