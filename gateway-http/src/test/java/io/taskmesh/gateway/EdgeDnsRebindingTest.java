package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 33 item 6: on a gateway bound to loopback, only {@code /mcp} checked Host and Origin; a web
 * page re-pointed at 127.0.0.1 could start and read tasks through the other routes. Now every
 * client route refuses a foreign Host (421) or Origin (403) and changes nothing, and local clients
 * go on as before.
 */
@Timeout(30)
class EdgeDnsRebindingTest {
  private static final String CALL = "{\"name\":\"echo\",\"arguments\":{}}";
  private static final String SEND =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":{"
          + "\"kind\":\"message\",\"messageId\":\"m1\",\"role\":\"user\","
          + "\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]}}}";
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.TESTING);
  }

  @AfterAll
  static void stop() throws IOException {
    gateway.close();
  }

  /** The status line of a request sent with a Host header of our choice (HttpClient forbids it). */
  private static String withHost(String method, String path, String host, String body)
      throws IOException {
    int port = URI.create(gateway.url("/")).getPort();
    try (Socket s = new Socket("127.0.0.1", port)) {
      byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      String head =
          method
              + " "
              + path
              + " HTTP/1.1\r\nHost: "
              + host
              + "\r\nContent-Type: application/json\r\nContent-Length: "
              + bytes.length
              + "\r\nConnection: close\r\n\r\n";
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("");
    }
  }

  @Test
  void aForeignHostIsRefusedOnEveryClientRouteAndChangesNothing() throws IOException {
    String task = gateway.seedTask("rebind-task", null);
    String before = gateway.recorded();
    for (String[] r :
        List.of(
            new String[] {"POST", "/tools/call", CALL},
            new String[] {"POST", "/a2a/", SEND},
            new String[] {"GET", "/tasks/" + task, null},
            new String[] {"GET", "/tasks", null},
            new String[] {"POST", "/tasks/" + task + "/cancel", null},
            new String[] {"GET", "/ui/flows", null})) {
      assertThat(withHost(r[0], r[1], "evil.example", r[2])).as(r[1]).contains(" 421 ");
    }
    assertThat(gateway.recorded()).isEqualTo(before);
    assertThat(withHost("GET", "/tasks/" + task, "localhost", null)).contains(" 200 ");
    assertThat(withHost("GET", "/health", "127.0.0.1", null)).contains(" 200 ");
  }

  @Test
  void aForeignOriginIsRefusedAndALocalOneServed() {
    String before = gateway.recorded();
    assertThat(gateway.post("/tools/call", CALL, "Origin", "http://evil.example").statusCode())
        .isEqualTo(403);
    assertThat(gateway.post("/a2a/", SEND, "Origin", "https://evil.example").statusCode())
        .isEqualTo(403);
    assertThat(gateway.recorded()).isEqualTo(before);
    assertThat(gateway.post("/tools/call", CALL, "Origin", "http://localhost:8000").statusCode())
        .isEqualTo(200);
    assertThat(gateway.post("/tools/call", CALL).statusCode()).isEqualTo(200);
  }
}
