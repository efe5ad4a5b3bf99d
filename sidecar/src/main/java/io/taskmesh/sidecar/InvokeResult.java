package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Route;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/** What one {@code POST /invoke} ended with, from the sidecar's point of view. */
public sealed interface InvokeResult {

  /** One output frame: the payload, the route as the runtime shifted it, the headers. */
  record Frame(JsonNode payload, Route route, Map<String, Object> headers) {}

  /** 200: one frame (single response) or several (fan-out). */
  record Frames(List<Frame> frames) implements InvokeResult {}

  /** 204: the handler returned None. */
  record Empty() implements InvokeResult {}

  /** 400 / 500 (or an SSE {@code error} event) with the runtime's error code and details. */
  record RuntimeError(int status, String code, JsonNode details) implements InvokeResult {
    public boolean parsingError() {
      return "msg_parsing_error".equals(code);
    }

    public String message() {
      JsonNode m = details == null ? null : details.get("message");
      return m == null || m.isNull() ? code : m.asText();
    }

    public String type() {
      JsonNode t = details == null ? null : details.get("type");
      return t == null || t.isNull() ? "" : t.asText();
    }

    /** The handler's traceback as the runtime formatted it; null when it sent none. */
    public String traceback() {
      JsonNode t = details == null ? null : details.get("traceback");
      return t == null || !t.isTextual() ? null : t.asText();
    }

    public List<String> mro() {
      JsonNode m = details == null ? null : details.get("mro");
      if (m == null || !m.isArray()) {
        return List.of();
      }
      return StreamSupport.stream(m.spliterator(), false).map(JsonNode::asText).toList();
    }
  }

  /**
   * Something answered, but not the protocol: not HTTP, an unknown status, a body that is not JSON.
   */
  record ProtocolError(String message) implements InvokeResult {}

  /**
   * No answer: the socket refused the connection or closed before the response ended (runtime
   * crash).
   */
  record Unavailable(String message) implements InvokeResult {}

  /** The call ran past its effective timeout and was cut. */
  record TimedOut(long afterMillis) implements InvokeResult {}

  /**
   * The sidecar stopped waiting: the envelope's task ended elsewhere (canceled, or past its
   * deadline) while the handler ran ({@link TaskEndWatch}).
   */
  record Abandoned() implements InvokeResult {}
}
