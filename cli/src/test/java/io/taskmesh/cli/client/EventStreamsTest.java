package io.taskmesh.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class EventStreamsTest {

  @Test
  void readsIdsTypesMultiLineDataAndSkipsComments() throws Exception {
    String stream =
        ": keepalive\n\nid: 1\nevent: update\ndata: {\"a\":1}\n\nevent: partial\ndata:x\ndata: y\n\n";
    List<SseEvent> events = new ArrayList<>();

    EventStreams.read(bytes(stream), events::add);

    assertThat(events)
        .containsExactly(
            new SseEvent("1", "update", "{\"a\":1}"), new SseEvent(null, "partial", "x\ny"));
  }

  @Test
  void aConsumerStopsReadingEarly() throws Exception {
    List<SseEvent> events = new ArrayList<>();

    EventStreams.read(
        bytes("data: 1\n\ndata: 2\n\n"),
        e -> {
          events.add(e);
          throw new EventStreams.StopReading();
        });

    assertThat(events).extracting(SseEvent::data).containsExactly("1");
  }

  private static InputStream bytes(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aRefusalIsOneLineWithAHintFor401() {
    assertThat(GatewayClient.refused(401, "missing or invalid bearer token\nmore").getMessage())
        .isEqualTo(
            "gateway answered 401: missing or invalid bearer token (pass --token or set TASKMESH_TOKEN)");
    assertThat(GatewayClient.refused(400, "bad").exitCode())
        .isEqualTo(ClientException.INVALID_INPUT);
  }
}
