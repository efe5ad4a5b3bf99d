package io.taskmesh.servicekit;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Topic creation and the fan-out against a real broker. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicFanoutIT {
  private static final String BOOTSTRAP = LocalKafka.shared().bootstrapServers();

  private static String topic(String what) {
    return "kit-" + what + "-" + UUID.randomUUID();
  }

  private static Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP));
  }

  @Test
  void createsMissingTopicsWithTheSpecAndToleratesExistingOnes() throws Exception {
    String plain = topic("plain");
    String compacted = topic("compacted");
    try (TopicCreator creator = new TopicCreator(BOOTSTRAP);
        Admin admin = admin()) {
      creator.ensure(List.of(plain), TopicCreator.Spec.of(3, (short) 1));
      creator.ensure(List.of(compacted), TopicCreator.Spec.of(2, (short) 1).compacted());
      // asked again, by this creator and by another one: no error, nothing changes
      creator.ensure(List.of(plain, compacted), TopicCreator.Spec.of(5, (short) 1));
      TopicCreator.ensure(BOOTSTRAP, List.of(plain), TopicCreator.Spec.of(7, (short) 1));

      Map<String, TopicDescription> d =
          admin.describeTopics(List.of(plain, compacted)).allTopicNames().get();
      assertThat(d.get(plain).partitions()).hasSize(3);
      assertThat(d.get(compacted).partitions()).hasSize(2);
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, compacted);
      assertThat(
              admin.describeConfigs(Set.of(res)).all().get().get(res).get("cleanup.policy").value())
          .isEqualTo("compact");
    }
  }

  @Test
  void aSubscriberOfEveryKeyGetsEveryRecordBesideTheKeyedOnes() throws Exception {
    String t = topic("fanout-all");
    TopicCreator.ensure(BOOTSTRAP, List.of(t), TopicCreator.Spec.of(2, (short) 1));
    try (KafkaProducer<String, byte[]> producer =
            new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP),
                new StringSerializer(),
                new ByteArraySerializer());
        TopicFanout<String> fanout =
            new TopicFanout<String>(
                    BOOTSTRAP, t, "kit-fanout-all", v -> new String(v, StandardCharsets.UTF_8))
                .start()) {
      List<String> all = new CopyOnWriteArrayList<>();
      List<String> a = new CopyOnWriteArrayList<>();
      AutoCloseable everything = fanout.subscribeAll(all::add);
      fanout.subscribe("a", a::add);
      for (int i = 0; i < 5; i++) {
        producer.send(new ProducerRecord<>(t, "a", bytes("a" + i)));
        producer.send(new ProducerRecord<>(t, "k" + i, bytes("k" + i)));
      }
      producer.flush();
      Await.until(() -> all.size() == 10 && a.size() == 5, Duration.ofSeconds(30), "10 records");
      assertThat(all).containsAll(a).contains("k0", "k4");

      everything.close();
      producer.send(new ProducerRecord<>(t, "a", bytes("after"))).get();
      Await.until(() -> a.size() == 6, Duration.ofSeconds(30), "the keyed subscriber goes on");
      assertThat(all).hasSize(10);
    }
  }

  @Test
  void everyPartitionReachesTheSubscribersOfItsKeyFromTheEndOn() throws Exception {
    String t = topic("fanout");
    TopicCreator.ensure(BOOTSTRAP, List.of(t), TopicCreator.Spec.of(4, (short) 1));
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP),
            new StringSerializer(),
            new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(t, "a", bytes("before-start"))).get();
      List<String> a = new CopyOnWriteArrayList<>();
      List<String> b = new CopyOnWriteArrayList<>();
      try (TopicFanout<String> fanout =
          new TopicFanout<String>(
                  BOOTSTRAP,
                  t,
                  "kit-fanout-test",
                  v -> {
                    String s = new String(v, StandardCharsets.UTF_8);
                    if (s.equals("unreadable")) {
                      throw new IllegalArgumentException("not ours");
                    }
                    return s;
                  })
              .start()) {
        AutoCloseable subA = fanout.subscribe("a", a::add);
        fanout.subscribe("b", b::add);
        fanout.subscribe(
            "b",
            v -> {
              throw new IllegalStateException("a failing subscriber does not stop the others");
            });
        assertThat(fanout.subscriberCount()).isEqualTo(3);
        // keys spread over the 4 partitions; each key keeps its order within its partition
        for (int i = 0; i < 20; i++) {
          producer.send(new ProducerRecord<>(t, "a", bytes("a" + i)));
          producer.send(new ProducerRecord<>(t, "b", bytes("b" + i)));
          producer.send(new ProducerRecord<>(t, "k" + i, bytes("other")));
        }
        producer.send(new ProducerRecord<>(t, "a", bytes("unreadable")));
        producer.flush();
        Await.until(
            () -> a.size() == 20 && b.size() == 20, Duration.ofSeconds(30), "40 records delivered");
        assertThat(a)
            .as("nothing from before start")
            .containsExactlyElementsOf(IntStream.range(0, 20).mapToObj(i -> "a" + i).toList());
        assertThat(b).first().isEqualTo("b0");

        subA.close();
        assertThat(fanout.subscriberCount()).isEqualTo(2);
        producer.send(new ProducerRecord<>(t, "a", bytes("after-unsubscribe")));
        producer.send(new ProducerRecord<>(t, "b", bytes("marker"))).get();
        Await.until(() -> b.contains("marker"), Duration.ofSeconds(30), "marker delivered");
        assertThat(a).hasSize(20);
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
