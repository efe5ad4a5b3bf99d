package io.taskmesh.gateway.a2a.card;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aSettings;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.Collection;
import java.util.List;

/**
 * The agent card: the spec's fields ({@code name}, {@code version}, {@code supportedInterfaces},
 * {@code capabilities.streaming/extendedAgentCard}, {@code securitySchemes} in the spec's form,
 * {@code security}, {@code skills}) plus what A2A 0.3 clients read ({@code url}, {@code
 * preferredTransport}, {@code protocolVersion}, {@code description}, {@code
 * defaultInputModes/defaultOutputModes}, {@code supportsAuthenticatedExtendedCard}, and the 0.3
 * keys {@code type/in/name} / {@code type/scheme/bearerFormat} in each security scheme). One skill
 * per flow with an {@code a2a} section. It says only what is configured: security schemes and the
 * extended card appear when A2A auth is on ({@link A2aSettings}). Pure: no I/O.
 */
public final class AgentCard {
  static final String PROTOCOL_VERSION = "0.3.0";
  static final String TRANSPORT = "JSONRPC";

  /**
   * The A2A 1.0 interfaces (JSON-RPC and HTTP+JSON), relative to the 0.3 endpoint {@code /a2a/}.
   */
  static final String V1_PATH = "v1";

  private AgentCard() {}

  /**
   * The agent card of this gateway: its skills are the flows offered over A2A.
   *
   * @param endpoint absolute URL of {@code POST /a2a/}
   * @param extended the authenticated extended card (same content, marked in {@code metadata})
   */
  public static ObjectNode build(
      A2aSettings settings, String endpoint, Collection<FlowConfig> skills, boolean extended) {
    ObjectNode card = Json.MAPPER.createObjectNode();
    card.put("name", settings.agentName());
    card.put("description", settings.agentDescription());
    card.put("version", settings.agentVersion());
    card.put("protocolVersion", PROTOCOL_VERSION);
    card.put("url", endpoint);
    card.put("preferredTransport", TRANSPORT);
    // every interface served, in order of preference (A2A 1.0: the first is preferred): a 1.0
    // client that takes the first JSON-RPC entry gets 1.0; 0.3 clients read url above
    ArrayNode interfaces = card.putArray("supportedInterfaces");
    addInterface(interfaces, endpoint + V1_PATH, TRANSPORT, "1.0");
    addInterface(interfaces, endpoint + V1_PATH, "HTTP+JSON", "1.0");
    addInterface(interfaces, endpoint, TRANSPORT, "0.3");
    ObjectNode additional = card.putArray("additionalInterfaces").addObject();
    additional.put("url", endpoint);
    additional.put("transport", TRANSPORT);
    // only what is configured: no auth means no schemes, no security requirement, no extended card
    boolean extendedCard = settings.authEnabled();
    ObjectNode caps = card.putObject("capabilities");
    caps.put("streaming", true);
    caps.put("pushNotifications", true);
    caps.put("stateTransitionHistory", false);
    caps.put("extendedAgentCard", extendedCard);
    card.put("supportsAuthenticatedExtendedCard", extendedCard);
    card.set("defaultInputModes", strings("text/plain", "application/json"));
    card.set("defaultOutputModes", strings("application/json", "text/plain"));
    securitySchemes(card, settings);
    String defaultSkill = defaultSkill(skills);
    ArrayNode list = card.putArray("skills");
    for (FlowConfig flow : skills) {
      list.add(skill(flow, defaultSkill));
    }
    if (extended) {
      card.putObject("metadata").put("extended", true);
    }
    return card;
  }

  /**
   * The A2A 1.0 card of a {@link #build} card: the same agent in 1.0's fields only (the 1.0 schema
   * closes its objects, so the 0.3 fields a combined card carries would make it invalid): the 1.0
   * interfaces, no {@code url}/{@code preferredTransport}/{@code protocolVersion}/{@code
   * additionalInterfaces}/{@code supportsAuthenticatedExtendedCard}/{@code
   * capabilities.stateTransitionHistory}, schemes in their 1.0 form only, and {@code security} as
   * 1.0's {@code securityRequirements}. Served at {@code /a2a/v1/.well-known/agent-card.json} and
   * by the 1.0 extended card methods.
   */
  public static ObjectNode v1(JsonNode combined) {
    ObjectNode card = combined.deepCopy();
    card.remove(
        List.of(
            "protocolVersion",
            "url",
            "preferredTransport",
            "additionalInterfaces",
            "supportsAuthenticatedExtendedCard",
            "security"));
    ArrayNode interfaces = Json.MAPPER.createArrayNode();
    combined
        .path("supportedInterfaces")
        .forEach(
            i -> {
              if (i.path("protocolVersion").asText().startsWith("1.")) {
                interfaces.add(i);
              }
            });
    card.set("supportedInterfaces", interfaces);
    JsonNode caps = card.get("capabilities");
    if (caps instanceof ObjectNode c) {
      c.remove("stateTransitionHistory");
    }
    JsonNode schemes = card.get("securitySchemes");
    if (schemes instanceof ObjectNode all) {
      all.properties()
          .iterator()
          .forEachRemaining(e -> ((ObjectNode) e.getValue()).retain(V1_SCHEME_KINDS));
      ArrayNode requirements = card.putArray("securityRequirements");
      combined
          .path("security")
          .forEach(
              alternative ->
                  alternative
                      .fieldNames()
                      .forEachRemaining(
                          name ->
                              requirements
                                  .addObject()
                                  .putObject("schemes")
                                  .putObject(name)
                                  .putArray("list")));
    }
    return card;
  }

  /** The 1.0 {@code SecurityScheme} members (one per kind of scheme). */
  private static final List<String> V1_SCHEME_KINDS =
      List.of(
          "apiKeySecurityScheme",
          "httpAuthSecurityScheme",
          "oauth2SecurityScheme",
          "openIdConnectSecurityScheme",
          "mtlsSecurityScheme");

  /**
   * The schemes of the configured mechanisms only ({@code SVC_A2A_API_KEY}: {@code apiKey}, {@code
   * SVC_A2A_JWT_JWKS_URL}: {@code bearer}); {@code security} lists each as an alternative (either
   * passes, {@code A2aAuth}). With auth off both are left out: every request passes.
   */
  private static void securitySchemes(ObjectNode card, A2aSettings settings) {
    if (!settings.authEnabled()) {
      return;
    }
    ObjectNode schemes = card.putObject("securitySchemes");
    ArrayNode security = card.putArray("security");
    if (settings.apiKeyEnabled()) {
      ObjectNode apiKey = schemes.putObject("apiKey");
      apiKey.put("type", "apiKey");
      apiKey.put("in", "header");
      apiKey.put("name", "X-API-Key");
      ObjectNode apiKeySpec = apiKey.putObject("apiKeySecurityScheme");
      apiKeySpec.put("location", "header");
      apiKeySpec.put("name", "X-API-Key");
      security.addObject().putArray("apiKey");
    }
    if (settings.jwtEnabled()) {
      ObjectNode bearer = schemes.putObject("bearer");
      bearer.put("type", "http");
      bearer.put("scheme", "bearer");
      bearer.put("bearerFormat", "JWT");
      ObjectNode bearerSpec = bearer.putObject("httpAuthSecurityScheme");
      bearerSpec.put("scheme", "bearer");
      bearerSpec.put("bearerFormat", "JWT");
      security.addObject().putArray("bearer");
    }
  }

  /**
   * The skill a message naming none runs (the rule of {@link A2aMessages#chooseSkill}); null for
   * none.
   */
  static String defaultSkill(Collection<FlowConfig> skills) {
    for (FlowConfig flow : skills) {
      if (flow.isDefaultA2aSkill()) {
        return flow.name();
      }
    }
    return skills.size() == 1 ? skills.iterator().next().name() : null;
  }

  /**
   * One skill; its description ends with how a client selects it, so any client can read the rule.
   */
  static ObjectNode skill(FlowConfig flow, String defaultSkill) {
    ObjectNode s = Json.MAPPER.createObjectNode();
    s.put("id", flow.name());
    s.put("name", flow.name());
    String description =
        flow.description() != null ? flow.description() : "Runs the flow " + flow.name() + ".";
    s.put("description", description + " " + selectionRule(flow.name(), defaultSkill));
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

  private static void addInterface(
      ArrayNode interfaces, String url, String binding, String version) {
    ObjectNode iface = interfaces.addObject();
    iface.put("url", url);
    iface.put("protocolBinding", binding);
    iface.put("protocolVersion", version);
  }

  private static String selectionRule(String skill, String defaultSkill) {
    if (skill.equals(defaultSkill)) {
      return "This is the default skill: a message that names no skill runs it (name another in the message's"
          + " metadata.skill).";
    }
    return "To run it, name it in the message's metadata.skill (\"skill\": \""
        + skill
        + "\"); a message that names"
        + " no skill runs "
        + (defaultSkill == null
            ? "the default skill, and this agent has none (a flow config sets one with a2a: {default: true})."
            : "the default skill, " + defaultSkill + ".");
  }

  private static ArrayNode strings(String... values) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (String v : values) {
      a.add(v);
    }
    return a;
  }
}
