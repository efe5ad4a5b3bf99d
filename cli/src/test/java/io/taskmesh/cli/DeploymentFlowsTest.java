package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.schemas.FlowConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * compose and k8s serve only flows whose actors they run: every actor a served flow routes to
 * (entrypoint and route_next) has a sidecar there, as do the crew actors, so no task (and no A2A
 * message naming no skill) goes to a topic nobody reads. Beside {@link DeploymentEnvTest}.
 */
@Timeout(30)
class DeploymentFlowsTest {
  private static final Path ROOT =
      Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
  private static final Pattern COPY = Pattern.compile("(?m)^COPY\\s+(?!--)(\\S+)\\s+(\\S+)\\s*$");
  private static final Set<String> CREW = Set.of("x-sink", "x-sump", "x-pause");

  @Test
  void composeServesOnlyFlowsWhoseActorsItRuns() throws IOException {
    Map<String, Map<String, String>> containers = DeploymentEnvTest.composeContainers();
    Set<String> actors = actors(containers);
    Map<String, String> dockerfileCopies = dockerfileCopies();
    List<String> gateways = new ArrayList<>();
    containers.forEach(
        (name, env) -> {
          if (!"gateway".equals(env.get("__kind")) || "mesh".equals(env.get("SVC_GATEWAY_MODE"))) {
            return;
          }
          gateways.add(name);
          String inImage = env.get("SVC_CONFIG_PATH");
          assertThat(dockerfileCopies)
              .as(name + ": the image holds " + inImage)
              .containsKey(inImage);
          Path file = ROOT.resolve(dockerfileCopies.get(inImage));
          assertRunnable(
              "compose " + name + " (" + ROOT.relativize(file) + ")",
              FlowRegistry.parse(file),
              actors);
        });
    assertThat(gateways).contains("gateway-api");
  }

  @Test
  void kubernetesServesOnlyFlowsWhoseActorsItRunsFromTheComposeFlowsFile(@TempDir Path dir)
      throws IOException {
    Set<String> actors = actors(DeploymentEnvTest.manifestContainers());
    String served = configMapFlows();
    assertThat(served)
        .as("k8s/00-config.yaml's taskmesh-flows holds compose/flows.yaml")
        .isEqualTo(Files.readString(ROOT.resolve("compose/flows.yaml")));
    Path file = Files.writeString(dir.resolve("flows.yaml"), served);
    assertRunnable("k8s ConfigMap taskmesh-flows", FlowRegistry.parse(file), actors);
  }

  @Test
  void theCheckRefusesTheExampleFlowsWhichNeedActorsTheDeploymentsDoNotRun() throws IOException {
    // guards the check itself: examples/flows.yaml is what compose served before
    Set<String> actors = actors(DeploymentEnvTest.composeContainers());
    Map<String, FlowConfig> examples = FlowRegistry.parse(ROOT.resolve("examples/flows.yaml"));
    assertThat(missing(examples, actors)).containsKeys("words", "countdown", "interview", "divide");
  }

  private static void assertRunnable(
      String where, Map<String, FlowConfig> flows, Set<String> actors) {
    assertThat(flows).as(where + " serves flows").isNotEmpty();
    assertThat(actors).as(where + ": the crew runs").containsAll(CREW);
    assertThat(missing(flows, actors))
        .as(where + ": flows whose actors do not run there")
        .isEmpty();
    assertThat(flows.values().stream().filter(FlowConfig::isDefaultA2aSkill).map(FlowConfig::name))
        .as(where + ": one default A2A skill, so a message naming none has somewhere to go")
        .hasSize(1);
  }

  /** Flow -> the actors it routes to that no sidecar runs. */
  private static Map<String, Set<String>> missing(
      Map<String, FlowConfig> flows, Set<String> actors) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    flows.forEach(
        (name, flow) -> {
          Set<String> needed = new TreeSet<>(flow.routeNext());
          needed.add(flow.entrypoint());
          needed.removeAll(actors);
          if (!needed.isEmpty()) {
            out.put(name, needed);
          }
        });
    return out;
  }

  private static Set<String> actors(Map<String, Map<String, String>> containers) {
    Set<String> actors = new TreeSet<>();
    containers.values().stream()
        .filter(env -> "sidecar".equals(env.get("__kind")))
        .map(env -> env.get("SVC_ACTOR_NAME"))
        .forEach(actors::add);
    return actors;
  }

  /** Path in the image -> path in the repository, from the Dockerfile's plain COPY lines. */
  private static Map<String, String> dockerfileCopies() throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = COPY.matcher(Files.readString(ROOT.resolve("compose/Dockerfile")));
    while (m.find()) {
      out.put(m.group(2), m.group(1));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static String configMapFlows() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(ROOT.resolve("compose/k8s"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path f : files) {
      try (Reader r = Files.newBufferedReader(f)) {
        for (Object o : new Yaml().loadAll(r)) {
          Map<String, Object> doc = (Map<String, Object>) o;
          if (doc != null
              && "ConfigMap".equals(doc.get("kind"))
              && "taskmesh-flows".equals(((Map<String, Object>) doc.get("metadata")).get("name"))) {
            return (String) ((Map<String, Object>) doc.get("data")).get("flows.yaml");
          }
        }
      }
    }
    throw new AssertionError("no ConfigMap taskmesh-flows in compose/k8s");
  }
}
