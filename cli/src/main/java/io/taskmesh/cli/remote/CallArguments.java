package io.taskmesh.cli.remote;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.taskmesh.cli.client.ClientException;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * A flow's arguments from the command line: {@code --json '{...}'} first, then each {@code --arg
 * key=value} on top. A value is read as the JSON the schema asks for (a number, boolean, array,
 * object) and stays text where the schema wants a string or says nothing, so {@code --arg text=42}
 * is the string "42" for a string field. Checked against the flow's {@code inputSchema} with the
 * validator the gateway uses, so its error is the schema's own.
 */
public final class CallArguments {
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private static final JsonSchemaValidator VALIDATOR = new DefaultJsonSchemaValidator(Json.MAPPER);

  private CallArguments() {}

  public static ObjectNode build(String json, List<String> args, JsonNode schema) {
    ObjectNode arguments;
    if (json == null || json.isBlank()) {
      arguments = Json.MAPPER.createObjectNode();
    } else {
      try {
        JsonNode parsed = Json.MAPPER.readTree(json);
        if (parsed == null || !parsed.isObject()) {
          throw new ClientException(
              ClientException.INVALID_INPUT, "--json must be a JSON object, got: " + json);
        }
        arguments = (ObjectNode) parsed;
      } catch (IOException e) {
        throw new ClientException(
            ClientException.INVALID_INPUT,
            "--json is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""));
      }
    }
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) {
        throw new ClientException(
            ClientException.INVALID_INPUT, "--arg wants key=value, got: " + arg);
      }
      String key = arg.substring(0, eq);
      arguments.set(
          key,
          value(arg.substring(eq + 1), schema == null ? null : schema.at("/properties/" + key)));
    }
    return arguments;
  }

  /** Text for string (or undeclared) fields, else the JSON the text spells when it spells one. */
  static JsonNode value(String raw, JsonNode property) {
    String type = property == null ? "" : property.path("type").asText("");
    if (type.isEmpty() || type.equals("string")) {
      return TextNode.valueOf(raw);
    }
    try {
      JsonNode parsed = Json.MAPPER.readTree(raw);
      return parsed == null ? TextNode.valueOf(raw) : parsed;
    } catch (IOException notJson) {
      return TextNode.valueOf(raw); // the schema check names the mismatch
    }
  }

  /** Refuses arguments the flow's schema refuses, before anything starts. */
  public static void check(String flow, JsonNode schema, JsonNode arguments) {
    if (schema == null || !schema.isObject()) {
      return;
    }
    JsonSchemaValidator.ValidationResponse r =
        VALIDATOR.validate(Json.MAPPER.convertValue(schema, MAP), arguments);
    if (!r.valid()) {
      throw new ClientException(
          ClientException.INVALID_INPUT,
          "invalid arguments for flow '" + flow + "': " + r.errorMessage());
    }
  }
}
