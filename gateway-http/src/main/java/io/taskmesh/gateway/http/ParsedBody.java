package io.taskmesh.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.taskmesh.schemas.Json;
import jakarta.servlet.ServletRequest;
import java.io.IOException;
import java.util.Optional;

/**
 * A JSON request body parsed once: whoever parses it first keeps the tree on the request, and the
 * filters and servlet behind it (and the metrics filter in front, once the chain returns) take it
 * from there instead of parsing the bytes again.
 */
public final class ParsedBody {
  private static final String ATTRIBUTE = ParsedBody.class.getName();

  private ParsedBody() {}

  /**
   * Keeps what a body parsed to; {@code json} null: the body is not JSON (kept as a missing node,
   * so no one tries again).
   */
  public static void keep(ServletRequest request, JsonNode json) {
    request.setAttribute(ATTRIBUTE, json == null ? MissingNode.getInstance() : json);
  }

  /**
   * The tree kept for this request, if anyone parsed its body; a missing node when it was not JSON.
   */
  public static Optional<JsonNode> kept(ServletRequest request) {
    return request.getAttribute(ATTRIBUTE) instanceof JsonNode json
        ? Optional.of(json)
        : Optional.empty();
  }

  /** The kept tree, else the body read and parsed now (and kept). */
  public static JsonNode read(ServletRequest request) throws IOException {
    Optional<JsonNode> kept = kept(request);
    if (kept.isPresent()) {
      return kept.get();
    }
    JsonNode json = Json.MAPPER.readTree(request.getInputStream().readAllBytes());
    keep(request, json);
    return json;
  }
}
