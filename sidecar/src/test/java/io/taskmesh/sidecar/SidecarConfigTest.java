package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.TestEnv;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SidecarConfigTest {
  private static Map<String, String> env(String... kv) {
    return TestEnv.of(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092", "SVC_ACTOR_NAME", "a"), kv);
  }

  @Test
  void defaults() {
    SidecarConfig c = SidecarConfig.fromEnv(env());
    assertThat(c.namespace()).isEqualTo("default");
    assertThat(c.inputTopic()).isEqualTo("svc-default-a");
    assertThat(c.deadLetterTopic()).isEqualTo("svc-default-a.dlq");
    assertThat(c.socketPath()).isEqualTo(Path.of("/var/run/svc/svc-runtime.sock"));
    assertThat(c.actorTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.maxAttempts()).isEqualTo(1);
    assertThat(c.retryOn()).isEmpty();
    assertThat(c.gatewayUrl()).isNull();
    assertThat(c.concurrency()).isEqualTo(1);
  }

  @Test
  void readsEveryVariable() {
    SidecarConfig c =
        SidecarConfig.fromEnv(
            env(
                "SVC_NAMESPACE",
                "prod",
                "SVC_SOCKET_DIR",
                "/s",
                "SVC_SOCKET_NAME",
                "r.sock",
                "SVC_GATEWAY_URL",
                "http://g:8080/",
                "SVC_RESILIENCY_ACTOR_TIMEOUT",
                "30s",
                "SVC_RESILIENCY_MAX_ATTEMPTS",
                "3",
                "SVC_RESILIENCY_BACKOFF",
                "50ms",
                "SVC_RESILIENCY_RETRY_ON",
                "ConnectionError, TimeoutError",
                "SVC_CONCURRENCY",
                "4",
                "SVC_INSTANCE_ID",
                "pod-1"));
    assertThat(c.socketPath()).isEqualTo(Path.of("/s/r.sock"));
    assertThat(c.gatewayUrl()).isEqualTo("http://g:8080");
    assertThat(c.actorTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.maxAttempts()).isEqualTo(3);
    assertThat(c.backoff()).isEqualTo(Duration.ofMillis(50));
    assertThat(c.retryOn()).containsExactly("ConnectionError", "TimeoutError");
    assertThat(c.concurrency()).isEqualTo(4);
    assertThat(c.transactionalId()).isEqualTo("svc-prod-a-pod-1");
  }

  @Test
  void durationForms() {
    assertThat(Durations.parse("X", "300")).isEqualTo(Duration.ofSeconds(300));
    assertThat(Durations.parse("X", "500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("X", "5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse("X", "1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("X", "1.5s")).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void badValuesNameTheVariable() {
    assertThatThrownBy(() -> SidecarConfig.fromEnv(env("SVC_RESILIENCY_ACTOR_TIMEOUT", "soon")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_RESILIENCY_ACTOR_TIMEOUT");
    assertThatThrownBy(() -> SidecarConfig.fromEnv(env("SVC_RESILIENCY_MAX_ATTEMPTS", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_RESILIENCY_MAX_ATTEMPTS");
    assertThatThrownBy(() -> SidecarConfig.fromEnv(env("SVC_CONCURRENCY", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_CONCURRENCY");
    Map<String, String> noActor = env();
    noActor.remove("SVC_ACTOR_NAME");
    assertThatThrownBy(() -> SidecarConfig.fromEnv(noActor))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_ACTOR_NAME");
    Map<String, String> noKafka = env();
    noKafka.remove("KAFKA_BOOTSTRAP_SERVERS");
    assertThatThrownBy(() -> SidecarConfig.fromEnv(noKafka))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
  }

  @Test
  void actorTopicsGetSixPartitionsUnlessConfigured() {
    assertThat(SidecarConfig.fromEnv(env()).partitions()).isEqualTo(6);
    assertThat(SidecarConfig.fromEnv(env()).topicSpec().partitions()).isEqualTo(6);
    assertThat(SidecarConfig.fromEnv(env("SVC_ACTOR_TOPIC_PARTITIONS", "12")).partitions())
        .isEqualTo(12);
    // the variable's earlier name still counts, the new one wins
    assertThat(SidecarConfig.fromEnv(env("SVC_TOPIC_PARTITIONS", "2")).partitions()).isEqualTo(2);
    assertThat(
            SidecarConfig.fromEnv(
                    env("SVC_TOPIC_PARTITIONS", "2", "SVC_ACTOR_TOPIC_PARTITIONS", "3"))
                .partitions())
        .isEqualTo(3);
    assertThatThrownBy(() -> SidecarConfig.fromEnv(env("SVC_ACTOR_TOPIC_PARTITIONS", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SVC_ACTOR_TOPIC_PARTITIONS");
  }
}
