package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files (compose/docker-compose.yml, compose/k8s/*.yaml) against the code: every
 * variable they give a taskmesh container is one that container's code reads, and every variable
 * its code requires is given. The names come from the sources (the env reader calls), so a renamed
 * or new required variable fails here. SnakeYAML (under Jackson's YAML module) reads the files
 * because the compose file relies on anchors and merge keys.
 */
@Timeout(30)
class DeploymentEnvTest {
  private static final Path ROOT =
      Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
  private static final String IMAGE = "taskmesh:dev";

  /** Where each kind of container's configuration is read: its module and the shared ones. */
  private static final Map<String, List<String>> SOURCES =
      Map.of(
          "gateway", List.of("gateway-http", "topology", "service-kit", "schemas"),
          "sidecar", List.of("sidecar", "service-kit", "schemas"),
          "mesh-api", List.of("mesh-api", "service-kit"),
          "kv-connector", List.of("kv-connector", "service-kit"),
          "runtime", List.of("runtime/taskmesh_runtime"));

  private static final Pattern NAME =
      Pattern.compile("\"((?:SVC|KAFKA|CONNECTOR|STATE_PROXY)_[A-Z0-9_]*[A-Z0-9])\"");
  private static final Pattern REQUIRED =
      Pattern.compile(
          "required\\(\"([A-Z0-9_]+)\"\\)|require\\([^;]*?\"([A-Z0-9_]+)\"\\)|\"([A-Z0-9_]+) is required");

  /**
   * Read by the Python runtime but not by that literal pattern: container-level, set by the image.
   */
  private static final Set<String> SET_BY_IMAGE = Set.of("PYTHONPATH");

  @Test
  void composeGivesEveryContainerWhatItsCodeReadsAndRequires() throws IOException {
    Map<String, Map<String, String>> containers = composeContainers();
    assertThat(containers)
        .containsKeys(
            "gateway-api",
            "gateway-mesh",
            "mesh-api",
            "kv-connector",
            "x-sink",
            "x-sump",
            "x-pause",
            "runtime-echo",
            "sidecar-echo");
    containers.forEach(DeploymentEnvTest::check);
  }

  @Test
  void kubernetesManifestsGiveEveryContainerWhatItsCodeReadsAndRequires() throws IOException {
    Map<String, Map<String, String>> containers = manifestContainers();
    assertThat(containers)
        .containsKeys(
            "gateway-api/gateway",
            "gateway-mesh/gateway",
            "mesh-api/mesh-api",
            "mesh-api/kv-connector",
            "x-sink/sidecar",
            "actor-echo/runtime",
            "actor-echo/sidecar");
    containers.forEach(DeploymentEnvTest::check);
  }

  @Test
  void theScanFindsTheVariablesTheServicesAreKnownToNeed() throws IOException {
    // guards the scan itself: a pattern that matched nothing would let every file pass
    assertThat(required("gateway")).contains("KAFKA_BOOTSTRAP_SERVERS");
    assertThat(required("sidecar")).contains("KAFKA_BOOTSTRAP_SERVERS", "SVC_ACTOR_NAME");
    assertThat(required("kv-connector")).contains("CONNECTOR_SOCKET", "STATE_PROXY_PG_URL");
    assertThat(required("runtime")).contains("SVC_HANDLER");
    assertThat(known("gateway"))
        .contains("SVC_TOPIC_REPLICATION_FACTOR", "SVC_INTERNAL_TOKEN", "SVC_MESH_URL");
    assertThat(known("mesh-api"))
        .contains("SVC_MESH_API_EVENTS_REPLICATION")
        .doesNotContain("SVC_GATEWAY_MODE");
  }

  private static void check(String container, Map<String, String> env) {
    String kind = env.get("__kind");
    Set<String> given = new TreeSet<>(env.keySet());
    given.remove("__kind");
    given.removeIf(n -> n.equals("POD_IP"));
    try {
      assertThat(known(kind))
          .as(container + " (" + kind + ") sets only variables its code reads")
          .containsAll(given);
      assertThat(given)
          .as(container + " (" + kind + ") sets every variable its code requires")
          .containsAll(required(kind));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static Set<String> known(String kind) throws IOException {
    return scan(kind, NAME);
  }

  private static Set<String> required(String kind) throws IOException {
    return scan(kind, REQUIRED);
  }

  private static Set<String> scan(String kind, Pattern pattern) throws IOException {
    Set<String> names = new TreeSet<>();
    for (String dir : SOURCES.get(kind)) {
      Path base =
          dir.contains("/") ? ROOT.resolve(dir) : ROOT.resolve(dir).resolve("src/main/java");
      try (Stream<Path> files = Files.walk(base)) {
        for (Path f :
            files
                .filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".py"))
                .toList()) {
          Matcher m = pattern.matcher(Files.readString(f));
          while (m.find()) {
            for (int g = 1; g <= m.groupCount(); g++) {
              if (m.group(g) != null) {
                names.add(m.group(g));
              }
            }
          }
        }
      }
    }
    return names;
  }

  /** Container name -> its environment, with {@code __kind} the service kind it runs. */
  @SuppressWarnings("unchecked")
  static Map<String, Map<String, String>> composeContainers() throws IOException {
    Map<String, Object> doc;
    try (Reader r = Files.newBufferedReader(ROOT.resolve("compose/docker-compose.yml"))) {
      doc = new Yaml().load(r);
    }
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    ((Map<String, Map<String, Object>>) doc.get("services"))
        .forEach(
            (name, svc) -> {
              if (!IMAGE.equals(svc.get("image"))) {
                return;
              }
              Map<String, String> env = new HashMap<>();
              ((Map<String, Object>) svc.getOrDefault("environment", Map.of()))
                  .forEach((k, v) -> env.put(k, String.valueOf(v)));
              env.put(
                  "__kind",
                  kind((List<String>) svc.get("entrypoint"), (List<String>) svc.get("command")));
              out.put(name, env);
            });
    return out;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Map<String, String>> manifestContainers() throws IOException {
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(ROOT.resolve("compose/k8s"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path f : files) {
      try (Reader r = Files.newBufferedReader(f)) {
        for (Object o : new Yaml().loadAll(r)) {
          Map<String, Object> doc = (Map<String, Object>) o;
          if (!"Deployment".equals(doc.get("kind"))) {
            continue;
          }
          String name = (String) ((Map<String, Object>) doc.get("metadata")).get("name");
          Map<String, Object> pod =
              (Map<String, Object>)
                  ((Map<String, Object>) ((Map<String, Object>) doc.get("spec")).get("template"))
                      .get("spec");
          for (Map<String, Object> c : (List<Map<String, Object>>) pod.get("containers")) {
            if (!IMAGE.equals(c.get("image"))) {
              continue;
            }
            Map<String, String> env = new HashMap<>();
            for (Map<String, Object> e :
                (List<Map<String, Object>>) c.getOrDefault("env", new ArrayList<>())) {
              env.put((String) e.get("name"), String.valueOf(e.getOrDefault("value", "")));
            }
            env.put("__kind", kind((List<String>) c.get("command"), (List<String>) c.get("args")));
            out.put(name + "/" + c.get("name"), env);
          }
        }
      }
    }
    return out;
  }

  /** The Python runtime (its own entrypoint), else the launcher's subcommand. */
  private static String kind(List<String> entrypoint, List<String> command) {
    if (entrypoint != null && entrypoint.contains("taskmesh_runtime")) {
      return "runtime";
    }
    assertThat(command).as("a launcher subcommand").isNotEmpty();
    assertThat(SOURCES).as("a known service kind").containsKey(command.get(0));
    return command.get(0);
  }
}
