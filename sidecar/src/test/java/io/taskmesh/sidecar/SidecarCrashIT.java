package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar's Main in child JVMs: kill -9 in the middle of a run, poison envelopes, exit status
 * 1.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SidecarCrashIT {
  TestMesh mesh;
  @TempDir Path tmp;

  @BeforeEach
  void start() {
    mesh = new TestMesh();
  }

  @AfterEach
  void stop() {
    mesh.close();
  }

  private Map<String, String> env(String actor, RuntimeProcess rt, String... kv) {
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                mesh.kafka.bootstrapServers(),
                "SVC_NAMESPACE",
                mesh.namespace,
                "SVC_ACTOR_NAME",
                actor,
                "SVC_SOCKET_DIR",
                rt.socketDir().toString(),
                "SVC_INSTANCE_ID",
                actor + "-0"));
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return env;
  }

  private int committed(String topic) {
    return mesh.read(topic, 0, Duration.ZERO).size();
  }

  @Test
  void killMinus9InTheMiddleOf1000EnvelopesDeliversEachToSinkExactlyOnce() {
    RuntimeProcess rt = mesh.runtime("testhandlers.echo");
    Map<String, String> env = env("k", rt, "SVC_MAX_POLL_RECORDS", "50");
    for (int i = 0; i < 1000; i++) {
      mesh.send(mesh.envelope("k-" + i, Map.of("i", i), "k"));
    }
    ChildJvm first = ChildJvm.start(Main.class.getName(), env, tmp.resolve("first.log"));
    try {
      Await.until(
          () -> committed(mesh.topic("x-sink")) >= 200,
          Duration.ofSeconds(90),
          "a part of the run in x-sink");
      first.kill9();
    } finally {
      first.close();
    }
    int atKill = committed(mesh.topic("x-sink"));
    assertThat(atKill).isLessThan(1000);
    try (ChildJvm second = ChildJvm.start(Main.class.getName(), env, tmp.resolve("second.log"))) {
      List<ConsumerRecord<String, byte[]>> all =
          mesh.read(mesh.topic("x-sink"), 1000, Duration.ofSeconds(90));
      Map<String, Long> perId =
          all.stream().collect(Collectors.groupingBy(ConsumerRecord::key, Collectors.counting()));
      assertThat(perId).hasSize(1000);
      assertThat(perId.values()).allMatch(n -> n == 1);
      System.out.println(
          "kill -9 after "
              + atKill
              + " of 1000 envelopes in x-sink; all 1000 exactly once after restart");
    }
  }

  @Test
  void poisonEnvelopeThatKillsTheSidecarGoesToDeadLetterAfterBoundedDeliveries() {
    RuntimeProcess rt = mesh.runtime("testhandlers.slow");
    Map<String, String> env = env("p", rt, "SVC_MAX_DELIVERIES", "2");
    mesh.send(mesh.envelope("poison", Map.of("sleep", 60), "p"));
    mesh.send(mesh.envelope("after", Map.of("sleep", 0), "p"));
    for (int delivery = 1; delivery <= 2; delivery++) {
      int n = delivery;
      try (ChildJvm jvm =
          ChildJvm.start(Main.class.getName(), env, tmp.resolve("p" + delivery + ".log"))) {
        Await.until(
            () ->
                mesh.gateway.calls("poison", "progress").stream()
                        .filter(c -> c.body().path("status").asText().equals("processing"))
                        .count()
                    == n,
            Duration.ofSeconds(60),
            "delivery " + n + " of the poison envelope");
        jvm.kill9(); // the envelope "killed" the sidecar
      }
    }
    try (ChildJvm third = ChildJvm.start(Main.class.getName(), env, tmp.resolve("p3.log"))) {
      List<ConsumerRecord<String, byte[]>> dlq =
          mesh.read(mesh.topic("p") + ".dlq", 1, Duration.ofSeconds(60));
      assertThat(dlq).hasSize(1);
      assertThat(dlq.get(0).key()).isEqualTo("poison");
      assertThat(
              new String(
                  dlq.get(0).headers().lastHeader("x-svc-dlq-reason").value(),
                  StandardCharsets.UTF_8))
          .isEqualTo(Reasons.POISON);
      // issue 33 item 12: the dead-lettered envelope ends its task (failed, Poison) through x-sink
      List<Envelope> sunk = mesh.envelopes(mesh.topic("x-sink"), 2, Duration.ofSeconds(60));
      assertThat(sunk).extracting(Envelope::id).containsExactlyInAnyOrder("poison", "after");
      Envelope poisoned = sunk.stream().filter(e -> e.id().equals("poison")).findFirst().get();
      assertThat(poisoned.status().phase()).isEqualTo(EnvelopePhase.FAILED);
      assertThat(poisoned.status().reason()).isEqualTo(Reasons.POISON);
      assertThat(poisoned.status().error()).contains("delivered 2 times").contains(".dlq");
      assertThat(
              mesh.gateway.calls("poison", "progress").stream()
                  .filter(c -> c.body().path("status").asText().equals("processing"))
                  .count())
          .isEqualTo(2);
    }
  }

  @Test
  void runtimeTimeoutMakesTheSidecarProcessExitWithStatus1AfterRoutingToSink() {
    RuntimeProcess rt = mesh.runtime("testhandlers.slow");
    Map<String, String> env = env("t", rt, "SVC_RESILIENCY_ACTOR_TIMEOUT", "1s");
    mesh.send(mesh.envelope("t-1", Map.of("sleep", 30), "t"));
    try (ChildJvm jvm = ChildJvm.start(Main.class.getName(), env, tmp.resolve("t.log"))) {
      Await.until(() -> !jvm.isAlive(), Duration.ofSeconds(60), "sidecar exit");
      assertThat(jvm.exitValue()).as(jvm.tail(60)).isEqualTo(1);
    }
    Envelope e = mesh.envelopes(mesh.topic("x-sink"), 1, Duration.ofSeconds(30)).get(0);
    assertThat(e.status().reason()).isEqualTo(Reasons.TIMEOUT);
    assertThat(Set.of(e.id())).containsExactly("t-1");
  }
}
