package io.taskmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.schemas.FlowConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline directory for {@code ./taskmesh dev --config DIR}: {@code flows.yaml} (the spec's flow
 * config) and {@code actors.yaml} (actor -> handler, module folder, env, stateProxy mounts).
 */
public record DevConfig(
    Path dir, Path flowsFile, Map<String, FlowConfig> flows, List<ActorSpec> actors) {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  public static DevConfig load(Path dir) {
    Path flowsFile = dir.resolve("flows.yaml");
    Path actorsFile = dir.resolve("actors.yaml");
    for (Path f : List.of(flowsFile, actorsFile)) {
      if (!Files.isRegularFile(f)) {
        throw new IllegalArgumentException("--config " + dir + ": missing " + f.getFileName());
      }
    }
    Map<String, FlowConfig> flows = FlowRegistry.parse(flowsFile);
    List<ActorSpec> actors = parseActors(actorsFile);
    List<String> names = actors.stream().map(ActorSpec::name).toList();
    for (FlowConfig flow : flows.values()) {
      for (String actor : flow.startRoute().actors()) {
        if (!names.contains(actor)) {
          throw new IllegalArgumentException(
              flowsFile
                  + ": flow '"
                  + flow.name()
                  + "' uses actor '"
                  + actor
                  + "', which "
                  + actorsFile
                  + " does not define; add it there (handler, dir) or take it out of the flow");
        }
      }
    }
    return new DevConfig(dir, flowsFile, flows, actors);
  }

  private static List<ActorSpec> parseActors(Path file) {
    try {
      JsonNode root = YAML.readTree(file.toFile());
      JsonNode actors = root == null ? null : root.get("actors");
      if (actors == null || !actors.isObject()) {
        throw new IllegalArgumentException(
            file + ": expected a map 'actors: {name: {handler, dir}}'");
      }
      List<ActorSpec> out = new ArrayList<>();
      var it = actors.properties().iterator();
      while (it.hasNext()) {
        var e = it.next();
        JsonNode a = e.getValue();
        String handler = a.path("handler").asText(null);
        Path moduleDir =
            file.getParent().resolve(a.path("dir").asText(".")).normalize().toAbsolutePath();
        if (!Files.isDirectory(moduleDir)) {
          throw new IllegalArgumentException(
              file + ": actor '" + e.getKey() + "': dir " + moduleDir + " does not exist");
        }
        Map<String, String> env = new LinkedHashMap<>();
        a.path("env")
            .properties()
            .iterator()
            .forEachRemaining(v -> env.put(v.getKey(), v.getValue().asText()));
        try {
          out.add(
              new ActorSpec(
                  e.getKey(),
                  handler,
                  moduleDir,
                  env,
                  StateMount.parseAll(e.getKey(), a.get("stateProxy"))));
        } catch (IllegalArgumentException bad) {
          throw new IllegalArgumentException(file + ": " + bad.getMessage(), bad);
        }
      }
      return out;
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }
}
