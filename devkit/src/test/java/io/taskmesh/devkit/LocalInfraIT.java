package io.taskmesh.devkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LocalInfraIT {

  @Test
  void brokerKeepsItsLogAcrossAKillAndRestart() throws Exception {
    LocalKafka kafka = LocalKafka.shared();
    produce(kafka, "devkit-check", "before");
    kafka.restart();
    produce(kafka, "devkit-check", "after");
    assertThat(consumeAll(kafka, "devkit-check", 2)).containsExactly("before", "after");
  }

  @Test
  void postgresAnswersAndKeepsDataAcrossRestart() throws Exception {
    LocalPostgres pg = LocalPostgres.shared();
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl())) {
      c.createStatement().execute("CREATE TABLE IF NOT EXISTS devkit_check (v text)");
      c.createStatement().execute("INSERT INTO devkit_check VALUES ('kept')");
    }
    pg.restart();
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
        ResultSet rs =
            c.createStatement().executeQuery("SELECT count(*) FROM devkit_check WHERE v='kept'")) {
      rs.next();
      assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void aOneUserPostgresRunsWithSmallBuffersAndNoReplicationLauncher() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("taskmesh-pg-one-user");
    try (LocalPostgres pg = LocalPostgres.start(dir, 0, LocalPostgres.ONE_USER);
        Connection c = DriverManager.getConnection(pg.jdbcUrl())) {
      assertThat(setting(c, "SHOW shared_buffers")).isEqualTo("16MB");
      assertThat(
              setting(
                  c,
                  "SELECT count(*) FROM pg_stat_activity"
                      + " WHERE backend_type = 'logical replication launcher'"))
          .isEqualTo("0");
      // the server still does what the stack asks of it
      c.createStatement().execute("CREATE TABLE one_user_check (v text)");
      c.createStatement().execute("INSERT INTO one_user_check VALUES ('x')");
      assertThat(setting(c, "SELECT v FROM one_user_check")).isEqualTo("x");
    }
  }

  private static String setting(Connection c, String sql) throws Exception {
    try (ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static void produce(LocalKafka kafka, String topic, String value) throws Exception {
    try (KafkaProducer<String, String> p =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      p.send(new ProducerRecord<>(topic, "k", value)).get(60, TimeUnit.SECONDS);
    }
  }

  private static List<String> consumeAll(LocalKafka kafka, String topic, int n) {
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "devkit-check",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                    StringDeserializer.class.getName()))) {
      c.subscribe(List.of(topic));
      java.util.ArrayList<String> out = new java.util.ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (out.size() < n && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(200));
        rs.forEach(r -> out.add(r.value()));
      }
      return out;
    }
  }
}
