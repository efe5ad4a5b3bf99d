package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.UUID;

/** A push config as a client sends it, checked and reduced to the fields the gateway keeps. */
final class PushConfigInput {
  private PushConfigInput() {}

  /** The config to store; {@code id} defaults to a new UUID. */
  static ObjectNode checked(JsonNode config, boolean allowPrivate) {
    if (config == null || !config.isObject()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig' (an object) is required");
    }
    URI uri = url(config);
    PushTarget.check(uri, allowPrivate);
    ObjectNode out = Json.MAPPER.createObjectNode();
    String id = A2aMessages.optionalString(config, "id", "pushNotificationConfig.id");
    out.put("id", id == null || id.isBlank() ? UUID.randomUUID().toString() : id);
    out.put("url", uri.toString());
    String token = A2aMessages.optionalString(config, "token", "pushNotificationConfig.token");
    if (token != null) {
      out.put("token", token);
    }
    JsonNode auth = config.get("authentication");
    if (auth != null && !auth.isNull()) {
      out.set("authentication", authentication(auth));
    }
    return out;
  }

  private static URI url(JsonNode config) {
    JsonNode url = config.get("url");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' (a string) is required");
    }
    try {
      return new URI(url.asText());
    } catch (URISyntaxException e) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' is not a URL");
    }
  }

  private static JsonNode authentication(JsonNode auth) {
    JsonNode schemes = auth.get("schemes");
    if (!auth.isObject() || schemes == null || !schemes.isArray()) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.authentication.schemes' must be a list");
    }
    for (JsonNode s : schemes) {
      if (!s.isTextual()) {
        throw A2aException.params(
            "Invalid params: 'pushNotificationConfig.authentication.schemes' must hold strings");
      }
    }
    A2aMessages.optionalString(
        auth, "credentials", "pushNotificationConfig.authentication.credentials");
    return auth.deepCopy();
  }
}
