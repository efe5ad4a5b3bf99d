package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.Context;
import io.taskmesh.schemas.Json;
import java.io.IOException;

/** Request bodies of the REST routes, read as JSON; every failure is a 400 saying what is wrong. */
final class RequestBodies {
  private RequestBodies() {}

  /** The body as JSON of any kind. */
  static JsonNode json(Context ctx) {
    try {
      JsonNode node = Json.MAPPER.readTree(ctx.bodyAsBytes());
      if (node == null || node.isMissingNode()) {
        throw new BadRequestResponse("request body must be JSON");
      }
      return node;
    } catch (IOException e) {
      throw new BadRequestResponse("invalid JSON: " + firstLine(e.getMessage()));
    }
  }

  /** {@code node}, when it is a JSON object. */
  static JsonNode object(JsonNode node) {
    if (!node.isObject()) {
      throw new BadRequestResponse("request body must be a JSON object");
    }
    return node;
  }

  /** The body, a JSON object, as a {@code type}. */
  static <T> T parse(Context ctx, Class<T> type) {
    return convert(object(json(ctx)), type);
  }

  /** A JSON object already read, as a {@code type}. */
  static <T> T convert(JsonNode node, Class<T> type) {
    try {
      return Json.MAPPER.treeToValue(node, type);
    } catch (IOException | IllegalArgumentException e) {
      throw new BadRequestResponse(
          "invalid " + type.getSimpleName() + ": " + firstLine(e.getMessage()));
    }
  }

  static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}
