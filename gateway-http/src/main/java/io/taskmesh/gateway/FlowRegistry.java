package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.taskmesh.schemas.FlowConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The flows this gateway exposes, loaded from the YAML flow config ({@code flows: [...]}). */
public final class FlowRegistry {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private volatile Map<String, FlowConfig> flows = Map.of();

  /** No file means no flows (the spec's empty start-up config). */
  public static FlowRegistry load(Path file) {
    FlowRegistry registry = new FlowRegistry();
    if (file != null && Files.exists(file)) {
      registry.flows = parse(file);
    }
    return registry;
  }

  /** Parses a flow config file; throws {@link IllegalArgumentException} naming what is wrong. */
  public static Map<String, FlowConfig> parse(Path file) {
    try {
      JsonNode root = YAML.readTree(file.toFile());
      Map<String, FlowConfig> out = new LinkedHashMap<>();
      JsonNode list = root == null ? null : root.get("flows");
      if (list == null || list.isNull()) {
        return out;
      }
      if (!list.isArray()) {
        throw new IllegalArgumentException(file + ": 'flows' must be a list");
      }
      for (JsonNode entry : list) {
        FlowConfig flow = YAML.treeToValue(entry, FlowConfig.class);
        if (out.putIfAbsent(flow.name(), flow) != null) {
          throw new IllegalArgumentException(file + ": flow name '" + flow.name() + "' is not unique");
        }
      }
      return out;
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  public Optional<FlowConfig> flow(String name) {
    return Optional.ofNullable(flows.get(name));
  }

  /** A flow exposed as an MCP tool (it has an {@code mcp} section). */
  public Optional<FlowConfig> tool(String name) {
    return flow(name).filter(FlowConfig::isTool);
  }

  public Map<String, FlowConfig> all() {
    return flows;
  }
}
