package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.servicekit.ConfigException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TaskViewConfigTest {
  @Test
  void theViewRunsExactlyOnceV2() {
    Properties p =
        TaskStreamsProps.of(
            new TaskViewConfig("127.0.0.1:9092", "app", Path.of("/tmp/x"), 3, (short) 1));
    assertThat(p.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
        .isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    assertThat(p.get(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo("app");
  }

  @Test
  void liveUpdatesLeaveUncompressedAndSoonAReplayCompressesAndCommitsLessOften() {
    TaskViewConfig config =
        new TaskViewConfig("127.0.0.1:9092", "app", Path.of("/tmp/x"), 3, (short) 1);
    String compression = StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG);
    Properties live = TaskStreamsProps.of(config, false);
    assertThat(live.get(compression)).isEqualTo("none");
    assertThat(live.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(100);
    assertThat(live.get(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG)))
        .isEqualTo(5);
    Properties replay = TaskStreamsProps.of(config, true);
    assertThat(replay.get(compression)).isEqualTo("lz4");
    assertThat(replay.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(1000);
    assertThat(replay.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
        .isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
  }

  @Test
  void badConfigIsRefused() {
    assertThatThrownBy(() -> new TaskViewConfig(" ", "app", Path.of("/tmp/x"), 3, (short) 1))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    assertThatThrownBy(() -> new TaskViewConfig("h:1", "app", Path.of("/tmp/x"), 0, (short) 1))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("partitions");
  }
}
