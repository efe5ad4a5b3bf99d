package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.taskmesh.schemas.FlowConfig;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/** Checks tool arguments against the flow's {@code mcp.inputSchema} (JSON Schema). */
final class ToolArguments {
  private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
  private final Map<JsonNode, JsonSchema> compiled = new ConcurrentHashMap<>();

  /** Thrown when arguments do not match; the message names the offending fields. */
  static final class InvalidArguments extends RuntimeException {
    InvalidArguments(String message) {
      super(message);
    }
  }

  void check(FlowConfig flow, JsonNode arguments) {
    JsonNode schema = flow.mcp() == null ? null : flow.mcp().get("inputSchema");
    if (schema == null || !schema.isObject()) {
      return;
    }
    Set<ValidationMessage> errors = compiled.computeIfAbsent(schema, FACTORY::getSchema).validate(arguments);
    if (!errors.isEmpty()) {
      throw new InvalidArguments("invalid arguments for tool '" + flow.name() + "': "
          + errors.stream().map(ValidationMessage::getMessage).sorted().collect(Collectors.joining("; ")));
    }
  }
}
