package io.taskmesh.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.Context;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ClientText;
import io.taskmesh.servicekit.JsonErrors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Request bodies of the REST routes, read as JSON; every failure is a 400 saying what is wrong. */
public final class RequestBodies {
  private RequestBodies() {}

  /** The body as JSON of any kind. */
  public static JsonNode json(Context ctx) {
    try {
      JsonNode node = Json.requestTree(ctx.bodyAsBytes());
      if (node == null || node.isMissingNode()) {
        throw new BadRequestResponse("request body must be JSON");
      }
      return node;
    } catch (IOException e) {
      throw new BadRequestResponse(JsonErrors.describe(e));
    }
  }

  /**
   * The body as JSON, refused unless it is well-formed UTF-8: the JSON parser lets an overlong
   * encoding (C0 AF for "/") through, and a body that becomes a task's input must not carry one.
   */
  public static JsonNode strictJson(Context ctx) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(ctx.bodyAsBytes()));
    } catch (CharacterCodingException e) {
      throw new BadRequestResponse("request body is not valid UTF-8");
    }
    return json(ctx);
  }

  /** {@code node}, when it is a JSON object. */
  public static JsonNode object(JsonNode node) {
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
  public static <T> T convert(JsonNode node, Class<T> type) {
    try {
      return Json.MAPPER.treeToValue(node, type);
    } catch (IOException | IllegalArgumentException e) {
      throw new BadRequestResponse(bindingError(e));
    }
  }

  /**
   * Why a JSON tree could not be bound: the parser's failure in our words, or the record's own
   * check (an {@link IllegalArgumentException} we wrote) when it reads clean.
   */
  public static String bindingError(Exception e) {
    Throwable cause =
        e instanceof IllegalArgumentException && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof IOException) {
      return JsonErrors.describe(cause);
    }
    String own = firstLine(e.getMessage());
    return ClientText.isClean(own) && !own.isBlank() ? own : "body has an invalid value";
  }

  static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}
