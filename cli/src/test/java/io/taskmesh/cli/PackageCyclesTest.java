package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.PackageGraph;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The module's packages import each other in no cycle (issue 32 item 1, for every module). */
@Timeout(30)
class PackageCyclesTest {
  @Test
  void thePackagesImportEachOtherInNoCycle() {
    PackageGraph graph =
        PackageGraph.scan(Path.of("src/main/java/io/taskmesh/cli"), "io.taskmesh.cli");
    assertThat(graph.cycles())
        .as("import cycles between the packages of io.taskmesh.cli")
        .isEmpty();
  }
}
