package io.taskmesh.schemas;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a pausing handler asks its caller's client for by name, beyond its one question: the header
 * {@code x-svc-input-requests}, an object whose every member is one request, {@code {"<key>":
 * {"method": "elicitation/create" | "sampling/createMessage" | "roots/list", "params": {...}}}}.
 * The keys are the handler's own: the answers come back under them, as the object the task resumes
 * with ({@code payload.input = {"<key>": <the client's answer>, ...}}). MCP clients are asked these
 * requests as they are (MCP's input requests); a protocol that can only ask a question asks the
 * task's question.
 */
public final class InputRequests {
  /** The envelope header a handler sets, beside {@code x-svc-pause}. */
  public static final String HEADER = "x-svc-input-requests";

  /** The requests a client can be asked to answer. */
  public static final Set<String> METHODS =
      Set.of("elicitation/create", "sampling/createMessage", "roots/list");

  public static final int MAX_REQUESTS = 16;

  /** Bytes of JSON, so that the requests fit in one task update beside everything else. */
  public static final int MAX_BYTES = 64 * 1024;

  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  private InputRequests() {}

  /** The header read: the requests, or why they cannot be asked (one line, the handler's fix). */
  public record Read(ObjectNode requests, String problem) {
    public boolean ok() {
      return problem == null;
    }
  }

  /** Reads the header's value: a JSON object, or a string holding one. */
  public static Read read(Object header) {
    JsonNode node;
    if (header instanceof String text) {
      try {
        node = Json.MAPPER.readTree(text);
      } catch (JsonProcessingException e) {
        return refused("it is not JSON");
      }
    } else {
      node = Json.MAPPER.valueToTree(header);
    }
    if (node == null || !node.isObject() || node.isEmpty()) {
      return refused("it must be a non-empty object of named requests");
    }
    if (node.size() > MAX_REQUESTS) {
      return refused("it names " + node.size() + " requests, at most " + MAX_REQUESTS);
    }
    if (Json.write(node).length() > MAX_BYTES) {
      return refused("it is over " + MAX_BYTES + " bytes of JSON");
    }
    for (Map.Entry<String, JsonNode> request : node.properties()) {
      String key = request.getKey();
      if (!KEY.matcher(key).matches()) {
        return refused("key '" + key + "' must be 1-64 letters, digits or _ . : -");
      }
      JsonNode method = request.getValue().path("method");
      if (!METHODS.contains(method.asText())) {
        return refused("request '" + key + "' must have a method among " + METHODS);
      }
      JsonNode params = request.getValue().path("params");
      if (!params.isMissingNode() && !params.isObject()) {
        return refused("request '" + key + "': params must be an object");
      }
    }
    return new Read((ObjectNode) node, null);
  }

  private static Read refused(String why) {
    return new Read(null, "header " + HEADER + " ignored: " + why);
  }
}
