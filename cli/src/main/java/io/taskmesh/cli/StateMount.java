package io.taskmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.connectors.ConnectorType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code stateProxy} entry of an actor in {@code actors.yaml}: the spec's mount entry ({@code
 * name}, {@code mount.path}, {@code writeMode}, {@code connector.env}) with the connector named by
 * its type ({@code connector.type}, or the type suffix of {@code connector.image}).
 *
 * @param connectorType a type suffix that state-connectors knows, e.g. {@code
 *     objstore-buffered-cas}
 */
public record StateMount(
    String name, String path, String writeMode, String connectorType, Map<String, String> env) {
  private static final String DNS_LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";

  public StateMount {
    env = Map.copyOf(env);
  }

  /** This mount's entry of {@code SVC_STATE_PROXY_MOUNTS}: {@code name:path:write=mode}. */
  public String mountsEntry() {
    return name + ":" + path + ":write=" + writeMode;
  }

  /** The {@code stateProxy} list of one actor; every error names the actor and the entry. */
  static List<StateMount> parseAll(String actor, JsonNode list) {
    if (list == null || list.isMissingNode() || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw new IllegalArgumentException(
          "actor '" + actor + "': stateProxy must be a list of mount entries");
    }
    List<StateMount> mounts = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> paths = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      StateMount m = parse("actor '" + actor + "': stateProxy[" + i + "]", list.get(i));
      if (!names.add(m.name())) {
        throw new IllegalArgumentException(
            "actor '" + actor + "': stateProxy name '" + m.name() + "' is used twice");
      }
      if (!paths.add(m.path())) {
        throw new IllegalArgumentException(
            "actor '" + actor + "': mount path " + m.path() + " is used twice");
      }
      mounts.add(m);
    }
    return List.copyOf(mounts);
  }

  static StateMount parse(String where, JsonNode entry) {
    String name = entry.path("name").asText("");
    if (!name.matches(DNS_LABEL)) {
      throw new IllegalArgumentException(
          where + ": name '" + name + "' must be a DNS label (a-z, 0-9, -; 1-63 chars)");
    }
    where = where + " (" + name + ")";
    String path = entry.path("mount").path("path").asText("");
    if (!path.startsWith("/") || path.equals("/")) {
      throw new IllegalArgumentException(
          where + ": mount.path '" + path + "' must be an absolute path below /");
    }
    String writeMode = entry.path("writeMode").asText("buffered");
    if (!writeMode.equals("buffered") && !writeMode.equals("passthrough")) {
      throw new IllegalArgumentException(
          where + ": writeMode '" + writeMode + "' must be buffered or passthrough");
    }
    JsonNode connector = entry.path("connector");
    String type =
        connector.hasNonNull("type")
            ? connector.get("type").asText()
            : typeOfImage(connector.path("image").asText(""));
    try {
      ConnectorType.fromSuffix(type);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": connector: " + e.getMessage(), e);
    }
    return new StateMount(
        name, path.replaceAll("/+$", ""), writeMode, type, env(where, connector.path("env")));
  }

  /**
   * An image {@code .../svc-state-proxy-objstore-buffered-cas:1.2} names the type by its suffix.
   */
  private static String typeOfImage(String image) {
    String repo = image.replaceFirst(":[^/:]*$", "");
    for (ConnectorType t : ConnectorType.values()) {
      if (repo.endsWith(t.suffix())) {
        return t.suffix();
      }
    }
    return image.isEmpty() ? null : image;
  }

  /** The spec's list of {@code {name, value}}; a plain map is accepted too. */
  private static Map<String, String> env(String where, JsonNode env) {
    Map<String, String> out = new LinkedHashMap<>();
    if (env.isArray()) {
      for (JsonNode v : env) {
        String name = v.path("name").asText("");
        if (name.isEmpty() || !v.has("value")) {
          throw new IllegalArgumentException(
              where + ": connector.env entries need name and value, got " + v);
        }
        out.put(name, v.get("value").asText());
      }
    } else if (env.isObject()) {
      env.properties().iterator().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    } else if (!env.isMissingNode() && !env.isNull()) {
      throw new IllegalArgumentException(where + ": connector.env must be a list of {name, value}");
    }
    return out;
  }
}
