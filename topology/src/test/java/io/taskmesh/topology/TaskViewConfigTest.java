package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.servicekit.ConfigException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TaskViewConfigTest {
  @Test
  void theViewRunsExactlyOnceV2() {
    Properties p =
        TaskView.streamsProps(
            new TaskViewConfig("127.0.0.1:9092", "app", Path.of("/tmp/x"), 3, (short) 1));
    assertThat(p.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
        .isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    assertThat(p.get(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo("app");
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
