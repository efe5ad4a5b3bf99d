package io.taskmesh.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ConnectorConfigTest {
  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>(Map.of("CONNECTOR_SOCKET", "/tmp/x.sock", "STATE_BUCKET", "b"));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void defaults() {
    ConnectorConfig c = ConnectorConfig.fromEnv(ConnectorType.OBJSTORE_BUFFERED_LWW, env());
    assertThat(c.region()).isEqualTo("us-east-1");
    assertThat(c.presignTtl()).isEqualTo(Duration.ofSeconds(3600));
    assertThat(c.prefix()).isEmpty();
    assertThat(c.endpoint()).isNull();
  }

  @Test
  void eachBadVariableIsNamed() {
    Map<String, String> noBucket = env();
    noBucket.remove("STATE_BUCKET");
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.OBJSTORE_PASSTHROUGH, noBucket))
        .isInstanceOf(ConfigException.class).hasMessageContaining("STATE_BUCKET");
    Map<String, String> noSocket = env();
    noSocket.remove("CONNECTOR_SOCKET");
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.OBJSTORE_PASSTHROUGH, noSocket))
        .hasMessageContaining("CONNECTOR_SOCKET");
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.OBJSTORE_PASSTHROUGH, env("STATE_PRESIGN_TTL", "-5")))
        .hasMessageContaining("STATE_PRESIGN_TTL");
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.OBJSTORE_PASSTHROUGH,
        env("OBJSTORE_ENDPOINT_URL", "localhost:9000"))).hasMessageContaining("OBJSTORE_ENDPOINT_URL");
  }

  @Test
  void unknownTypeListsTheKnownOnes() {
    assertThatThrownBy(() -> ConnectorType.fromSuffix("objstore-fast"))
        .hasMessageContaining("objstore-fast").hasMessageContaining("objstore-buffered-cas");
    assertThat(ConnectorType.fromSuffix("objstore-passthrough")).isEqualTo(ConnectorType.OBJSTORE_PASSTHROUGH);
  }
}
