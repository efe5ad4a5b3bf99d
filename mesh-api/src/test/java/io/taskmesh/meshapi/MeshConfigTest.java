package io.taskmesh.meshapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.TestEnv;
import io.taskmesh.servicekit.ConfigException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MeshConfigTest {
  private static Map<String, String> env(String... kv) {
    return TestEnv.of(
        Map.of("CONNECTOR_SOCKET", "/tmp/kv.sock", "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
        kv);
  }

  @Test
  void defaults() {
    MeshConfig c = MeshConfig.fromEnv(env());
    assertThat(c.externalPort()).isEqualTo(8080);
    assertThat(c.internalPort()).isEqualTo(8081);
    assertThat(c.prefix()).isEqualTo("/api/v1");
    assertThat(c.namespace()).isNull();
    assertThat(c.eventsTopic()).isEqualTo("svc.mesh-api-events");
    assertThat(c.keepalive().toSeconds()).isEqualTo(15);
    assertThat(c.internalUrl()).isNull();
  }

  @Test
  void theNamespaceNamesTheEventsTopicAsTheGatewayReadsIt() {
    assertThat(MeshConfig.fromEnv(env("SVC_NAMESPACE", "team-a")).eventsTopic())
        .isEqualTo("svc.team-a.mesh-api-events");
    assertThat(MeshConfig.fromEnv(env("SVC_NAMESPACE", "default")).eventsTopic())
        .isEqualTo("svc.mesh-api-events");
    assertThat(
            MeshConfig.fromEnv(env("SVC_NAMESPACE", "team-a", "SVC_MESH_API_EVENTS_TOPIC", "t"))
                .eventsTopic())
        .isEqualTo("t");
  }

  @Test
  void emptyPrefixAndTrailingSlash() {
    assertThat(MeshConfig.fromEnv(env("SVC_MESH_API_PREFIX", "")).prefix()).isEmpty();
    assertThat(MeshConfig.fromEnv(env("SVC_MESH_API_PREFIX", "/x/v2/")).prefix())
        .isEqualTo("/x/v2");
    assertThat(
            MeshConfig.fromEnv(
                    env(
                        "SVC_NAMESPACE",
                        "prod",
                        "SVC_MESH_API_INTERNAL_URL",
                        "http://mesh.prod.svc:8081"))
                .internalUrl())
        .isEqualTo("http://mesh.prod.svc:8081");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "CONNECTOR_SOCKET|                 | CONNECTOR_SOCKET: required",
        "KAFKA_BOOTSTRAP_SERVERS|          | KAFKA_BOOTSTRAP_SERVERS: required",
        "KAFKA_BOOTSTRAP_SERVERS|localhost | KAFKA_BOOTSTRAP_SERVERS: 'localhost' is not host:port",
        "SVC_MESH_API_PORT|http           | SVC_MESH_API_PORT: 'http' is not an integer",
        "SVC_MESH_API_PORT|70000          | SVC_MESH_API_PORT: '70000' is outside",
        "SVC_MESH_API_INTERNAL_PORT|8080  | SVC_MESH_API_INTERNAL_PORT: must differ",
        "SVC_MESH_API_PREFIX|api          | SVC_MESH_API_PREFIX:",
        "SVC_MESH_API_PREFIX|/a b         | SVC_MESH_API_PREFIX:",
        "SVC_NAMESPACE|a/b                | SVC_NAMESPACE:",
        "SVC_MESH_API_INTERNAL_URL|mesh:8081 | SVC_MESH_API_INTERNAL_URL:",
        "SVC_MESH_API_INTERNAL_URL|http://h:1/api | SVC_MESH_API_INTERNAL_URL:",
        "SVC_MESH_API_EVENTS_TOPIC|a topic | SVC_MESH_API_EVENTS_TOPIC:",
        "SVC_MESH_API_DEADLINE_SCAN_MS|0  | SVC_MESH_API_DEADLINE_SCAN_MS:",
        "SVC_MESH_API_KEEPALIVE_MS|soon   | SVC_MESH_API_KEEPALIVE_MS:",
      })
  void badVariablesAreNamed(String name, String value, String message) {
    assertThatThrownBy(() -> MeshConfig.fromEnv(env(name, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message.trim());
  }
}
