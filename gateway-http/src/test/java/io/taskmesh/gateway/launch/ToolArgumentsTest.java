package io.taskmesh.gateway.launch;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ToolArgumentsTest {
  private final ToolArguments check = new ToolArguments();
  private final FlowConfig flow =
      new FlowConfig(
          "shout",
          "upper",
          List.of(),
          null,
          null,
          Json.MAPPER.valueToTree(
              java.util.Map.of(
                  "inputSchema",
                  java.util.Map.of(
                      "type", "object",
                      "properties", java.util.Map.of("text", java.util.Map.of("type", "string")),
                      "required", List.of("text")))),
          null);

  @Test
  void matchingArgumentsPass() throws Exception {
    assertThatCode(() -> check.check(flow, Json.MAPPER.readTree("{\"text\":\"hi\",\"extra\":1}")))
        .doesNotThrowAnyException();
  }

  @Test
  void aMissingOrMistypedFieldIsNamed() throws Exception {
    assertThatThrownBy(() -> check.check(flow, Json.MAPPER.readTree("{}")))
        .hasMessageContaining("text");
    assertThatThrownBy(() -> check.check(flow, Json.MAPPER.readTree("{\"text\":5}")))
        .hasMessageContaining("text")
        .hasMessageContaining("string");
  }

  @Test
  void aFlowWithoutSchemaAcceptsAnything() throws Exception {
    FlowConfig open =
        new FlowConfig("echo", "echo", List.of(), null, null, Json.MAPPER.readTree("{}"), null);
    assertThatCode(() -> check.check(open, Json.MAPPER.readTree("{\"x\":[1]}")))
        .doesNotThrowAnyException();
  }
}
