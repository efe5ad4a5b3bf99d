package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.JsonErrors;
import java.io.IOException;

/** Parses and validates an envelope from a queue record; never throws. */
final class EnvelopeReader {
  private EnvelopeReader() {}

  /** Either a valid envelope or the reason it is not one. */
  record Read(Envelope envelope, String problem) {
    boolean valid() {
      return envelope != null;
    }
  }

  static Read read(byte[] value) {
    if (value == null) {
      return new Read(null, "empty record");
    }
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(value);
    } catch (IOException e) {
      return new Read(null, "invalid JSON: " + JsonErrors.describe("the record", e));
    }
    if (root == null || !root.isObject()) {
      return new Read(null, "envelope is not a JSON object");
    }
    if (!root.path("id").isTextual() || root.get("id").asText().isBlank()) {
      return new Read(null, "missing field 'id'");
    }
    if (!root.path("route").isObject()) {
      return new Read(null, "missing field 'route'");
    }
    if (!root.has("payload")) {
      return new Read(null, "missing field 'payload'");
    }
    JsonNode route = root.get("route");
    if ((route.has("prev") && !route.get("prev").isArray())
        || (route.has("next") && !route.get("next").isArray())
        || (route.has("curr") && !route.get("curr").isTextual())) {
      return new Read(null, "route must be {prev: string[], curr: string, next: string[]}");
    }
    if (root.has("headers") && !root.get("headers").isObject() && !root.get("headers").isNull()) {
      return new Read(null, "headers must be an object");
    }
    try {
      return new Read(Json.MAPPER.treeToValue(root, Envelope.class), null);
    } catch (IOException | IllegalArgumentException e) {
      return new Read(
          null,
          "invalid envelope: "
              + JsonErrors.describe(
                  "the envelope",
                  e instanceof IOException ? e : e.getCause() != null ? e.getCause() : e));
    }
  }

  /** The id of a record that is not a valid envelope: its id field when readable, else the key. */
  static String bestId(byte[] value, String key) {
    try {
      JsonNode root = Json.MAPPER.readTree(value);
      if (root != null && root.path("id").isTextual() && !root.get("id").asText().isBlank()) {
        return root.get("id").asText();
      }
    } catch (IOException | RuntimeException ignored) {
      // fall back to the key
    }
    return key;
  }
}
