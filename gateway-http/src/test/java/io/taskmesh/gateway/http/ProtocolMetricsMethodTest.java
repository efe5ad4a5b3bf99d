package io.taskmesh.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The method label of a body the protocol code parsed (MCP) is the one the sniffed start of the
 * same body gives (A2A): one label set whichever way the metrics filter learns the method.
 */
class ProtocolMetricsMethodTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"made/up\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"taskmesh-1\",\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1}",
        "[{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}]",
        "\"text\"",
        "42",
        "{not json"
      })
  void aParsedBodyGetsTheLabelItsBytesGet(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    assertThat(ProtocolMetricsFilter.jsonRpcMethod(parsed(bytes)))
        .isEqualTo(ProtocolMetricsFilter.jsonRpcMethod(bytes));
  }

  /** As the MCP request guard keeps it: a missing node for a body that is not JSON. */
  private static JsonNode parsed(byte[] body) {
    try {
      return Json.MAPPER.readTree(body);
    } catch (IOException notJson) {
      return MissingNode.getInstance();
    }
  }
}
