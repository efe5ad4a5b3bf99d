package io.taskmesh.cli.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GatewayClientUnreachableTest {

  @Test
  void aPortNobodyListensOnIsExplainedWithTheWayToPointAtAGateway() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    String base = "http://127.0.0.1:" + closedPort;
    assertThatThrownBy(() -> new GatewayClient(base, null).flows())
        .isInstanceOf(ClientException.class)
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .startsWith("cannot reach the gateway at " + base + " (")
                    .contains("TASKMESH_URL")
                    .contains("--url")
                    .doesNotContain("Exception")
                    .doesNotContain("java."));
  }
}
