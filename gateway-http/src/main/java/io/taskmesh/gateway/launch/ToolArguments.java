package io.taskmesh.gateway.launch;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.Map;

/**
 * Checks tool arguments against the flow's {@code mcp.inputSchema} with the MCP SDK's JSON Schema
 * validator, so {@code /tools/call} and MCP {@code tools/call} judge arguments alike.
 */
public final class ToolArguments {
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private final JsonSchemaValidator validator = new DefaultJsonSchemaValidator(Json.MAPPER);

  /** Thrown when arguments do not match; the message names the offending fields. */
  public static final class InvalidArguments extends RuntimeException {
    InvalidArguments(String message) {
      super(message);
    }
  }

  void check(FlowConfig flow, JsonNode arguments) {
    JsonNode schema = flow.mcp() == null ? null : flow.mcp().get("inputSchema");
    if (schema == null || !schema.isObject()) {
      return;
    }
    JsonSchemaValidator.ValidationResponse r =
        validator.validate(Json.MAPPER.convertValue(schema, MAP), arguments);
    if (!r.valid()) {
      throw new InvalidArguments(
          "invalid arguments for tool '" + flow.name() + "': " + r.errorMessage());
    }
  }
}
