package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.Collection;

/**
 * The agent card: the spec's fields ({@code name}, {@code version}, {@code supportedInterfaces},
 * {@code capabilities.streaming/extendedAgentCard}, {@code securitySchemes} in the spec's form,
 * {@code security}, {@code skills}) plus what A2A 0.3 clients read ({@code url},
 * {@code preferredTransport}, {@code protocolVersion}, {@code description},
 * {@code defaultInputModes/defaultOutputModes}, {@code supportsAuthenticatedExtendedCard}, and the
 * 0.3 keys {@code type/in/name} / {@code type/scheme/bearerFormat} in each security scheme). One
 * skill per flow with an {@code a2a} section. Pure: no I/O.
 */
final class AgentCard {
  static final String PROTOCOL_VERSION = "0.3.0";
  static final String TRANSPORT = "JSONRPC";
  /** The A2A 1.0 interfaces (JSON-RPC and HTTP+JSON), relative to the 0.3 endpoint {@code /a2a/}. */
  static final String V1_PATH = "v1";

  private AgentCard() {}

  /**
   * @param endpoint absolute URL of {@code POST /a2a/}
   * @param extended the authenticated extended card (same content, marked in {@code metadata})
   */
  static ObjectNode build(A2aSettings settings, String endpoint, Collection<FlowConfig> skills, boolean extended) {
    ObjectNode card = Json.MAPPER.createObjectNode();
    card.put("name", settings.agentName());
    card.put("description", settings.agentDescription());
    card.put("version", settings.agentVersion());
    card.put("protocolVersion", PROTOCOL_VERSION);
    card.put("url", endpoint);
    card.put("preferredTransport", TRANSPORT);
    // every interface served; an A2A 1.0 client picks the 1.0 one, 0.3 clients read url above
    ArrayNode interfaces = card.putArray("supportedInterfaces");
    addInterface(interfaces, endpoint, TRANSPORT, "0.3");
    addInterface(interfaces, endpoint + V1_PATH, TRANSPORT, "1.0");
    addInterface(interfaces, endpoint + V1_PATH, "HTTP+JSON", "1.0");
    ObjectNode additional = card.putArray("additionalInterfaces").addObject();
    additional.put("url", endpoint);
    additional.put("transport", TRANSPORT);
    ObjectNode caps = card.putObject("capabilities");
    caps.put("streaming", true);
    caps.put("pushNotifications", true);
    caps.put("stateTransitionHistory", false);
    caps.put("extendedAgentCard", true);
    card.put("supportsAuthenticatedExtendedCard", true);
    card.set("defaultInputModes", strings("text/plain", "application/json"));
    card.set("defaultOutputModes", strings("application/json", "text/plain"));
    ObjectNode schemes = card.putObject("securitySchemes");
    ObjectNode apiKey = schemes.putObject("apiKey");
    apiKey.put("type", "apiKey");
    apiKey.put("in", "header");
    apiKey.put("name", "X-API-Key");
    ObjectNode apiKeySpec = apiKey.putObject("apiKeySecurityScheme");
    apiKeySpec.put("location", "header");
    apiKeySpec.put("name", "X-API-Key");
    ObjectNode bearer = schemes.putObject("bearer");
    bearer.put("type", "http");
    bearer.put("scheme", "bearer");
    bearer.put("bearerFormat", "JWT");
    ObjectNode bearerSpec = bearer.putObject("httpAuthSecurityScheme");
    bearerSpec.put("scheme", "bearer");
    bearerSpec.put("bearerFormat", "JWT");
    ArrayNode security = card.putArray("security");
    security.addObject().putArray("apiKey");
    security.addObject().putArray("bearer");
    ArrayNode list = card.putArray("skills");
    for (FlowConfig flow : skills) {
      list.add(skill(flow));
    }
    if (extended) {
      card.putObject("metadata").put("extended", true);
    }
    return card;
  }

  static ObjectNode skill(FlowConfig flow) {
    ObjectNode s = Json.MAPPER.createObjectNode();
    s.put("id", flow.name());
    s.put("name", flow.name());
    s.put("description", flow.description() != null ? flow.description() : "Runs the flow " + flow.name());
    JsonNode a2a = flow.a2a();
    ArrayNode tags = s.putArray("tags");
    JsonNode configured = a2a != null && a2a.isObject() ? a2a.get("tags") : null;
    if (configured != null && configured.isArray()) {
      configured.forEach(t -> tags.add(t.asText()));
    } else {
      tags.add("taskmesh");
      tags.add("flow");
    }
    JsonNode examples = a2a != null && a2a.isObject() ? a2a.get("examples") : null;
    if (examples != null && examples.isArray()) {
      ArrayNode ex = s.putArray("examples");
      examples.forEach(e -> ex.add(e.asText()));
    }
    s.set("inputModes", strings("application/json", "text/plain"));
    s.set("outputModes", strings("application/json", "text/plain"));
    return s;
  }

  private static void addInterface(ArrayNode interfaces, String url, String binding, String version) {
    ObjectNode iface = interfaces.addObject();
    iface.put("url", url);
    iface.put("protocolBinding", binding);
    iface.put("protocolVersion", version);
  }

  private static ArrayNode strings(String... values) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (String v : values) {
      a.add(v);
    }
    return a;
  }
}
