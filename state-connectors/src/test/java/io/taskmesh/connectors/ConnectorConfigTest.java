package io.taskmesh.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.servicekit.ConfigException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ConnectorConfigTest {
  private static Map<String, String> env(String... pairs) {
    Map<String, String> env =
        new HashMap<>(Map.of("CONNECTOR_SOCKET", "/tmp/x.sock", "STATE_BUCKET", "b"));
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
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("STATE_BUCKET");
    Map<String, String> noSocket = env();
    noSocket.remove("CONNECTOR_SOCKET");
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.OBJSTORE_PASSTHROUGH, noSocket))
        .hasMessageContaining("CONNECTOR_SOCKET");
    assertThatThrownBy(
            () ->
                ConnectorConfig.fromEnv(
                    ConnectorType.OBJSTORE_PASSTHROUGH, env("STATE_PRESIGN_TTL", "-5")))
        .hasMessageContaining("STATE_PRESIGN_TTL");
    assertThatThrownBy(
            () ->
                ConnectorConfig.fromEnv(
                    ConnectorType.OBJSTORE_PASSTHROUGH,
                    env("OBJSTORE_ENDPOINT_URL", "localhost:9000")))
        .hasMessageContaining("OBJSTORE_ENDPOINT_URL");
  }

  @Test
  void eachFamilyAsksForItsOwnVariables() {
    Map<String, String> kvEnv = new HashMap<>(Map.of("CONNECTOR_SOCKET", "/tmp/x.sock"));
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.KV_BUFFERED_CAS, kvEnv))
        .hasMessageContaining("KVSTORE_URL");
    kvEnv.put("KVSTORE_URL", "http://localhost:6379");
    assertThatThrownBy(() -> ConnectorConfig.fromEnv(ConnectorType.KV_BUFFERED_CAS, kvEnv))
        .hasMessageContaining("KVSTORE_URL");
    kvEnv.put("KVSTORE_URL", "redis://localhost:6379/2");
    ConnectorConfig kv = ConnectorConfig.fromEnv(ConnectorType.KV_BUFFERED_CAS, kvEnv);
    assertThat(kv.bucket()).as("no bucket for kv").isNull();
    assertThat(kv.kvstoreUrl().getPort()).isEqualTo(6379);

    ConnectorConfig blob =
        ConnectorConfig.fromEnv(
            ConnectorType.BLOB_BUFFERED_CAS,
            env("STORAGE_EMULATOR_HOST", "localhost:4443", "CLOUD_PROJECT", "p"));
    assertThat(blob.storageEmulatorHost().toString())
        .as("host:port as Google's tools take it")
        .isEqualTo("http://localhost:4443");
    assertThat(blob.cloudProject()).isEqualTo("p");
    assertThat(blob.region()).isNull();
    assertThatThrownBy(
            () ->
                ConnectorConfig.fromEnv(ConnectorType.BLOB_BUFFERED_LWW, env("STATE_BUCKET", " ")))
        .hasMessageContaining("STATE_BUCKET");
  }

  @Test
  void unknownTypeListsTheKnownOnes() {
    assertThatThrownBy(() -> ConnectorType.fromSuffix("objstore-fast"))
        .hasMessageContaining("objstore-fast")
        .hasMessageContaining("objstore-buffered-cas");
    assertThat(ConnectorType.fromSuffix("objstore-passthrough"))
        .isEqualTo(ConnectorType.OBJSTORE_PASSTHROUGH);
    assertThat(ConnectorType.fromSuffix("kv-buffered-cas").family())
        .isEqualTo(ConnectorType.Family.KV);
    assertThat(ConnectorType.fromSuffix("blob-buffered-lww").family())
        .isEqualTo(ConnectorType.Family.BLOB);
  }
}
