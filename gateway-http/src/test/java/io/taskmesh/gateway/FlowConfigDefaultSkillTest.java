package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.gateway.launch.FlowRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default A2A skill ({@code a2a: {default: true}}) as the flow config is loaded: at most one.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FlowConfigDefaultSkillTest {
  @TempDir Path dir;

  @Test
  void twoDefaultsAreRefusedNamingBothFlows() throws IOException {
    Path file =
        write(
            """
        flows:
          - {name: first, entrypoint: a, a2a: {default: true}}
          - {name: plain, entrypoint: b, a2a: {}}
          - {name: second, entrypoint: c, a2a: {default: true}}
        """);
    assertThatThrownBy(() -> FlowRegistry.parse(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'first'")
        .hasMessageContaining("'second'")
        .hasMessageContaining("a2a.default");
  }

  @Test
  void oneDefaultLoadsAndIsKnownAsTheDefault() throws IOException {
    Path file =
        write(
            """
        flows:
          - {name: first, entrypoint: a, a2a: {}}
          - {name: chat, entrypoint: c, a2a: {default: true}}
          - {name: tool, entrypoint: t, mcp: {}}
        """);
    var flows = FlowRegistry.parse(file);
    assertThat(flows.get("chat").isDefaultA2aSkill()).isTrue();
    assertThat(flows.get("first").isDefaultA2aSkill()).isFalse();
    assertThat(flows.get("tool").isA2aSkill()).isFalse();
  }

  @Test
  void aDefaultThatIsNotABooleanIsRefused() throws IOException {
    Path file =
        write(
            """
        flows:
          - {name: chat, entrypoint: c, a2a: {default: "yes"}}
        """);
    assertThatThrownBy(() -> FlowRegistry.parse(file)).hasMessageContaining("'a2a.default'");
  }

  private Path write(String yaml) throws IOException {
    Path file = dir.resolve("flows.yaml");
    Files.writeString(file, yaml);
    return file;
  }
}
