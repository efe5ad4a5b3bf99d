package io.taskmesh.gateway.launch;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.FlowConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Hot reload of the flow config file (real files, no broker). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FlowRegistryIT {
  @TempDir Path dir;

  @Test
  void addChangeBreakAndRemoveTheFile() throws Exception {
    Path file = dir.resolve("flows.yaml");
    FlowRegistry registry = FlowRegistry.load(file);
    List<Map<String, FlowConfig>> changes = new ArrayList<>();
    registry.onChange(changes::add);
    assertThat(registry.all()).as("no file = no flows").isEmpty();

    Files.writeString(file, "flows:\n  - {name: a, entrypoint: x, mcp: {}}\n");
    assertThat(registry.reload()).isTrue();
    assertThat(registry.tool("a")).isPresent();

    int parses = registry.parses();
    assertThat(registry.reload()).as("unchanged file").isFalse();
    assertThat(registry.parses()).as("the same bytes are not parsed again").isEqualTo(parses);

    Files.writeString(
        file,
        "flows:\n  - {name: a, entrypoint: x, mcp: {}}\n  - {name: b, entrypoint: y, a2a: {}}\n");
    assertThat(registry.reload()).isTrue();
    assertThat(registry.flow("b")).isPresent();
    assertThat(registry.tool("b")).as("no mcp section: not a tool").isEmpty();

    Files.writeString(file, "flows:\n  - {name: broken}\n");
    assertThat(registry.reload()).as("invalid file keeps the last good config").isFalse();
    assertThat(registry.all()).containsOnlyKeys("a", "b");

    Files.writeString(file, "flows: [");
    assertThat(registry.reload()).isFalse();
    assertThat(registry.all()).containsOnlyKeys("a", "b");
    assertThat(registry.reload()).as("still invalid").isFalse();
    assertThat(registry.all()).containsOnlyKeys("a", "b");

    Files.writeString(
        file, "flows:\n  - {name: a, entrypoint: x, route_next: [x-sink], mcp: {}}\n");
    assertThat(registry.reload()).as("x-sink in a route is refused").isFalse();

    Files.delete(file);
    assertThat(registry.reload()).isTrue();
    assertThat(registry.all()).isEmpty();
    assertThat(changes).hasSize(3);
  }

  @Test
  void aFileReadWhileItIsBeingRewrittenIsNotApplied() throws Exception {
    Path file = dir.resolve("flows.yaml");
    String two =
        "flows:\n  - {name: a, entrypoint: x, mcp: {}}\n  - {name: b, entrypoint: y, mcp: {}}\n";
    Files.writeString(file, two);
    FlowRegistry registry = FlowRegistry.load(file);
    List<Map<String, FlowConfig>> changes = new ArrayList<>();
    registry.onChange(changes::add);

    Files.writeString(file, ""); // a writer has truncated the file and not written yet
    java.util.concurrent.atomic.AtomicBoolean applied =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread reloader = new Thread(() -> applied.set(registry.reload()));
    reloader.start();
    while (reloader.getState() != Thread.State.TIMED_WAITING && reloader.isAlive()) {
      Thread.onSpinWait(); // until it has read the empty file and waits for it to settle
    }
    Files.writeString(file, two + "  - {name: c, entrypoint: z, mcp: {}}\n");
    reloader.join();

    assertThat(applied.get()).as("the half-written file was not applied").isFalse();
    assertThat(changes).isEmpty();
    assertThat(registry.all()).containsOnlyKeys("a", "b");
    assertThat(registry.reload()).as("the written file is").isTrue();
    assertThat(registry.all()).containsOnlyKeys("a", "b", "c");
  }
}
