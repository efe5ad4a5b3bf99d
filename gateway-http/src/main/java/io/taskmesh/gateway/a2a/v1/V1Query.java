package io.taskmesh.gateway.a2a.v1;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;

/**
 * The params of the HTTP+JSON binding's GET/DELETE routes: path and query parameters (spec 11.5).
 */
final class V1Query {
  private V1Query() {}

  static ObjectNode of(String field, String value) {
    ObjectNode params = Json.MAPPER.createObjectNode();
    params.put(field, value);
    return params;
  }

  /** {@code GET /tasks/{id}?historyLength=N}. */
  static ObjectNode getTask(Context ctx) {
    ObjectNode params = of("id", ctx.pathParam("id"));
    integer(ctx, params, "historyLength");
    return params;
  }

  /**
   * {@code GET /tasks?contextId=&status=&pageSize=&pageToken=&historyLength=&includeArtifacts=}.
   */
  static ObjectNode listTasks(Context ctx) {
    ObjectNode params = Json.MAPPER.createObjectNode();
    for (String field : new String[] {"contextId", "status", "pageToken"}) {
      String v = ctx.queryParam(field);
      if (v != null) {
        params.put(field, v);
      }
    }
    integer(ctx, params, "pageSize");
    integer(ctx, params, "historyLength");
    return params;
  }

  /** {@code /tasks/{id}/pushNotificationConfigs/{configId}}. */
  static ObjectNode configRef(Context ctx) {
    ObjectNode params = of("taskId", ctx.pathParam("id"));
    params.put("id", ctx.pathParam("configId"));
    return params;
  }

  private static void integer(Context ctx, ObjectNode params, String field) {
    String v = ctx.queryParam(field);
    if (v == null || v.isEmpty()) {
      return;
    }
    try {
      params.put(field, Integer.parseInt(v));
    } catch (NumberFormatException e) {
      throw new A2aException(
          A2aException.INVALID_PARAMS, "Invalid params: '" + field + "' must be an integer");
    }
  }
}
