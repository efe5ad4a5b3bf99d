package io.taskmesh.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.cli.client.ClientException;
import io.taskmesh.schemas.Json;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Arguments from --json and --arg, typed by the flow's schema and checked against it. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CallArgumentsTest {
  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
          + "\"n\":{\"type\":\"integer\"},\"tags\":{\"type\":\"array\"}},\"required\":[\"text\"]}";

  private static JsonNode schema() throws Exception {
    return Json.MAPPER.readTree(SCHEMA);
  }

  @Test
  void argValuesFollowTheSchemasTypes() throws Exception {
    JsonNode args =
        CallArguments.build(
            null, List.of("text=42", "n=7", "tags=[\"a\",\"b\"]", "free=true"), schema());

    assertThat(args)
        .isEqualTo(
            Json.MAPPER.readTree(
                "{\"text\":\"42\",\"n\":7,\"tags\":[\"a\",\"b\"],\"free\":\"true\"}"));
  }

  @Test
  void argsGoOnTopOfTheJsonObject() throws Exception {
    JsonNode args = CallArguments.build("{\"text\":\"a\",\"n\":1}", List.of("n=2"), schema());

    assertThat(args).isEqualTo(Json.MAPPER.readTree("{\"text\":\"a\",\"n\":2}"));
  }

  @Test
  void badInputIsOneClearLine() {
    assertThatThrownBy(() -> CallArguments.build("{oops", List.of(), null))
        .isInstanceOf(ClientException.class)
        .hasMessageStartingWith("--json is not valid JSON");
    assertThatThrownBy(() -> CallArguments.build("[1]", List.of(), null))
        .hasMessageContaining("must be a JSON object");
    assertThatThrownBy(() -> CallArguments.build(null, List.of("novalue"), null))
        .hasMessage("--arg wants key=value, got: novalue");
  }

  @Test
  void theSchemasOwnErrorRefusesArgumentsBeforeAnythingStarts() throws Exception {
    JsonNode missing = CallArguments.build(null, List.of("n=3"), schema());
    JsonNode wrongType = CallArguments.build(null, List.of("text=x", "n=many"), schema());

    assertThatThrownBy(() -> CallArguments.check("shout", schema(), missing))
        .isInstanceOfSatisfying(
            ClientException.class,
            e -> assertThat(e.exitCode()).isEqualTo(ClientException.INVALID_INPUT))
        .hasMessageStartingWith("invalid arguments for flow 'shout': ")
        .hasMessageContaining("text");
    assertThatThrownBy(() -> CallArguments.check("shout", schema(), wrongType))
        .hasMessageContaining("n");
    CallArguments.check("shout", schema(), CallArguments.build(null, List.of("text=ok"), schema()));
  }
}
