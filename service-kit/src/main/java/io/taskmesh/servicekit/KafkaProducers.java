package io.taskmesh.servicekit;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Every service's Kafka producers start from one of two presets, so what "idempotent" or
 * "transactional" means is written once; a producer adds only what is its own (timeouts, a client
 * id, one request in flight) with {@link Settings#set}.
 */
public final class KafkaProducers {
  private KafkaProducers() {}

  /**
   * acks=all with idempotence: a record is written once however often the client retries, and is on
   * every in-sync replica before its send completes. No linger: our records are events a client
   * waits for, and under load they still share requests while earlier ones are in flight.
   */
  public static Settings idempotent(String bootstrapServers) {
    return new Settings()
        .set(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers)
        .set(ProducerConfig.ACKS_CONFIG, "all")
        .set(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
        .set(ProducerConfig.LINGER_MS_CONFIG, 0);
  }

  /**
   * {@link #idempotent} with a transactional id. A commit returns before its markers are written;
   * the next transaction's first send meets CONCURRENT_TRANSACTIONS until they are, and the default
   * 100 ms retry backoff would stall the producer that long, so the backoff is short.
   */
  public static Settings transactional(String bootstrapServers, String transactionalId) {
    return idempotent(bootstrapServers)
        .set(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId)
        .set(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 2)
        .set(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 50);
  }

  /** A preset plus a producer's own settings. */
  public static final class Settings {
    private final Map<String, Object> config = new LinkedHashMap<>();

    private Settings() {}

    /** Adds or overrides one setting ({@link ProducerConfig} names). */
    public Settings set(String name, Object value) {
      config.put(name, value);
      return this;
    }

    /** The settings so far, a copy. */
    public Map<String, Object> config() {
      return Map.copyOf(config);
    }

    public <K, V> KafkaProducer<K, V> create(Serializer<K> keys, Serializer<V> values) {
      return new KafkaProducer<>(config(), keys, values);
    }
  }
}
