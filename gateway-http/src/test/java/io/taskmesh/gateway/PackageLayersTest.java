package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.PackageGraph;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway's packages stay in layers (issue 32 item 1): a package uses only packages of a lower
 * layer, so the root only wires and the shared pieces never reach back into a protocol.
 */
@Timeout(30)
class PackageLayersTest {
  /** From the top down; packages of one layer do not use each other. */
  static final List<List<String>> LAYERS =
      List.of(
          List.of(""), // the composition root: Main, Gateway, GatewayApp, config
          List.of("a2a.v1"), // A2A 1.0, an adapter over the 0.3 methods
          List.of("a2a", "mcp", "oauth", "ui", "tasks"), // the protocols and route sets
          List.of("a2a.push", "a2a.card"), // A2A push notifications and agent cards
          List.of("a2a.model", "mcp.wire"), // A2A objects and settings; the MCP messages
          List.of("follow", "launch"), // following a task; starting one
          List.of("fly"), // FLY token streams
          List.of("http")); // HTTP plumbing: filters, bodies, SSE sink, SSRF and host checks

  private final PackageGraph graph =
      PackageGraph.scan(Path.of("src/main/java/io/taskmesh/gateway"), "io.taskmesh.gateway");

  @Test
  void thePackagesImportEachOtherInNoCycle() {
    assertThat(graph.cycles()).as("import cycles between the gateway's packages").isEmpty();
  }

  @Test
  void noPackageUsesAPackageAboveItOrBesideIt() {
    assertThat(graph.layerViolations(LAYERS))
        .as("uses that break the layers of PackageLayersTest.LAYERS")
        .isEmpty();
  }

  @Test
  void theScanSeesEveryPackage() {
    assertThat(graph.edges().keySet())
        .containsExactlyInAnyOrder(
            LAYERS.stream()
                .flatMap(List::stream)
                .map(p -> p.isEmpty() ? "io.taskmesh.gateway" : "io.taskmesh.gateway." + p)
                .toArray(String[]::new));
  }
}
