package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * What MCP 2026-07-28 asks of every sessionless request before it is dispatched (Streamable HTTP,
 * "Request Metadata" and "Server Validation"; basic, per-request {@code _meta}), each fault the
 * error object and HTTP 400 the revision names: a missing or mismatched {@code
 * MCP-Protocol-Version}, {@code Mcp-Method} or {@code Mcp-Name} header is -32020, a {@code _meta}
 * without the protocol version or the client capabilities -32602, a revision this server does not
 * speak -32022 with the ones it does.
 */
final class StatelessRequestCheck {
  static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
  static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  private static final String BASE64_PREFIX = "=?base64?";
  private static final String BASE64_SUFFIX = "?=";

  /** The body field each method mirrors into {@code Mcp-Name}. */
  private static final Map<String, String> NAME_FIELDS =
      Map.of(
          "tools/call", "name",
          "prompts/get", "name",
          "resources/read", "uri",
          "tasks/get", "taskId",
          "tasks/update", "taskId",
          "tasks/cancel", "taskId");

  private StatelessRequestCheck() {}

  /** The first fault of the request, or empty when it may be dispatched. */
  static Optional<JsonRpcError> fault(HttpServletRequest req, JsonNode message) {
    JsonNode id = message.get("id");
    String version = trimmed(req.getHeader("MCP-Protocol-Version"));
    if (version == null) {
      return mismatch(id, "missing MCP-Protocol-Version header");
    }
    String method = message.path("method").asText();
    String methodHeader = trimmed(req.getHeader("Mcp-Method"));
    if (methodHeader == null) {
      return mismatch(id, "missing Mcp-Method header");
    }
    if (!methodHeader.equals(method)) {
      return mismatch(
          id,
          "Header mismatch: Mcp-Method header value '"
              + methodHeader
              + "' does not match body value '"
              + method
              + "'");
    }
    String nameField = NAME_FIELDS.get(method);
    JsonNode bodyName = nameField == null ? null : message.path("params").get(nameField);
    if (bodyName != null && bodyName.isTextual()) {
      String nameHeader = decoded(trimmed(req.getHeader("Mcp-Name")));
      if (nameHeader == null) {
        return mismatch(id, "missing or malformed Mcp-Name header (" + method + ")");
      }
      if (!nameHeader.equals(bodyName.asText())) {
        return mismatch(id, "Header mismatch: Mcp-Name header does not match params." + nameField);
      }
    }
    JsonNode meta = message.path("params").path("_meta");
    if (!meta.has(META_VERSION) || !meta.path(META_CAPABILITIES).isObject()) {
      return Optional.of(
          new JsonRpcError(
              400,
              id,
              JsonRpcError.INVALID_PARAMS,
              "Invalid params: _meta must carry " + META_VERSION + " and " + META_CAPABILITIES));
    }
    if (!version.equals(meta.get(META_VERSION).asText())) {
      return mismatch(
          id, "Header mismatch: MCP-Protocol-Version does not match _meta " + META_VERSION);
    }
    if (!McpRevisions.ALL.contains(version)) {
      return Optional.of(McpFailures.unsupportedVersion(id, version, McpRevisions.ALL));
    }
    return Optional.empty();
  }

  private static Optional<JsonRpcError> mismatch(JsonNode id, String message) {
    return Optional.of(new JsonRpcError(400, id, JsonRpcError.HEADER_MISMATCH, message));
  }

  /** A header value without the optional whitespace HTTP allows around it; null when absent. */
  private static String trimmed(String value) {
    return value == null ? null : value.strip();
  }

  /**
   * The value of a header that may use the Base64 sentinel ({@code =?base64?...?=}); null when it
   * is absent or the encoding is broken.
   */
  static String decoded(String value) {
    if (value == null
        || !value.startsWith(BASE64_PREFIX)
        || !value.endsWith(BASE64_SUFFIX)
        || value.length() < BASE64_PREFIX.length() + BASE64_SUFFIX.length()) {
      return value;
    }
    String encoded =
        value.substring(BASE64_PREFIX.length(), value.length() - BASE64_SUFFIX.length());
    try {
      return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static final java.util.regex.Pattern STRICT_BASE64 =
      java.util.regex.Pattern.compile(
          "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");

  /**
   * Like {@link #decoded}, but a Base64 sentinel must hold canonical Base64 (padding included):
   * {@code Mcp-Param-*} values are compared with the body, so a value the decoder would guess at is
   * refused instead (SEP-2243's test table rejects bad padding and foreign characters).
   */
  static String strictlyDecoded(String value) {
    if (value == null
        || !value.startsWith(BASE64_PREFIX)
        || !value.endsWith(BASE64_SUFFIX)
        || value.length() < BASE64_PREFIX.length() + BASE64_SUFFIX.length()) {
      return value;
    }
    String encoded =
        value.substring(BASE64_PREFIX.length(), value.length() - BASE64_SUFFIX.length());
    return STRICT_BASE64.matcher(encoded).matches() ? decoded(value) : null;
  }
}
